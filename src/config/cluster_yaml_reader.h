// The YAML reader of cluster files (config-internal): shared by cluster_yaml.cc (pools and
// nodes) and cluster_yaml_regions.cc (Slurm pools, links between regions). yaml-cpp stays
// inside the config layer; every error names the source, the line, the path and the value.
#ifndef SQUEEZE_CONFIG_CLUSTER_YAML_READER_H_
#define SQUEEZE_CONFIG_CLUSTER_YAML_READER_H_

#include <yaml-cpp/yaml.h>

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/job_limits.h"
#include "core/cluster_spec.h"
#include "core/status.h"

namespace squeeze::cluster_yaml {

using Keys = std::span<const std::string_view>;

// A map entry: the key is kept for the line of a value that is absent (`region:`).
struct Field {
  YAML::Node key;
  YAML::Node value;
  const YAML::Node& At() const { return value.IsNull() ? key : value; }
};
using Fields = std::map<std::string, Field, std::less<>>;

inline std::string JoinKeys(Keys keys) {
  std::string out;
  for (std::string_view k : keys) out += (out.empty() ? "" : ", ") + std::string(k);
  return out;
}

inline std::string PoolKindList() {
  std::string out;
  for (int i = 0; i <= static_cast<int>(PoolKind::kOnDemand); ++i) {
    out += (out.empty() ? "" : ", ") + std::string(PoolKindName(static_cast<PoolKind>(i)));
  }
  return out;
}

inline std::string Child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

inline std::string Element(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

inline std::string TypeName(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "a single value";
    default: return "nothing";
  }
}

// Collects the entries of the map `node` into `out`; rejects other node types, unknown keys and
// repeats. `error(at, path, message)` makes the error (it knows the source's name).
template <typename MakeError>
Status ReadMapFields(const YAML::Node& node, const std::string& path, Keys known, Fields& out,
                     const MakeError& error) {
  if (!node.IsMap()) {
    return error(node, path,
                 "expected a map with keys " + JoinKeys(known) + ", got " + TypeName(node));
  }
  for (const auto& entry : node) {
    const YAML::Node& key = entry.first;
    if (!key.IsScalar()) return error(key, path, "a key must be a plain name");
    const std::string& name = key.Scalar();
    bool is_known = false;
    for (std::string_view k : known) is_known = is_known || k == name;
    if (!is_known) {
      return error(key, path, "unknown key '" + name + "'; known keys: " + JoinKeys(known));
    }
    if (!out.emplace(name, Field{key, entry.second}).second) {
      return error(key, path, "key '" + name + "' is given twice");
    }
  }
  return Status::Ok();
}

// Reads one cluster document. Holds only the source name used in messages.
class ClusterYamlReader {
 public:
  explicit ClusterYamlReader(const std::string& source) : source_(source) {}

  Result<ClusterSpec> Read(const YAML::Node& root);
  // cluster_yaml_limits.cc: the root's `limits` (who may ask for what on squeeze serve); `out`
  // keeps squeeze's defaults for what it does not set.
  Status ReadLimits(const Fields& root, JobLimits& out) const;

 private:
  Status Error(const YAML::Node& at, const std::string& path, const std::string& message) const;
  Status ReadFields(const YAML::Node& node, const std::string& path, Keys known, Fields& out) const;
  Result<std::string> Scalar(const Field& field, const std::string& path,
                             std::string_view expected) const;
  Status ReadString(const Fields& f, std::string_view key, const std::string& path,
                    std::string& out) const;
  Status ReadInt(const Fields& f, std::string_view key, const std::string& path, int64_t min,
                 int64_t max, int64_t& out) const;
  Status ReadDouble(const Fields& f, std::string_view key, const std::string& path,
                    double& out) const;
  Status ReadKind(const Fields& f, const std::string& path, PoolKind& out) const;
  Status ReadQuotas(const Fields& f, const std::string& path,
                    std::map<std::string, int>& out) const;
  Status ReadLabels(const Fields& f, const std::string& path,
                    std::map<std::string, std::string>& out) const;
  Status ReadPool(const YAML::Node& node, const std::string& path, ClusterSpec& spec);
  // cluster_yaml_regions.cc: a pool's `slurm` map and the root's `region_links`.
  Status ReadSlurm(const Fields& f, const std::string& path, SlurmPoolSpec& out) const;
  Status ReadRegionLinks(const Fields& f, ClusterSpec& spec) const;
  // cluster_yaml_capacity.cc: a pool's `spot` and `colocation` maps, the root's
  // `region_price_factors`.
  Status ReadSpot(const Fields& f, const std::string& path, SpotSpec& out) const;
  Status ReadColocation(const Fields& f, const std::string& path, ColocationSpec& out) const;
  Status ReadPriceFactors(const Fields& f, ClusterSpec& spec) const;
  Status ReadGpuModels(const Fields& f, ClusterSpec& spec) const;
  Status ReadDuration(const Fields& f, std::string_view key, const std::string& path,
                      Time& out) const;
  // The settings among `f` (read with the keys of its level).
  Status ReadLimitSettings(const Fields& f, const std::string& path, JobLimitSettings& out) const;
  Status ReadLimitEntries(const Fields& f, std::string_view key, bool user_entries,
                          std::map<std::string, JobLimitSettings>& out) const;
  Status ReadNodeEntry(const YAML::Node& node, const std::string& path, const std::string& pool,
                       ClusterSpec& spec);
  // cluster_yaml_topology.cc: the root's `topology` (its levels), read before the pools, and a
  // node entry's `topology`: the domains of each of its `count` nodes.
  Status ReadTopology(const Fields& root, ClusterSpec& spec) const;
  Status ReadNodeTopology(const Fields& f, const std::string& path, const TopologySpec& topology,
                          int64_t count, std::vector<std::vector<std::string>>& out);
  Status AddNode(NodeSpec node, const YAML::Node& at, const std::string& path, ClusterSpec& spec);

  const std::string& source_;
  std::map<std::string, std::string> pool_paths_;  // pool name -> where it is defined
  std::map<std::string, std::string> node_paths_;  // node name -> where it is defined
  std::map<std::string, int64_t> domains_named_;   // a topology prefix -> domains named so far
};

}  // namespace squeeze::cluster_yaml

#endif  // SQUEEZE_CONFIG_CLUSTER_YAML_READER_H_
