// Cluster files and a reader of exported documents the export tests share (test-only).
#ifndef SQUEEZE_EXPORT_EXPORT_TEST_CLUSTERS_H_
#define SQUEEZE_EXPORT_EXPORT_TEST_CLUSTERS_H_

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

#include "config/cluster_file.h"
#include "core/policy.h"
#include "export/export_options.h"

namespace squeeze {

// examples/clusters/two-teams.yaml as it stands: owned A100s (vision 16, nlp 8 of 32) and a
// spot pool of 16 H100s and 8 A100s, every node with CPU and memory; 56 GPUs.
inline ClusterSpec TwoTeams() {
  auto c = LoadClusterFile(std::string(SQUEEZE_SOURCE_DIR) + "/examples/clusters/two-teams.yaml");
  return c.ok() ? *c : ClusterSpec{};
}

// examples/clusters/two-teams-racks.yaml: two-teams.yaml with blocks (blk-0, blk-1 of the owned
// A100s in rack r0; blk-2 of the spot H100s in rack r1); the spot A100 node in none.
inline ClusterSpec TwoTeamsRacks() {
  auto c = LoadClusterFile(std::string(SQUEEZE_SOURCE_DIR) +
                           "/examples/clusters/two-teams-racks.yaml");
  return c.ok() ? *c : ClusterSpec{};
}

// The documents of an export by "Kind/name" (a namespaced one's as "Kind/namespace/name").
inline std::map<std::string, YAML::Node> DocsByName(const std::string& text) {
  std::map<std::string, YAML::Node> out;
  for (const YAML::Node& doc : YAML::LoadAll(text)) {
    std::string key = doc["kind"].as<std::string>() + "/";
    if (doc["metadata"]["namespace"]) key += doc["metadata"]["namespace"].as<std::string>() + "/";
    out[key + doc["metadata"]["name"].as<std::string>()] = doc;
  }
  return out;
}

inline ClusterSpec ParseOrEmpty(const std::string& yaml) {
  auto c = ParseClusterYaml(yaml, "c.yaml");
  return c.ok() ? *c : ClusterSpec{};
}

// Export options for two-teams.yaml under a named policy.
inline ExportOptions TwoTeamsOptions(const std::string& policy = "sliced") {
  ExportOptions o;
  o.cluster_source = "two-teams.yaml";
  o.policy = *NamedPolicy(policy);
  return o;
}

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_EXPORT_TEST_CLUSTERS_H_
