#include "core/card_outlook.h"

#include <algorithm>
#include <cstdio>

#include "core/duration.h"
#include "core/hardware.h"

namespace squeeze {
namespace {

std::string CardsOf(const CycleContext& c, int g) {
  const NodeGroup& grp = c.s.cluster.group(g);
  return grp.gpu_model + " cards of pool " + c.s.cluster.spec().pools[grp.pool].name;
}

std::string SpeedText(double speed) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", speed);
  return text;
}

// The groups of the job's pools it may not use, and why.
void CardsRefused(const CycleContext& c, const Job& job, const std::vector<int>& may_use,
                  std::vector<std::string>& out) {
  const ClusterState& cs = c.s.cluster;
  for (size_t g = 0; g < cs.groups().size(); ++g) {
    const NodeGroup& grp = cs.group(static_cast<int>(g));
    bool listed = false;
    for (int m : may_use) listed |= m == static_cast<int>(g) || cs.group(m).pool == grp.pool;
    if (!listed || std::find(may_use.begin(), may_use.end(), static_cast<int>(g)) != may_use.end()) {
      continue;
    }
    const JobSpec& spec = job.spec;
    if (spec.min_gpu_memory_mib > 0 && grp.gpu_memory_mib < spec.min_gpu_memory_mib) {
      out.push_back("not " + CardsOf(c, static_cast<int>(g)) + ": " +
                    std::to_string(grp.gpu_memory_mib) + " MiB each, it needs " +
                    std::to_string(spec.min_gpu_memory_mib) + " MiB");
    } else if (!spec.gpu_models.empty()) {
      out.push_back("not " + CardsOf(c, static_cast<int>(g)) + ": not among the models it asks for");
    }
  }
}

// The busy cards that would finish a held job soonest (their expected free time plus its work
// at their speed): those it waits for.
std::string WaitedCards(const CycleContext& c, const Job& job,
                        const std::vector<std::vector<int>>& tiers,
                        std::optional<Time> remaining) {
  std::string waited = "faster cards";
  double soonest = -1;
  for (const std::vector<int>& tier : tiers) {
    for (int g : tier) {
      const NodeGroup& grp = c.s.cluster.group(g);
      if (job.spec.gpus > grp.max_gpus_per_node || !remaining) continue;
      const Time free_at = c.ExpectedFreeOnOneNode(g, job.spec.gpus);
      if (free_at == kNever || free_at <= c.now) continue;
      const double finish =
          ToSeconds(free_at - c.now) + ToSeconds(*remaining) / JobSpeedOn(job.spec, grp);
      if (soonest < 0 || finish < soonest) {
        soonest = finish;
        waited = CardsOf(c, g);
      }
    }
  }
  return waited;
}

}  // namespace

std::vector<std::string> CardOutlook(const CycleContext& c, const Job& job) {
  const EngineState& s = c.s;
  if (!s.policy.hardware_aware || s.cluster.OneCardKind()) return {};
  const std::vector<int>& groups = c.GroupsFor(job.spec);
  std::vector<std::string> out;
  CardsRefused(c, job, groups, out);
  if (groups.empty() || OneCardKind(s.cluster, job.spec, groups)) return out;
  const std::optional<Time> remaining = c.RemainingWork(job);
  const auto tiers = HardwareTiers(s.cluster, job.spec, groups, remaining,
                                   {s.policy.hardware_slack, s.policy.hardware_min_saving});
  std::vector<std::string> cards;
  for (const std::vector<int>& tier : tiers) {
    for (int g : tier) {
      const NodeGroup& grp = s.cluster.group(g);
      const double speed = JobSpeedOn(job.spec, grp);
      std::string line = CardsOf(c, g) + ": " + std::to_string(grp.whole_free) + " of " +
                         std::to_string(grp.total_gpus) + " GPUs free, speed " +
                         SpeedText(speed) + " for it";
      if (remaining) {
        line += ", its work there about " +
                FormatDuration(static_cast<Time>(static_cast<double>(*remaining) / speed));
      }
      if (job.spec.gpus > 0 && job.spec.gpus <= grp.max_gpus_per_node) {
        const Time free_at = c.ExpectedFreeOnOneNode(g, job.spec.gpus);
        if (free_at > c.now && free_at != kNever) {
          line += "; a node of them expected to have " + std::to_string(job.spec.gpus) +
                  " free in about " + FormatDuration(free_at - c.now);
        }
      }
      cards.push_back(std::move(line));
    }
  }
  out.insert(out.begin(), "the cards it may use, in the order tried (smallest good enough "
                          "first, then the fastest; docs/policies.md, hardware_aware):");
  out.insert(out.begin() + 1, cards.begin(), cards.end());
  PlaceRequest req;
  req.job = &job.spec;
  bool held = false;
  if (!c.PlaceByHardware(job, groups, req, &held) && held) {
    out.push_back("it waits for " + WaitedCards(c, job, tiers, remaining) +
                  ", busy now: expected to finish it sooner, by "
                  "more than hardware_min_saving (" +
                  FormatDuration(s.policy.hardware_min_saving) + "), than the cards free now");
  }
  return out;
}

}  // namespace squeeze
