#include "export/node_labels.h"

#include "export/k8s_names.h"

namespace squeeze {

std::map<std::string, std::string> FlavorNodeLabels(const Flavor& flavor, bool multi_region) {
  std::map<std::string, std::string> labels = {
      {kPoolKindLabel, std::string(PoolKindName(flavor.kind))}};
  if (flavor.gpu_model != kUnnamedGpuModel) {
    labels[kGpuModelLabel] = GpuProductLabel(flavor.gpu_model);
  }
  if (multi_region) labels[kRegionLabel] = flavor.region;
  return labels;
}

std::optional<std::string> FlavorTaintKey(PoolKind kind) {
  if (kind == PoolKind::kSpot) return std::string("squeeze.dev/spot");
  if (kind == PoolKind::kColocated) return std::string("squeeze.dev/colocated");
  return std::nullopt;
}

std::string DomainLabelKey(const std::string& level) { return "squeeze.dev/" + level; }

Result<std::vector<NodeDomainLabels>> TopologyNodeLabels(const ClusterSpec& cluster) {
  const auto& levels = cluster.topology.levels;
  for (const TopologyLevel& l : levels) {
    // The name part of a label key has the syntax of a label value that is not empty.
    if (l.name.empty() || !IsLabelValue(l.name)) {
      return Status::Error("topology level '" + l.name + "' cannot name the node label " +
                           DomainLabelKey(l.name) + " (at most 63 characters of A-Z a-z 0-9 "
                           ". _ -, a letter or digit at both ends)");
    }
    if (DomainLabelKey(l.name) == kPoolLabel || DomainLabelKey(l.name) == kPoolKindLabel) {
      return Status::Error("topology level '" + l.name + "' would name the node label " +
                           DomainLabelKey(l.name) + ", which squeeze export uses for the " +
                           l.name + "; name the level otherwise");
    }
  }
  std::vector<NodeDomainLabels> out;
  for (const NodeSpec& node : cluster.nodes) {
    if (node.domains.size() != levels.size() || levels.empty()) continue;
    NodeDomainLabels n{node.name, {}};
    for (size_t l = 0; l < levels.size(); ++l) {
      if (!IsLabelValue(node.domains[l])) {
        return Status::Error("node '" + node.name + "': " + levels[l].name + " '" +
                             node.domains[l] + "' cannot be the value of the node label " +
                             DomainLabelKey(levels[l].name) + " (at most 63 characters of "
                             "A-Z a-z 0-9 . _ -, a letter or digit at both ends)");
      }
      n.labels[DomainLabelKey(levels[l].name)] = node.domains[l];
    }
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace squeeze
