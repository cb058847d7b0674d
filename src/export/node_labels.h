// The node labels and taints `squeeze export` asks of a cluster's Kubernetes nodes, so that a
// flavor (GPU model, pool kind, region) selects its nodes, only jobs that opt in land on spot
// and inference GPUs, and Kueue sees each node's topology domains (block, rack).
// docs/kubernetes.md lists them. Pure; thread-safe.
#ifndef SQUEEZE_EXPORT_NODE_LABELS_H_
#define SQUEEZE_EXPORT_NODE_LABELS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "core/status.h"
#include "export/capacity_plan.h"

namespace squeeze {

inline constexpr const char* kPoolKindLabel = "squeeze.dev/pool-kind";
inline constexpr const char* kPoolLabel = "squeeze.dev/pool";
// Set by NVIDIA's GPU feature discovery; squeeze inventory reads GPU models from it.
inline constexpr const char* kGpuModelLabel = "nvidia.com/gpu.product";
inline constexpr const char* kRegionLabel = "topology.kubernetes.io/region";
inline constexpr const char* kGpuResource = "nvidia.com/gpu";
inline constexpr const char* kManagedByLabel = "app.kubernetes.io/managed-by";
// Set by the kubelet on every node: the narrowest level of a Kueue Topology.
inline constexpr const char* kHostnameLabel = "kubernetes.io/hostname";

// The labels a flavor's nodes carry: the pool kind, the GPU model unless the cluster file names
// none ("gpu"), the region when the cluster has several.
std::map<std::string, std::string> FlavorNodeLabels(const Flavor& flavor, bool multi_region);

// The NoSchedule taint (key, value "true") on spot and colocated nodes: only jobs that tolerate
// it (preemptible ones; checkpointable too for inference GPUs) go there. nullopt for the others.
std::optional<std::string> FlavorTaintKey(PoolKind kind);

// The label that names a node's domain at topology level `level`: "squeeze.dev/<level>"
// (squeeze.dev/block, squeeze.dev/rack).
std::string DomainLabelKey(const std::string& level);

// A node and the topology labels it must carry: one per level, squeeze.dev/<level>: <domain>.
struct NodeDomainLabels {
  std::string node;
  std::map<std::string, std::string> labels;
};

// The nodes in the cluster's topology, in file order (nodes in no domain are left out; empty
// without a topology). Errors name the level or the node: a level name that cannot follow
// "squeeze.dev/" in a label key (or names a label squeeze already uses: pool, pool-kind), a
// domain that is no label value.
Result<std::vector<NodeDomainLabels>> TopologyNodeLabels(const ClusterSpec& cluster);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_NODE_LABELS_H_
