#include "export/queue_reach.h"

namespace squeeze {
namespace {

bool RegionReachable(const std::string& from, const std::string& to, const ClusterSpec& cluster,
                     const Policy& policy, bool across_regions) {
  if (from == to) return true;
  return across_regions && policy.Has("region") && cluster.LinkBetween(from, to) != nullptr;
}

}  // namespace

bool IsReclaimableKind(PoolKind kind) {
  return kind == PoolKind::kSpot || kind == PoolKind::kColocated;
}

std::vector<int> ReachableFlavors(const CapacityPlan& plan, const QueueShare& queue,
                                  const ClusterSpec& cluster, const Policy& policy,
                                  bool across_regions) {
  std::vector<int> out;
  for (const auto& [f, amounts] : queue.quota) out.push_back(f);
  const bool team = queue.owner == QueueOwner::kTeam;
  for (int f = 0; f < static_cast<int>(plan.flavors.size()); ++f) {
    if (queue.quota.count(f)) continue;
    const Flavor& flavor = plan.flavors[f];
    if (!RegionReachable(queue.region, flavor.region, cluster, policy, across_regions)) continue;
    bool reach = false;
    if (flavor.kind == PoolKind::kSpot) {
      reach = policy.Has("spot");
    } else if (flavor.kind == PoolKind::kColocated) {
      reach = policy.Has("colocate");
    } else {
      reach = flavor.region == queue.region ? team || policy.Has("borrow") : true;
    }
    if (reach) out.push_back(f);
  }
  return out;
}

}  // namespace squeeze
