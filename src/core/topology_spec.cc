#include "core/topology_spec.h"

#include <map>
#include <set>

#include "core/cluster_spec.h"

namespace squeeze {

int TopologySpec::LevelIndex(const std::string& name) const {
  for (size_t i = 0; i < levels.size(); ++i) {
    if (levels[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const char* TopologyModeName(TopologyMode mode) {
  switch (mode) {
    case TopologyMode::kPreferred: return "preferred";
    case TopologyMode::kRequired: return "required";
    case TopologyMode::kUnconstrained: return "unconstrained";
  }
  return "preferred";
}

Status ValidateTopology(const ClusterSpec& c) {
  const TopologySpec& t = c.topology;
  std::set<std::string> names;
  for (const TopologyLevel& l : t.levels) {
    if (l.name.empty()) return Status::Error("cluster: topology: a level has an empty name");
    if (!names.insert(l.name).second) {
      return Status::Error("cluster: topology: level '" + l.name + "' is listed twice");
    }
    if (!(l.spread_speed > 0 && l.spread_speed <= 1)) {
      return Status::Error("cluster: topology: level '" + l.name + "': spread_speed " +
                           std::to_string(l.spread_speed) + " is not in (0, 1]");
    }
  }
  // [level] narrower domain -> the wider domain (level + 1) it is in.
  std::vector<std::map<std::string, std::string>> parent(t.levels.size());
  for (const NodeSpec& n : c.nodes) {
    if (n.domains.empty()) continue;
    if (n.domains.size() != t.levels.size()) {
      return Status::Error("cluster: node '" + n.name + "': " + std::to_string(n.domains.size()) +
                           " topology domains for " + std::to_string(t.levels.size()) + " levels");
    }
    for (size_t l = 0; l < n.domains.size(); ++l) {
      if (n.domains[l].empty()) {
        return Status::Error("cluster: node '" + n.name + "': its " + t.levels[l].name +
                             " has an empty name");
      }
      if (l + 1 == n.domains.size()) continue;
      auto [it, added] = parent[l].emplace(n.domains[l], n.domains[l + 1]);
      if (!added && it->second != n.domains[l + 1]) {
        return Status::Error("cluster: node '" + n.name + "': " + t.levels[l].name + " '" +
                             n.domains[l] + "' is in " + t.levels[l + 1].name + " '" +
                             it->second + "' and in '" + n.domains[l + 1] +
                             "' (a domain is inside one domain of each wider level)");
      }
    }
  }
  return Status::Ok();
}

Status CheckTopologyRequest(const TopologyRequest& r, const TopologySpec& t) {
  if (r.level.empty()) {
    if (r.mode == TopologyMode::kRequired) {
      return Status::Error("topology: required names no level");
    }
    return Status::Ok();
  }
  if (t.empty() || t.LevelIndex(r.level) >= 0) return Status::Ok();
  std::string known;
  for (const TopologyLevel& l : t.levels) known += (known.empty() ? "" : ", ") + l.name;
  return Status::Error("topology: " + std::string(TopologyModeName(r.mode)) + " level '" +
                       r.level + "' is not a level of the cluster's topology (" + known + ")");
}

}  // namespace squeeze
