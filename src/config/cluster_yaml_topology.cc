// A cluster file's topology (core/topology_spec.h, docs/cluster-file.md "Topology"): the root's
// levels, narrowest first, and each node entry's domain at each level, by name or, for a group
// of `count` nodes, in runs of `size` named <prefix>0, <prefix>1, ... (numbered on across the
// entries that share the prefix).
//
//   topology:
//     levels:
//       - {name: block, spread_speed: 0.85}
//       - {name: rack, spread_speed: 0.7}
//   pools:
//     - name: a
//       nodes:
//         - count: 32
//           topology: {block: {size: 4, prefix: blk-}, rack: {size: 8, prefix: rack-}}
//         - name: big-0
//           topology: {block: blk-big, rack: rack-big}
#include "config/cluster_yaml_reader.h"
#include "config/text_util.h"

namespace squeeze::cluster_yaml {
namespace {

constexpr std::string_view kTopologyKeys[] = {"levels"};
constexpr std::string_view kLevelKeys[] = {"name", "spread_speed"};
constexpr std::string_view kRunKeys[] = {"size", "prefix"};
constexpr size_t kMaxLevels = 8;

}  // namespace

Status ClusterYamlReader::ReadTopology(const Fields& root, ClusterSpec& spec) const {
  const auto it = root.find("topology");
  if (it == root.end()) return Status::Ok();
  Fields f;
  if (Status s = ReadFields(it->second.value, "topology", kTopologyKeys, f); !s.ok()) return s;
  const auto levels = f.find("levels");
  if (levels == f.end()) return Error(it->second.At(), "topology", "missing required key 'levels'");
  const YAML::Node& list = levels->second.value;
  if (!list.IsSequence() || list.size() == 0 || list.size() > kMaxLevels) {
    return Error(levels->second.At(), "topology.levels",
                 "expected a list of 1 to " + std::to_string(kMaxLevels) +
                     " levels, narrowest first, got " + TypeName(list));
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = Element("topology.levels", i);
    Fields l;
    if (Status s = ReadFields(list[i], path, kLevelKeys, l); !s.ok()) return s;
    if (!l.count("name")) return Error(list[i], path, "missing required key 'name'");
    TopologyLevel level;
    for (Status s : {ReadString(l, "name", path, level.name),
                     ReadDouble(l, "spread_speed", path, level.spread_speed)}) {
      if (!s.ok()) return s;
    }
    if (Trim(level.name).empty() || level.name != Trim(level.name)) {
      return Error(l.find("name")->second.At(), Child(path, "name"),
                   "value '" + level.name + "' is not a plain name");
    }
    if (spec.topology.LevelIndex(level.name) >= 0) {
      return Error(l.find("name")->second.At(), Child(path, "name"),
                   "level '" + level.name + "' is listed twice");
    }
    if (!(level.spread_speed > 0 && level.spread_speed <= 1)) {
      return Error(l.find("spread_speed")->second.At(), Child(path, "spread_speed"),
                   "value '" + std::to_string(level.spread_speed) + "' is not in (0, 1]");
    }
    spec.topology.levels.push_back(std::move(level));
  }
  return Status::Ok();
}

Status ClusterYamlReader::ReadNodeTopology(const Fields& f, const std::string& path,
                                           const TopologySpec& topology, int64_t count,
                                           std::vector<std::vector<std::string>>& out) {
  const auto it = f.find("topology");
  if (it == f.end()) return Status::Ok();
  const std::string where = Child(path, "topology");
  if (topology.empty()) {
    return Error(it->second.At(), where,
                 "the cluster file has no root 'topology' with its levels (block, rack, ...)");
  }
  std::vector<std::string_view> names;
  for (const TopologyLevel& l : topology.levels) names.push_back(l.name);
  Fields levels;
  if (Status s = ReadFields(it->second.value, where, names, levels); !s.ok()) return s;
  out.assign(static_cast<size_t>(count), std::vector<std::string>(topology.levels.size()));
  for (size_t l = 0; l < topology.levels.size(); ++l) {
    const std::string& name = topology.levels[l].name;
    const std::string at = Child(where, name);
    const auto given = levels.find(name);
    if (given == levels.end()) {
      return Error(it->second.At(), where, "missing the node's " + name + " (every level: " +
                                               JoinKeys(names) + ")");
    }
    if (given->second.value.IsScalar()) {  // one domain for every node of the entry
      Result<std::string> domain = Scalar(given->second, at, "a domain's name");
      if (!domain.ok()) return domain.status();
      if (Trim(*domain).empty()) return Error(given->second.At(), at, "the name is empty");
      for (auto& node : out) node[l] = *domain;
      continue;
    }
    Fields run;
    if (Status s = ReadFields(given->second.value, at, kRunKeys, run); !s.ok()) return s;
    int64_t size = 0;
    std::string prefix = name + "-";
    for (Status s : {ReadInt(run, "size", at, 1, 100000, size), ReadString(run, "prefix", at, prefix)}) {
      if (!s.ok()) return s;
    }
    if (size == 0) return Error(given->second.At(), at, "missing required key 'size'");
    int64_t& named = domains_named_[prefix];
    const int64_t first = named;
    for (int64_t i = 0; i < count; ++i) out[static_cast<size_t>(i)][l] = prefix + std::to_string(first + i / size);
    named = first + (count + size - 1) / size;
  }
  return Status::Ok();
}

}  // namespace squeeze::cluster_yaml
