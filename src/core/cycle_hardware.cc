// Hardware-aware placement on cards of several kinds (core/hardware.h, docs/policies.md): the
// cards by the rule, one kind at a time, and a job held back for a faster card that is busy
// when it is expected to finish there sooner.
#include <algorithm>

#include "core/cycle.h"
#include "core/hardware.h"

namespace squeeze {

Time CycleContext::ExpectedFreeOnOneNode(int group, int gpus) const {
  const uint64_t version = s.cluster.PoolVersion(s.cluster.group(group).pool);
  auto& cached = expected_free_cache_[{group, gpus}];
  if (cached.first == version + 1) return cached.second;  // 0: not computed yet
  Time best = kNever;
  for (int ni : s.cluster.group(group).nodes) {
    const NodeState& node = s.cluster.node(ni);
    if (node.gpus < gpus) continue;
    int free = node.whole_free;
    if (free >= gpus) {
      best = now;
      break;
    }
    std::vector<std::pair<Time, int>> ends;  // (expected end, GPUs it frees here)
    const auto& jobs = s.node_jobs[static_cast<size_t>(ni)];
    for (size_t k = 0; k < jobs.size(); ++k) {
      if (std::find(jobs.begin(), jobs.begin() + static_cast<std::ptrdiff_t>(k), jobs[k]) !=
          jobs.begin() + static_cast<std::ptrdiff_t>(k)) {
        continue;  // met already
      }
      const Job& v = job(jobs[k]);
      int here = 0;
      for (const NodeShare& share : v.placement.shares) {
        if (share.node == ni && share.milli_per_gpu == kMilliPerGpu) {
          here += static_cast<int>(share.gpus.size());
        }
      }
      const Time end = ExpectedEnd(v);
      if (here > 0 && end != kNever) ends.emplace_back(std::max(end, now), here);
    }
    std::sort(ends.begin(), ends.end());
    for (const auto& [end, freed] : ends) {
      if (end >= best) break;
      free += freed;
      if (free >= gpus) {
        best = end;
        break;
      }
    }
  }
  cached = {version + 1, best};
  return best;
}

std::optional<Placement> CycleContext::PlaceByHardware(const Job& job,
                                                       const std::vector<int>& groups,
                                                       PlaceRequest& req, bool* held) const {
  std::optional<std::optional<Time>> asked;  // the job's remaining work, once asked
  auto remaining = [&] {
    if (asked) return *asked;
    if (job.state != JobState::kPending) {
      asked = RemainingWork(job);
    } else {
      auto [it, added] = waiting_work_cache_.try_emplace(job.spec.id);
      if (added) it->second = RemainingWork(job);
      asked = it->second;
    }
    return *asked;
  };
  const auto tiers = HardwareTiers(s.cluster, job.spec, groups, remaining,
                                   {s.policy.hardware_slack, s.policy.hardware_min_saving});
  // The soonest a card tried before (busy now) is expected to finish the job, in seconds from
  // now; only for a job of one node whose remaining work is known.
  double busy_finish = -1;
  for (const std::vector<int>& tier : tiers) {
    req.groups = tier;
    const double speed = JobSpeedOn(job.spec, s.cluster.group(tier.front()));
    std::optional<Placement> p = s.node_order->Place(req, s.cluster);
    if (p) {
      const double work = busy_finish >= 0 ? ToSeconds(*remaining()) : 0;
      if (busy_finish >= 0 &&
          busy_finish + ToSeconds(s.policy.hardware_min_saving) < work / speed) {
        *held = true;
        return std::nullopt;
      }
      return p;
    }
    if (job.spec.gpus <= 0 || !job.spec.WholeGpus() || !remaining()) continue;
    const double work = ToSeconds(*remaining());
    for (int g : tier) {
      if (job.spec.gpus > s.cluster.group(g).max_gpus_per_node) continue;
      const Time start = ExpectedFreeOnOneNode(g, job.spec.gpus);
      if (start == kNever) continue;
      const double finish = ToSeconds(start - now) + work / speed;
      if (busy_finish < 0 || finish < busy_finish) busy_finish = finish;
    }
  }
  return std::nullopt;
}

}  // namespace squeeze
