// The node labels and taints `squeeze export` asks of a cluster's Kubernetes nodes, so that a
// flavor (GPU model, pool kind, region) selects its nodes and only jobs that opt in land on spot
// and inference GPUs. docs/kubernetes.md lists them. Pure; thread-safe.
#ifndef SQUEEZE_EXPORT_NODE_LABELS_H_
#define SQUEEZE_EXPORT_NODE_LABELS_H_

#include <map>
#include <optional>
#include <string>

#include "export/capacity_plan.h"

namespace squeeze {

inline constexpr const char* kPoolKindLabel = "squeeze.dev/pool-kind";
inline constexpr const char* kPoolLabel = "squeeze.dev/pool";
// Set by NVIDIA's GPU feature discovery; squeeze inventory reads GPU models from it.
inline constexpr const char* kGpuModelLabel = "nvidia.com/gpu.product";
inline constexpr const char* kRegionLabel = "topology.kubernetes.io/region";
inline constexpr const char* kGpuResource = "nvidia.com/gpu";
inline constexpr const char* kManagedByLabel = "app.kubernetes.io/managed-by";

// The labels a flavor's nodes carry: the pool kind, the GPU model unless the cluster file names
// none ("gpu"), the region when the cluster has several.
std::map<std::string, std::string> FlavorNodeLabels(const Flavor& flavor, bool multi_region);

// The NoSchedule taint (key, value "true") on spot and colocated nodes: only jobs that tolerate
// it (preemptible ones; checkpointable too for inference GPUs) go there. nullopt for the others.
std::optional<std::string> FlavorTaintKey(PoolKind kind);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_NODE_LABELS_H_
