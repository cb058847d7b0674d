#include "core/wait_reasons.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "core/scheduler.h"

namespace squeeze {

std::string_view WaitReasonName(WaitReason r) {
  switch (r) {
    case WaitReason::kResources:
      return "Resources";
    case WaitReason::kPriority:
      return "Priority";
    case WaitReason::kReservation:
      return "Reservation";
    case WaitReason::kQuotaLimit:
      return "QuotaLimit";
    case WaitReason::kArrayLimit:
      return "ArrayLimit";
  }
  return "?";
}

namespace {

// As the core admits a job to its home pool (AdmitToPool): a team over its quota there may
// take only GPUs no other team is guaranteed, unless the job may be preempted (it borrows).
bool QuotaRefuses(const Scheduler& scheduler, const JobSpec& spec, int pool) {
  const std::map<std::string, int>& quotas = scheduler.cluster().spec().pools[pool].team_quota_gpus;
  if (quotas.empty() || spec.preemptible) return false;
  auto own = quotas.find(spec.team);
  if (own != quotas.end() && scheduler.TeamPoolGpus(pool, spec.team) + spec.gpus <= own->second) {
    return false;
  }
  int unused = 0;
  for (const auto& [team, quota] : quotas) {
    if (team != spec.team) unused += std::max(0, quota - scheduler.TeamPoolGpus(pool, team));
  }
  int whole_free = 0;
  for (int g : scheduler.cluster().PoolGroups(pool))
    whole_free += scheduler.cluster().group(g).whole_free;
  return whole_free - spec.gpus < unused;
}

}  // namespace

std::vector<std::pair<JobId, WaitReason>> WaitReasons(const Scheduler& scheduler) {
  const ClusterState& cluster = scheduler.cluster();
  const ClusterSpec& spec = cluster.spec();
  // Free capacity by pool, in thousandths of a GPU.
  std::vector<int64_t> free_by_pool(spec.pools.size(), 0);
  int64_t free_all = 0;
  for (const NodeGroup& g : cluster.groups()) {
    free_by_pool[g.pool] += g.free_milli;
    free_all += g.free_milli;
  }
  std::vector<std::pair<JobId, WaitReason>> out;
  std::set<int> pools_ahead;    // home pools of the waiting jobs seen so far
  bool any_pool_ahead = false;  // a job ahead that may run in any pool
  scheduler.ForEachWaiting([&](const Job& job) {
    const int pool = job.spec.pool.empty() ? -1 : spec.PoolIndex(job.spec.pool);
    WaitReason reason;
    const bool behind =
        any_pool_ahead || (pool < 0 ? !pools_ahead.empty() : pools_ahead.count(pool) > 0);
    const bool over_quota = pool >= 0 && QuotaRefuses(scheduler, job.spec, pool);
    if (over_quota) {
      reason = WaitReason::kQuotaLimit;
    } else if (!behind) {
      reason = WaitReason::kResources;
    } else {
      const int64_t free = pool >= 0 ? free_by_pool[pool] : free_all;
      reason = job.spec.TotalMilli() <= free ? WaitReason::kReservation : WaitReason::kPriority;
    }
    out.emplace_back(job.spec.id, reason);
    if (pool < 0) {
      any_pool_ahead = true;
    } else {
      pools_ahead.insert(pool);
    }
    return true;
  });
  scheduler.ForEachParked(
      [&](const Job& job) { out.emplace_back(job.spec.id, WaitReason::kArrayLimit); });
  return out;
}

}  // namespace squeeze
