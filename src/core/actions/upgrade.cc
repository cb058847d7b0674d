// The upgrade action (heterogeneous GPUs, core/hardware.h): a job running on cards slower than
// others it may use moves to faster ones left free after the waiting jobs had their turn (a
// checkpoint, a stop and a restart there), when that is expected to finish it sooner by at
// least policy.hardware_min_saving: its remaining work (estimate, or what the order learned)
// at its speed now against the move's cost (its checkpoint and restart) and the same work at
// the faster cards' speed. The jobs that would gain most go first; a job moves at most
// policy.defrag_max_moves_per_hour times in any hour, and not before its minimum run time.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/actions/actions.h"
#include "core/hardware.h"

namespace squeeze {
namespace {

struct Upgrade {
  JobId id = 0;
  double gain = 0;  // seconds saved on the fastest card it may use, the move's cost paid
  double work = 0;  // its remaining work at speed 1, seconds
  std::vector<int> faster;  // the groups of faster cards
};

std::optional<Upgrade> UpgradeCandidate(const CycleContext& c, const Job& job) {
  if (job.state != JobState::kRunning || job.placement.shares.empty() || job.awaiting_launch) {
    return std::nullopt;
  }
  if (!job.spec.checkpointable || job.must_leave_by != kNever || c.now < job.min_runtime_until ||
      c.withdrawn.count(job.spec.id) || c.s.moves.count(job.spec.id)) {
    return std::nullopt;
  }
  if (job.spec.elastic.enabled() || job.MovesSince(c.now - kHour) >= c.s.policy.defrag_max_moves_per_hour) {
    return std::nullopt;
  }
  const int pool = c.s.cluster.node(job.placement.shares.front().node).pool;
  const std::vector<int>& groups = c.GroupsFor(job.spec, job.home_pool >= 0 ? job.home_pool : pool);
  if (OneCardKind(c.s.cluster, job.spec, groups)) return std::nullopt;
  const double now_speed = JobSpeedOn(job.spec, c.s.cluster, job.placement);
  Upgrade u;
  u.id = job.spec.id;
  double best = 0;
  for (int g : groups) {
    const double speed = JobSpeedOn(job.spec, c.s.cluster.group(g));
    if (speed <= now_speed * (1 + c.s.policy.hardware_slack)) continue;
    if (c.s.cluster.group(g).whole_free < job.spec.gpus) continue;  // no room there now
    u.faster.push_back(g);
    best = std::max(best, speed);
  }
  if (u.faster.empty()) return std::nullopt;
  const std::optional<Time> remaining = c.RemainingWork(job);
  if (!remaining) return std::nullopt;
  u.work = ToSeconds(*remaining);
  const double cost = ToSeconds(job.spec.checkpoint_cost + RestartOverhead(job.spec));
  u.gain = u.work / now_speed - (cost + u.work / best);
  if (u.gain < ToSeconds(c.s.policy.hardware_min_saving)) return std::nullopt;
  return u;
}

}  // namespace

void RunUpgrade(CycleContext& c) {
  if (!c.s.policy.hardware_aware || c.s.cluster.OneCardKind()) return;
  std::vector<Upgrade> upgrades;
  std::set<JobId> seen;
  for (const auto& jobs : c.s.node_jobs) {
    for (JobId id : jobs) {
      if (!seen.insert(id).second) continue;
      if (auto u = UpgradeCandidate(c, c.job(id))) upgrades.push_back(std::move(*u));
    }
  }
  std::stable_sort(upgrades.begin(), upgrades.end(),
                   [](const Upgrade& a, const Upgrade& b) { return a.gain > b.gain; });
  for (const Upgrade& u : upgrades) {
    const Job& job = c.job(u.id);
    auto placed = c.Place(job, u.faster, &c.caps);
    if (!placed) continue;
    // What it gains on the cards it got (the fastest may be taken).
    const double now_speed = JobSpeedOn(job.spec, c.s.cluster, job.placement);
    const double new_speed = JobSpeedOn(job.spec, c.s.cluster, *placed);
    const double work = u.work;
    const double cost = ToSeconds(job.spec.checkpoint_cost + RestartOverhead(job.spec));
    if (work / now_speed - (cost + work / new_speed) < ToSeconds(c.s.policy.hardware_min_saving)) {
      continue;
    }
    c.ChargeCaps(*placed);
    Statement st(c);
    st.Evict(u.id, "moved to faster cards", StopKind::kOther);
    st.MoveTo(u.id, std::move(*placed), false, MoveKind::kUpgrade);
    st.Commit();
  }
}

}  // namespace squeeze
