// Kueue's Topology-Aware Scheduling for `squeeze export kueue`: the cluster file's topology as a
// Topology object whose levels are node labels (squeeze.dev/<level>, widest first, then
// kubernetes.io/hostname), which ResourceFlavors name it, and the annotation a job's pod
// template carries for its TopologyRequest. docs/kubernetes.md has the mapping. Pure;
// thread-safe.
#ifndef SQUEEZE_EXPORT_KUEUE_TOPOLOGY_H_
#define SQUEEZE_EXPORT_KUEUE_TOPOLOGY_H_

#include <optional>
#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "core/status.h"
#include "core/topology_spec.h"
#include "export/capacity_plan.h"
#include "export/k8s_yaml.h"

namespace squeeze {

inline constexpr const char* kKueueTopologyName = "squeeze";
inline constexpr const char* kPodsetRequiredTopology = "kueue.x-k8s.io/podset-required-topology";
inline constexpr const char* kPodsetPreferredTopology =
    "kueue.x-k8s.io/podset-preferred-topology";
inline constexpr const char* kPodsetUnconstrainedTopology =
    "kueue.x-k8s.io/podset-unconstrained-topology";

// The node labels of the Topology's levels, widest first: squeeze.dev/<level> for each level of
// `topology` (narrowest first there), then kubernetes.io/hostname.
std::vector<std::string> KueueTopologyLevels(const TopologySpec& topology);

// The Topology object (`api_version`, named kKueueTopologyName); its comments list a `kubectl
// label` line for every node in the topology. Only for a cluster with a topology. Errors: those
// of TopologyNodeLabels (a level or domain that cannot be a label).
Result<YamlDocument> KueueTopologyDocument(const ClusterSpec& cluster,
                                           const std::string& api_version);

// Whether every node of `flavor` is in the topology: only then does its ResourceFlavor name the
// Topology (spec.topologyName), since Kueue's TAS leaves out nodes without the level labels.
bool FlavorInTopology(const Flavor& flavor, const ClusterSpec& cluster);

struct PodAnnotation {
  std::string key;
  std::string value;
};

// The annotation on a job's pod template for `request`: required -> podset-required-topology:
// squeeze.dev/<level>; preferred -> podset-preferred-topology: squeeze.dev/<level, or the
// narrowest>; unconstrained -> podset-unconstrained-topology: "true". The default request
// (preferred, no level) is written only for a job that can span several nodes (`spans_nodes`):
// on one node there is nothing to keep together. nullopt without a topology.
std::optional<PodAnnotation> KueueTopologyAnnotation(const TopologyRequest& request,
                                                     const TopologySpec& topology,
                                                     bool spans_nodes);

// Sentences for the export's header: the Topology, the flavors that name it, and the
// annotation a job carries for each kind of request.
std::vector<std::string> KueueTopologyNotes(const TopologySpec& topology, size_t flavors_in,
                                            size_t flavors);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_KUEUE_TOPOLOGY_H_
