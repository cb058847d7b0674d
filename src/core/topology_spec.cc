#include "core/topology_spec.h"

#include <cctype>
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

Result<TopologyRequest> ParseTopologyRequest(std::string_view text) {
  const std::string quoted = "topology '" + std::string(text.substr(0, 80)) + "'";
  const size_t colon = text.find(':');
  const std::string_view mode = text.substr(0, colon);
  TopologyRequest r;
  if (mode == "preferred") {
    r.mode = TopologyMode::kPreferred;
  } else if (mode == "required") {
    r.mode = TopologyMode::kRequired;
  } else if (mode == "unconstrained") {
    r.mode = TopologyMode::kUnconstrained;
  } else {
    return Status::Error(quoted + ": '" + std::string(mode.substr(0, 80)) +
                         "' is not preferred, required or unconstrained (MODE or MODE:LEVEL)");
  }
  if (colon == std::string_view::npos) {
    if (r.mode == TopologyMode::kRequired) {
      return Status::Error(quoted + ": required needs a level (required:rack)");
    }
    return r;
  }
  const std::string_view level = text.substr(colon + 1);
  if (r.mode == TopologyMode::kUnconstrained) {
    return Status::Error(quoted + ": unconstrained takes no level");
  }
  if (level.empty() || level.size() > 64) {
    return Status::Error(quoted + ": the level must be a name of 1 to 64 characters");
  }
  for (char ch : level) {
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.')) {
      return Status::Error(quoted + ": the level may hold only letters, digits, '-', '_', '.'");
    }
  }
  r.level = std::string(level);
  return r;
}

std::string TopologyRequestText(const TopologyRequest& r) {
  std::string out = TopologyModeName(r.mode);
  if (!r.level.empty()) out += ":" + r.level;
  return out;
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
  if (t.empty() && r.mode == TopologyMode::kRequired) {
    return Status::Error("topology: required:" + r.level + " cannot be met: the cluster has no "
                         "topology (blocks, racks; the cluster file's `topology`)");
  }
  if (t.empty() || t.LevelIndex(r.level) >= 0) return Status::Ok();
  std::string known;
  for (const TopologyLevel& l : t.levels) known += (known.empty() ? "" : ", ") + l.name;
  return Status::Error("topology: " + std::string(TopologyModeName(r.mode)) + " level '" +
                       r.level + "' is not a level of the cluster's topology (" + known + ")");
}

}  // namespace squeeze
