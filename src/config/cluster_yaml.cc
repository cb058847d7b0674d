// The YAML form of a cluster file. yaml-cpp stays inside this file: its exceptions are caught
// here and every error becomes a Status that names the source, the line, the path and the value.
#include <yaml-cpp/yaml.h>

#include "config/yaml_documents.h"

#include <climits>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/cluster_file.h"
#include "config/cluster_yaml_reader.h"
#include "config/text_util.h"

namespace squeeze {
namespace cluster_yaml {

constexpr std::string_view kRootKeys[] = {"pools", "region_links", "region_price_factors",
                                          "gpu_models", "limits", "topology"};
constexpr std::string_view kPoolKeys[] = {"name",    "kind",         "region",
                                          "price_per_gpu_hour", "monthly_cost", "backend",
                                          "slurm",   "spot",         "colocation",
                                          "team_quota_gpus", "nodes"};
constexpr std::string_view kNodeKeys[] = {"name",      "count",      "name_prefix",
                                          "gpus",      "gpu_model",  "gpu_memory_mib",
                                          "cpu_milli", "memory_mib", "labels",
                                          "topology"};
constexpr int64_t kMaxNodesPerEntry = 100000;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

Status ClusterYamlReader::Error(const YAML::Node& at, const std::string& path,
                                const std::string& message) const {
  std::string text = source_;
  const YAML::Mark mark = at.Mark();
  if (!mark.is_null()) text.append(":").append(std::to_string(mark.line + 1));
  text.append(": ");
  if (!path.empty()) text.append(path).append(": ");
  return Status::Error(text.append(message));
}

// Collects the entries of the map `node`; rejects other node types, unknown keys and repeats.
Status ClusterYamlReader::ReadFields(const YAML::Node& node, const std::string& path, Keys known,
                                     Fields& out) const {
  return ReadMapFields(node, path, known, out,
                       [this](const YAML::Node& at, const std::string& where,
                              const std::string& message) { return Error(at, where, message); });
}

Result<std::string> ClusterYamlReader::Scalar(const Field& field, const std::string& path,
                                              std::string_view expected) const {
  if (!field.value.IsScalar()) {
    return Error(field.At(), path,
                 "expected " + std::string(expected) + ", got " + TypeName(field.value));
  }
  return field.value.Scalar();
}

// A non-empty string; `out` keeps its default when the key is absent.
Status ClusterYamlReader::ReadString(const Fields& f, std::string_view key, const std::string& path,
                                     std::string& out) const {
  const auto it = f.find(key);
  if (it == f.end()) return Status::Ok();
  const std::string where = Child(path, key);
  Result<std::string> value = Scalar(it->second, where, "a string");
  if (!value.ok()) return value.status();
  if (Trim(*value).empty()) return Error(it->second.At(), where, "value must not be empty");
  out = std::move(*value);
  return Status::Ok();
}

Status ClusterYamlReader::ReadInt(const Fields& f, std::string_view key, const std::string& path,
                                  int64_t min, int64_t max, int64_t& out) const {
  const auto it = f.find(key);
  if (it == f.end()) return Status::Ok();
  const std::string where = Child(path, key);
  const Result<std::string> text = Scalar(it->second, where, "an integer");
  if (!text.ok()) return text.status();
  const std::optional<int64_t> value = ParseInt64(Trim(*text));
  if (!value) return Error(it->second.At(), where, "value '" + *text + "' is not an integer");
  if (*value < min) {
    return Error(it->second.At(), where,
                 "value '" + *text + "' must be at least " + std::to_string(min));
  }
  if (*value > max) {
    return Error(it->second.At(), where,
                 "value '" + *text + "' must be at most " + std::to_string(max));
  }
  out = *value;
  return Status::Ok();
}

// A finite number >= 0.
Status ClusterYamlReader::ReadDouble(const Fields& f, std::string_view key, const std::string& path,
                                     double& out) const {
  const auto it = f.find(key);
  if (it == f.end()) return Status::Ok();
  const std::string where = Child(path, key);
  const Result<std::string> text = Scalar(it->second, where, "a number");
  if (!text.ok()) return text.status();
  const std::optional<double> value = ParseDouble(Trim(*text));
  if (!value) return Error(it->second.At(), where, "value '" + *text + "' is not a number");
  if (*value < 0) return Error(it->second.At(), where, "value '" + *text + "' must be at least 0");
  out = *value;
  return Status::Ok();
}

Status ClusterYamlReader::ReadKind(const Fields& f, const std::string& path, PoolKind& out) const {
  std::string text;
  if (Status s = ReadString(f, "kind", path, text); !s.ok() || text.empty()) return s;
  const std::optional<PoolKind> kind = ParsePoolKind(text);
  if (!kind) {
    return Error(f.find("kind")->second.At(), Child(path, "kind"),
                 "value '" + text + "' is not a pool kind; expected one of " + PoolKindList());
  }
  out = *kind;
  return Status::Ok();
}

Status ClusterYamlReader::ReadQuotas(const Fields& f, const std::string& path,
                                     std::map<std::string, int>& out) const {
  const auto it = f.find("team_quota_gpus");
  if (it == f.end()) return Status::Ok();
  const std::string where = Child(path, "team_quota_gpus");
  if (!it->second.value.IsMap()) {
    return Error(it->second.At(), where,
                 "expected a map of team: GPUs, got " + TypeName(it->second.value));
  }
  Fields teams;
  for (const auto& entry : it->second.value) {
    if (!entry.first.IsScalar() || Trim(entry.first.Scalar()).empty()) {
      return Error(entry.first, where, "a team name must be a non-empty plain name");
    }
    if (!teams.emplace(entry.first.Scalar(), Field{entry.first, entry.second}).second) {
      return Error(entry.first, where, "team '" + entry.first.Scalar() + "' is given twice");
    }
  }
  for (const auto& [team, node] : teams) {
    int64_t gpus = 0;
    if (Status s = ReadInt(teams, team, where, 0, INT_MAX, gpus); !s.ok()) return s;
    out[team] = static_cast<int>(gpus);
  }
  return Status::Ok();
}

Status ClusterYamlReader::ReadLabels(const Fields& f, const std::string& path,
                                     std::map<std::string, std::string>& out) const {
  const auto it = f.find("labels");
  if (it == f.end()) return Status::Ok();
  const std::string where = Child(path, "labels");
  if (!it->second.value.IsMap()) {
    return Error(it->second.At(), where,
                 "expected a map of name: value, got " + TypeName(it->second.value));
  }
  for (const auto& entry : it->second.value) {
    if (!entry.first.IsScalar() || Trim(entry.first.Scalar()).empty()) {
      return Error(entry.first, where, "a label name must be a non-empty plain name");
    }
    const std::string& name = entry.first.Scalar();
    Result<std::string> value =
        Scalar(Field{entry.first, entry.second}, Child(where, name), "a string");
    if (!value.ok()) return value.status();
    if (!out.emplace(name, std::move(*value)).second) {
      return Error(entry.first, where, "label '" + name + "' is given twice");
    }
  }
  return Status::Ok();
}

Status ClusterYamlReader::AddNode(NodeSpec node, const YAML::Node& at, const std::string& path,
                                  ClusterSpec& spec) {
  const auto [it, inserted] = node_paths_.emplace(node.name, path);
  if (!inserted) {
    return Error(at, path, "node '" + node.name + "' is already defined at " + it->second);
  }
  spec.nodes.push_back(std::move(node));
  return Status::Ok();
}

// One entry of a pool's `nodes`: a single named node or a group of `count` nodes.
Status ClusterYamlReader::ReadNodeEntry(const YAML::Node& node, const std::string& path,
                                        const std::string& pool, ClusterSpec& spec) {
  Fields f;
  if (Status s = ReadFields(node, path, kNodeKeys, f); !s.ok()) return s;
  NodeSpec tmpl;
  tmpl.pool = pool;
  int64_t gpus = tmpl.gpus;
  int64_t count = 1;
  std::string prefix = pool + "-";
  // Every field is read; the first error, in this order, is the one reported.
  for (Status s :
       {ReadString(f, "name", path, tmpl.name),
        ReadInt(f, "count", path, 1, kMaxNodesPerEntry, count),
        ReadString(f, "name_prefix", path, prefix), ReadInt(f, "gpus", path, 0, INT_MAX, gpus),
        ReadString(f, "gpu_model", path, tmpl.gpu_model),
        ReadInt(f, "gpu_memory_mib", path, 0, kInt64Max, tmpl.gpu_memory_mib),
        ReadInt(f, "cpu_milli", path, 0, kInt64Max, tmpl.cpu_milli),
        ReadInt(f, "memory_mib", path, 0, kInt64Max, tmpl.memory_mib),
        ReadLabels(f, path, tmpl.labels)}) {
    if (!s.ok()) return s;
  }
  tmpl.gpus = static_cast<int>(gpus);
  const bool named = f.count("name") > 0;
  if (named && f.count("name_prefix")) {
    return Error(node, path,
                 "give either 'name' (one node) or 'count' and 'name_prefix' "
                 "(a group of nodes), not both");
  }
  if (named && count != 1) {
    return Error(f.find("count")->second.At(), Child(path, "count"),
                 "value '" + std::to_string(count) +
                     "' must be 1 with 'name'; use 'name_prefix' for a group of nodes");
  }
  if (!named && !f.count("count")) {
    return Error(node, path,
                 "a node entry needs 'name' (one node) or 'count' (a group of "
                 "nodes named <name_prefix>0, <name_prefix>1, ...)");
  }
  std::vector<std::vector<std::string>> domains;
  if (Status s = ReadNodeTopology(f, path, spec.topology, count, domains); !s.ok()) return s;
  if (named) {
    if (!domains.empty()) tmpl.domains = std::move(domains.front());
    return AddNode(std::move(tmpl), f.find("name")->second.At(), Child(path, "name"), spec);
  }
  for (int64_t i = 0; i < count; ++i) {
    NodeSpec member = tmpl;
    member.name = prefix + std::to_string(i);
    if (!domains.empty()) member.domains = std::move(domains[static_cast<size_t>(i)]);
    if (Status s = AddNode(std::move(member), node, path, spec); !s.ok()) return s;
  }
  return Status::Ok();
}

Status ClusterYamlReader::ReadPool(const YAML::Node& node, const std::string& path,
                                   ClusterSpec& spec) {
  Fields f;
  if (Status s = ReadFields(node, path, kPoolKeys, f); !s.ok()) return s;
  if (!f.count("name")) return Error(node, path, "missing required key 'name'");
  PoolSpec pool;
  // Every field is read; the first error, in this order, is the one reported.
  for (Status s :
       {ReadString(f, "name", path, pool.name), ReadKind(f, path, pool.kind),
        ReadString(f, "region", path, pool.region),
        ReadDouble(f, "price_per_gpu_hour", path, pool.price_per_gpu_hour),
        ReadDouble(f, "monthly_cost", path, pool.monthly_cost),
        ReadString(f, "backend", path, pool.backend), ReadSlurm(f, path, pool.slurm),
        ReadSpot(f, path, pool.spot), ReadColocation(f, path, pool.colocation),
        ReadQuotas(f, path, pool.team_quota_gpus)}) {
    if (!s.ok()) return s;
  }
  for (auto [key, kind] : {std::pair<std::string_view, PoolKind>{"spot", PoolKind::kSpot},
                           {"colocation", PoolKind::kColocated}}) {
    const auto it = f.find(key);
    if (it != f.end() && pool.kind != kind) {
      return Error(it->second.key, Child(path, key),
                   "pool '" + pool.name + "': a " + std::string(key) + " map needs kind: " +
                       std::string(PoolKindName(kind)));
    }
  }
  const auto [defined, inserted] = pool_paths_.emplace(pool.name, path);
  if (!inserted) {
    return Error(f.find("name")->second.At(), Child(path, "name"),
                 "pool '" + pool.name + "' is already defined at " + defined->second);
  }
  spec.pools.push_back(pool);
  const auto nodes = f.find("nodes");
  if (nodes == f.end()) return Status::Ok();
  const std::string where = Child(path, "nodes");
  if (!nodes->second.value.IsSequence()) {
    return Error(nodes->second.value, where,
                 "expected a list of nodes, got " + TypeName(nodes->second.value));
  }
  for (size_t i = 0; i < nodes->second.value.size(); ++i) {
    const Status s = ReadNodeEntry(nodes->second.value[i], Element(where, i), pool.name, spec);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Result<ClusterSpec> ClusterYamlReader::Read(const YAML::Node& root) {
  Fields f;
  if (Status s = ReadFields(root, "", kRootKeys, f); !s.ok()) return s;
  const auto pools = f.find("pools");
  if (pools == f.end()) return Error(root, "", "missing required key 'pools'");
  if (!pools->second.value.IsSequence()) {
    return Error(pools->second.value, "pools",
                 "expected a list of pools, got " + TypeName(pools->second.value));
  }
  if (pools->second.value.size() == 0)
    return Error(pools->second.value, "pools", "the list is empty");
  ClusterSpec spec;
  if (Status s = ReadTopology(f, spec); !s.ok()) return s;
  for (size_t i = 0; i < pools->second.value.size(); ++i) {
    const Status s = ReadPool(pools->second.value[i], Element("pools", i), spec);
    if (!s.ok()) return s;
  }
  if (Status s = ReadRegionLinks(f, spec); !s.ok()) return s;
  if (Status s = ReadPriceFactors(f, spec); !s.ok()) return s;
  if (Status s = ReadGpuModels(f, spec); !s.ok()) return s;
  JobLimits limits;  // squeeze serve's (LoadJobLimits); checked here for every reader
  if (Status s = ReadLimits(f, limits); !s.ok()) return s;
  if (Status s = spec.Validate(); !s.ok()) return s.WithContext(source_);
  return spec;
}

}  // namespace cluster_yaml

Result<ClusterSpec> ParseClusterYaml(std::string_view text, const std::string& source) {
  return ReadOneYamlDocument<ClusterSpec>(
      text, source, "a map with key 'pools'", [&source](const YAML::Node& root) {
        return cluster_yaml::ClusterYamlReader(source).Read(root);
      });
}

}  // namespace squeeze
