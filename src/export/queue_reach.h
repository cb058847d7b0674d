// Which flavors a queue's jobs may run on under a policy, as squeeze would place them: the
// flavors it holds quota in; spot and colocated ones when the policy has the spot and colocate
// actions; the other flavors of its region for a team's queue (its jobs may name any pool) and,
// with the borrow action, for a pool's; with `across_regions` and the region action, the
// flavors of the regions a region_link joins to its own. Pure; thread-safe.
#ifndef SQUEEZE_EXPORT_QUEUE_REACH_H_
#define SQUEEZE_EXPORT_QUEUE_REACH_H_

#include <vector>

#include "core/cluster_spec.h"
#include "core/policy.h"
#include "export/capacity_plan.h"

namespace squeeze {

// Flavor indexes: those the queue holds quota in first, then the others in the plan's order.
std::vector<int> ReachableFlavors(const CapacityPlan& plan, const QueueShare& queue,
                                  const ClusterSpec& cluster, const Policy& policy,
                                  bool across_regions);

// Spot and colocated capacity can be taken back; jobs go there only by opting in.
bool IsReclaimableKind(PoolKind kind);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_QUEUE_REACH_H_
