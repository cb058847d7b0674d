// Volcano's network topology for `squeeze export volcano`: the cluster file's topology as
// HyperNodes (topology.volcano.sh/v1alpha1), one per domain, and the spec.networkTopology a
// Volcano Job carries for its TopologyRequest. docs/kubernetes.md has the mapping. Pure;
// thread-safe.
#ifndef SQUEEZE_EXPORT_VOLCANO_HYPERNODES_H_
#define SQUEEZE_EXPORT_VOLCANO_HYPERNODES_H_

#include <optional>
#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "core/status.h"
#include "core/topology_spec.h"
#include "export/k8s_yaml.h"

namespace squeeze {

inline constexpr const char* kHyperNodeApi = "topology.volcano.sh/v1alpha1";

// A domain's HyperNode name: "<level>-<domain>" as a DNS-1123 label (rack-r0, block-blk-0).
Result<std::string> HyperNodeName(const std::string& level, const std::string& domain);

// One HyperNode per domain of each level, narrowest level first, domains in the order the
// cluster file first names them: tier = the level's place (1 for the narrowest), tierName = its
// name; a tier-1 HyperNode lists its nodes (type Node, selector exactMatch), a wider one the
// HyperNodes of the level below inside it (type HyperNode). Empty without a topology. Errors
// name a node whose name is no Kubernetes node name (a DNS-1123 subdomain) and two domains
// whose HyperNode names are the same.
Result<std::vector<YamlDocument>> HyperNodeDocuments(const ClusterSpec& cluster);

// A Volcano Job's spec.networkTopology for `request`: required -> {mode: hard,
// highestTierAllowed: its level's tier}; preferred -> {mode: soft} (Volcano's soft mode names no
// tier: as few, as low HyperNodes as it can), the default request only for a job that can span
// several nodes (`spans_nodes`); unconstrained, or no topology -> nullopt.
std::optional<YamlValue> VolcanoNetworkTopology(const TopologyRequest& request,
                                                const TopologySpec& topology, bool spans_nodes);

// Sentences for the export's header: the HyperNodes and what a job carries.
std::vector<std::string> VolcanoTopologyNotes(const TopologySpec& topology, size_t hypernodes);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_VOLCANO_HYPERNODES_H_
