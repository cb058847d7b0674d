#include "export/kueue_topology.h"

#include "export/k8s_object.h"
#include "export/node_labels.h"

namespace squeeze {

std::vector<std::string> KueueTopologyLevels(const TopologySpec& topology) {
  std::vector<std::string> out;
  for (auto l = topology.levels.rbegin(); l != topology.levels.rend(); ++l) {
    out.push_back(DomainLabelKey(l->name));
  }
  out.push_back(kHostnameLabel);
  return out;
}

Result<YamlDocument> KueueTopologyDocument(const ClusterSpec& cluster,
                                           const std::string& api_version) {
  auto nodes = TopologyNodeLabels(cluster);
  if (!nodes.ok()) return nodes.status();
  YamlDocument doc = K8sObject(api_version, "Topology", K8sMetadata(kKueueTopologyName));
  std::string levels;
  for (auto l = cluster.topology.levels.rbegin(); l != cluster.topology.levels.rend(); ++l) {
    levels += l->name + " (" + DomainLabelKey(l->name) + "), ";
  }
  AddComment(doc, "From squeeze: the cluster file's topology, widest level first: " + levels +
                      "then the node (" + kHostnameLabel + ", set by the kubelet). " +
                      std::to_string(nodes->size()) + " of " +
                      std::to_string(cluster.nodes.size()) +
                      " nodes are in it; label them so that Kueue sees their domains:");
  for (const NodeDomainLabels& n : *nodes) {
    std::string line = "  kubectl label node --overwrite " + n.node;
    for (const auto& [key, value] : n.labels) line += " " + key + "=" + value;
    doc.comments.push_back(line);
  }
  YamlValue list = YamlValue::List();
  for (const std::string& label : KueueTopologyLevels(cluster.topology)) {
    list.Add(YamlValue::Map().Set("nodeLabel", YamlValue::String(label)));
  }
  doc.body.Set("spec", YamlValue::Map().Set("levels", std::move(list)));
  return doc;
}

bool FlavorInTopology(const Flavor& flavor, const ClusterSpec& cluster) {
  if (cluster.topology.empty()) return false;
  bool any = false;
  for (const NodeSpec& node : cluster.nodes) {
    const PoolSpec& pool = cluster.pools[cluster.PoolIndex(node.pool)];
    if (pool.kind != flavor.kind || pool.region != flavor.region ||
        node.gpu_model != flavor.gpu_model) {
      continue;
    }
    if (node.domains.size() != cluster.topology.levels.size()) return false;
    any = true;
  }
  return any;
}

std::optional<PodAnnotation> KueueTopologyAnnotation(const TopologyRequest& request,
                                                     const TopologySpec& topology,
                                                     bool spans_nodes) {
  if (topology.empty()) return std::nullopt;
  if (request.mode == TopologyMode::kUnconstrained) {
    return PodAnnotation{kPodsetUnconstrainedTopology, "true"};
  }
  if (request.IsDefault() && !spans_nodes) return std::nullopt;
  const std::string level = request.level.empty() ? topology.levels.front().name : request.level;
  return PodAnnotation{request.mode == TopologyMode::kRequired ? kPodsetRequiredTopology
                                                              : kPodsetPreferredTopology,
                       DomainLabelKey(level)};
}

std::vector<std::string> KueueTopologyNotes(const TopologySpec& topology, size_t flavors_in,
                                            size_t flavors) {
  const std::string narrow = topology.levels.front().name;
  const std::string wide = topology.levels.back().name;
  std::vector<std::string> out;
  out.push_back("Topology-aware scheduling: the Topology " + std::string(kKueueTopologyName) +
                " holds the cluster file's levels as node labels; " + std::to_string(flavors_in) +
                " of " + std::to_string(flavors) +
                " ResourceFlavors name it (spec.topologyName: those whose nodes are all in the "
                "topology). Label the nodes as its comments say.");
  out.push_back(
      "A job that can span several nodes carries, on its pod template, the annotation " +
      std::string(kPodsetPreferredTopology) + ": " + DomainLabelKey(narrow) +
      " (squeeze's default: inside one " + narrow + " when it can); a job that must stay inside "
      "one " + wide + " carries " + kPodsetRequiredTopology + ": " + DomainLabelKey(wide) +
      " instead, and one that may go anywhere " + kPodsetUnconstrainedTopology + ": \"true\". "
      "A job on one node needs none.");
  return out;
}

}  // namespace squeeze
