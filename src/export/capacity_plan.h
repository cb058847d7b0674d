// squeeze's capacity as a Kubernetes queue manager sees it (`squeeze export kueue|volcano`):
// GPU flavors, one per GPU model, pool kind and region, and the queues that hold their quota,
// one per pool (what no team is guaranteed there) and one per team and region (its
// guarantees), so that every GPU, core and MiB of the cluster is counted in exactly one queue.
// Pure; not thread-bound.
#ifndef SQUEEZE_EXPORT_CAPACITY_PLAN_H_
#define SQUEEZE_EXPORT_CAPACITY_PLAN_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "core/status.h"
#include "core/types.h"

namespace squeeze {

struct Amounts {
  int64_t gpus = 0;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  Amounts& operator+=(const Amounts& o);
};

struct Flavor {
  std::string name;  // DNS-1123 label: "<kind>-<model>", "-<region>" added with several regions
  PoolKind kind = PoolKind::kOwned;
  std::string gpu_model;  // as the cluster file writes it
  std::string region;
  Amounts total;
  std::vector<std::string> pools;  // the pools with nodes of this flavor, in file order
};

enum class QueueOwner { kPool, kTeam };

struct QueueShare {
  // DNS-1123 label: "pool-<pool>" or "team-<team>", "-<region>" added to a team's with several
  // regions.
  std::string name;
  QueueOwner owner = QueueOwner::kPool;
  std::string source;          // the pool's or the team's name as the cluster file writes it
  std::string team_namespace;  // teams: the team's name as a DNS-1123 label
  std::string region;
  // Flavor index -> nominal amounts: every flavor of a pool's nodes (0 where teams hold all of
  // it), a team's guaranteed flavors.
  std::map<int, Amounts> quota;
  std::map<int, Amounts> pool_amounts;  // pools: all of the pool's nodes, per flavor
  std::vector<std::string> origin;  // where the amounts come from, one line each
};

struct CapacityPlan {
  // In the order a job should try them: owned, reserved, on-demand, colocated, spot; then GPU
  // model and region.
  std::vector<Flavor> flavors;
  std::vector<QueueShare> queues;  // pools in file order, then teams by name and region
  std::vector<std::string> regions;  // regions with nodes, sorted
  bool tracks_cpu = false;     // every node gives cpu_milli
  bool tracks_memory = false;  // every node gives memory_mib
  std::vector<std::string> pools_without_nodes;

  Amounts Total() const;
  bool MultiRegion() const { return regions.size() > 1; }
  // Indexes of the flavors of `pool`'s nodes.
  std::vector<int> FlavorsOfPool(const std::string& pool) const;
};

// Flavor and queue names are DNS-1123 labels made from the cluster's names; a name that cannot
// be made one, two names that become one, a GPU model or region that is no valid label value,
// and a pool whose team_quota_gpus add up to more than its GPUs are errors naming them.
// `extra_teams` (a job history's) get a queue each even without a guarantee.
Result<CapacityPlan> PlanCapacity(const ClusterSpec& cluster,
                                  const std::vector<std::string>& extra_teams);

// The GPU model squeeze assumes when a cluster file names none: no model label is asked of nodes.
constexpr const char* kUnnamedGpuModel = "gpu";

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_CAPACITY_PLAN_H_
