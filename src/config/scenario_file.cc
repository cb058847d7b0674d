#include "config/scenario_file.h"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include "config/yaml_documents.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include "config/cluster_yaml_reader.h"
#include "config/file_io.h"
#include "config/text_util.h"
#include "core/duration.h"
#include "core/policy.h"

namespace squeeze {
namespace {

using cluster_yaml::Child;
using cluster_yaml::Element;
using cluster_yaml::Field;
using cluster_yaml::Fields;
using cluster_yaml::JoinKeys;
using cluster_yaml::Keys;
using cluster_yaml::TypeName;

constexpr std::string_view kRootKeys[] = {"name",   "trace",          "policy", "seed",
                                          "assume", "inference_load", "reclaim_trace", "set",    "variants"};
constexpr std::string_view kVariantKeys[] = {"name",   "cluster",        "policy", "seed",
                                             "assume", "inference_load", "reclaim_trace", "set"};
constexpr std::string_view kAssumeKeys[] = {"preemptible", "checkpointable", "checkpoint_cost",
                                            "checkpoint_stall", "data_gb", "urgent_share"};

std::optional<bool> ParseBool(std::string_view text) {
  std::string s(Trim(text));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "true" || s == "yes" || s == "1") return true;
  if (s == "false" || s == "no" || s == "0") return false;
  return std::nullopt;
}

// Reads one scenario document. Holds the source name and the folder paths are relative to.
class ScenarioReader {
 public:
  ScenarioReader(std::string source, std::string base_dir)
      : source_(std::move(source)), base_dir_(std::move(base_dir)) {}

  Result<Scenario> Read(const YAML::Node& root);

 private:
  Status Error(const YAML::Node& at, const std::string& path, const std::string& message) const {
    std::string text = source_;
    if (!at.Mark().is_null()) text.append(":").append(std::to_string(at.Mark().line + 1));
    text.append(": ");
    if (!path.empty()) text.append(path).append(": ");
    return Status::Error(text.append(message));
  }
  Status ReadFields(const YAML::Node& node, const std::string& path, Keys known,
                    Fields& out) const;
  Result<std::string> Text(const Field& f, const std::string& path) const;
  Status ReadFile(const Fields& f, std::string_view key, const std::string& path,
                  std::string& out) const;
  Status ReadSettings(const Fields& f, const std::string& path, ScenarioSettings& out) const;
  Status ReadPolicies(const Field& f, const std::string& path, ScenarioSettings& out) const;
  Status ReadSet(const Field& f, const std::string& path, ScenarioSettings& out) const;
  Status ReadAssume(const Field& f, const std::string& path, ScenarioAssume& out) const;
  Status ReadVariants(const Field& f, Scenario& out) const;

  std::string source_;
  std::string base_dir_;
};

Status ScenarioReader::ReadFields(const YAML::Node& node, const std::string& path, Keys known,
                                  Fields& out) const {
  return ReadMapFields(node, path, known, out,
                       [this](const YAML::Node& at, const std::string& where,
                              const std::string& message) { return Error(at, where, message); });
}

// A non-empty single value.
Result<std::string> ScenarioReader::Text(const Field& f, const std::string& path) const {
  if (!f.value.IsScalar()) {
    return Error(f.At(), path, "expected a single value, got " + TypeName(f.value));
  }
  if (Trim(f.value.Scalar()).empty()) return Error(f.At(), path, "value must not be empty");
  return f.value.Scalar();
}

// A path relative to the scenario file, which must be a readable file.
Status ScenarioReader::ReadFile(const Fields& f, std::string_view key, const std::string& path,
                                std::string& out) const {
  const auto it = f.find(key);
  if (it == f.end()) return Status::Ok();
  const std::string where = Child(path, key);
  Result<std::string> text = Text(it->second, where);
  if (!text.ok()) return text.status();
  if ((key == "inference_load" || key == "reclaim_trace") && *text == "none") {
    out.clear();
    return Status::Ok();
  }
  namespace fs = std::filesystem;
  const fs::path given(*text);
  const std::string resolved =
      given.is_absolute() ? *text : (fs::path(base_dir_) / given).lexically_normal().string();
  std::error_code ec;
  const bool is_dir = fs::is_directory(resolved, ec);
  if (is_dir || access(resolved.c_str(), R_OK) != 0) {
    return Error(it->second.At(), where,
                 "cannot read '" + *text + "' (resolved to '" + resolved +
                     "'): " + (is_dir ? "Is a directory" : std::strerror(errno)));
  }
  out = resolved;
  return Status::Ok();
}

Status ScenarioReader::ReadPolicies(const Field& f, const std::string& path,
                                    ScenarioSettings& out) const {
  std::vector<std::string> names;
  if (f.value.IsSequence()) {
    for (size_t i = 0; i < f.value.size(); ++i) {
      Result<std::string> name = Text(Field{f.key, f.value[i]}, Element(path, i));
      if (!name.ok()) return name.status();
      names.push_back(std::string(Trim(*name)));
    }
  } else {
    Result<std::string> list = Text(f, path);
    if (!list.ok()) return list.status();
    for (const std::string& name : SplitList(*list, ',')) names.push_back(std::string(Trim(name)));
  }
  if (names.empty()) return Error(f.At(), path, "names no policy");
  for (const std::string& name : names) {
    Result<Policy> p = NamedPolicy(name);
    if (!p.ok()) return Error(f.At(), path, p.status().message());
  }
  out.policies = std::move(names);
  return Status::Ok();
}

// KEY: VALUE entries, checked against the policy the key names (squeeze when it names none).
Status ScenarioReader::ReadSet(const Field& f, const std::string& path,
                               ScenarioSettings& out) const {
  if (!f.value.IsMap()) {
    return Error(f.At(), path,
                 "expected a map of KEY: VALUE (KEY or POLICY.KEY), got " + TypeName(f.value));
  }
  for (const auto& entry : f.value) {
    if (!entry.first.IsScalar()) return Error(entry.first, path, "a key must be a plain name");
    const std::string key = entry.first.Scalar();
    const std::string where = Child(path, key);
    Result<std::string> value = Text(Field{entry.first, entry.second}, where);
    if (!value.ok()) return value.status();
    const size_t dot = key.find('.');
    Result<Policy> policy = NamedPolicy(dot == std::string::npos ? "squeeze" : key.substr(0, dot));
    if (!policy.ok()) return Error(entry.first, where, policy.status().message());
    Status st = SetPolicyOption(*policy, dot == std::string::npos ? key : key.substr(dot + 1),
                                *value);
    if (!st.ok()) return Error(entry.second, where, st.message());
    for (const auto& [k, v] : out.set) {
      if (k == key) return Error(entry.first, path, "key '" + key + "' is given twice");
    }
    out.set.emplace_back(key, *value);
  }
  return Status::Ok();
}

Status ScenarioReader::ReadAssume(const Field& field, const std::string& path,
                                  ScenarioAssume& out) const {
  Fields f;
  Status st = ReadFields(field.value, path, kAssumeKeys, f);
  if (!st.ok()) return st;
  for (std::string_view key : {"preemptible", "checkpointable"}) {
    const auto it = f.find(key);
    if (it == f.end()) continue;
    Result<std::string> text = Text(it->second, Child(path, key));
    if (!text.ok()) return text.status();
    const std::optional<bool> b = ParseBool(*text);
    if (!b) {
      return Error(it->second.At(), Child(path, key),
                   "value '" + *text + "' is not a boolean (true/false, yes/no, 1/0)");
    }
    (key == "preemptible" ? out.preemptible : out.checkpointable) = *b;
  }
  for (std::string_view key : {"checkpoint_cost", "checkpoint_stall"}) {
    const auto it = f.find(key);
    if (it == f.end()) continue;
    Result<std::string> text = Text(it->second, Child(path, key));
    if (!text.ok()) return text.status();
    Result<Time> d = ParseDuration(Trim(*text));
    if (!d.ok()) {
      return Error(it->second.At(), Child(path, key),
                   "value '" + *text + "' is not a duration (such as 60, 90s, 5m)");
    }
    (key == "checkpoint_cost" ? out.checkpoint_cost : out.checkpoint_stall) = *d;
  }
  if (const auto it = f.find("data_gb"); it != f.end()) {
    Result<std::string> text = Text(it->second, Child(path, "data_gb"));
    if (!text.ok()) return text.status();
    const std::optional<double> gb = ParseDouble(Trim(*text));
    if (!gb || *gb < 0) {
      return Error(it->second.At(), Child(path, "data_gb"),
                   "value '" + *text + "' is not a number >= 0");
    }
    out.data_gb = *gb;
  }
  if (const auto it = f.find("urgent_share"); it != f.end()) {
    Result<std::string> text = Text(it->second, Child(path, "urgent_share"));
    if (!text.ok()) return text.status();
    const std::optional<double> share = ParseDouble(Trim(*text));
    if (!share || *share < 0 || *share > 1) {
      return Error(it->second.At(), Child(path, "urgent_share"),
                   "value '" + *text + "' is not a share between 0 and 1");
    }
    out.urgent_share = *share;
  }
  return Status::Ok();
}

Status ScenarioReader::ReadSettings(const Fields& f, const std::string& path,
                                    ScenarioSettings& out) const {
  if (const auto it = f.find("policy"); it != f.end()) {
    Status st = ReadPolicies(it->second, Child(path, "policy"), out);
    if (!st.ok()) return st;
  }
  if (const auto it = f.find("seed"); it != f.end()) {
    Result<std::string> text = Text(it->second, Child(path, "seed"));
    if (!text.ok()) return text.status();
    const std::optional<int64_t> seed = ParseInt64(Trim(*text));
    if (!seed || *seed < 0) {
      return Error(it->second.At(), Child(path, "seed"),
                   "value '" + *text + "' is not an integer >= 0");
    }
    out.seed = static_cast<uint64_t>(*seed);
  }
  if (f.count("inference_load") > 0) {
    std::string load;
    Status st = ReadFile(f, "inference_load", path, load);
    if (!st.ok()) return st;
    out.inference_load = load;
  }
  if (f.count("reclaim_trace") > 0) {
    std::string trace;
    Status st = ReadFile(f, "reclaim_trace", path, trace);
    if (!st.ok()) return st;
    out.reclaim_trace = trace;
  }
  if (const auto it = f.find("set"); it != f.end()) {
    Status st = ReadSet(it->second, Child(path, "set"), out);
    if (!st.ok()) return st;
  }
  if (const auto it = f.find("assume"); it != f.end()) {
    return ReadAssume(it->second, Child(path, "assume"), out.assume);
  }
  return Status::Ok();
}

Status ScenarioReader::ReadVariants(const Field& field, Scenario& out) const {
  if (!field.value.IsSequence() || field.value.size() == 0) {
    return Error(field.At(), "variants",
                 "expected a non-empty list of variants ({name: ..., cluster: ...}), got " +
                     (field.value.IsSequence() ? std::string("an empty list")
                                               : TypeName(field.value)));
  }
  std::map<std::string, int> lines;
  for (size_t i = 0; i < field.value.size(); ++i) {
    const YAML::Node& node = field.value[i];
    const std::string path = Element("variants", i);
    Fields f;
    Status st = ReadFields(node, path, kVariantKeys, f);
    if (!st.ok()) return st;
    ScenarioVariant variant;
    for (std::string_view key : {"name", "cluster"}) {
      if (f.count(key) == 0) {
        return Error(node, path, "missing key '" + std::string(key) + "'");
      }
    }
    Result<std::string> name = Text(f.at("name"), Child(path, "name"));
    if (!name.ok()) return name.status();
    variant.name = std::string(Trim(*name));
    const int line = f.at("name").key.Mark().line + 1;
    if (const auto [it, added] = lines.emplace(variant.name, line); !added) {
      return Error(f.at("name").At(), Child(path, "name"),
                   "duplicate variant name '" + variant.name + "' (first on line " +
                       std::to_string(it->second) + ")");
    }
    st = ReadFile(f, "cluster", path, variant.cluster);
    if (st.ok()) st = ReadSettings(f, path, variant.settings);
    if (!st.ok()) return st;
    out.variants.push_back(std::move(variant));
  }
  return Status::Ok();
}

Result<Scenario> ScenarioReader::Read(const YAML::Node& root) {
  Fields f;
  Status st = ReadFields(root, "", kRootKeys, f);
  if (!st.ok()) return st;
  Scenario out;
  out.source = source_;
  out.name = std::filesystem::path(source_).stem().string();
  for (std::string_view key : {"trace", "variants"}) {
    if (f.count(key) == 0) return Error(root, "", "missing key '" + std::string(key) + "'");
  }
  if (const auto it = f.find("name"); it != f.end()) {
    Result<std::string> name = Text(it->second, "name");
    if (!name.ok()) return name.status();
    out.name = std::string(Trim(*name));
  }
  st = ReadFile(f, "trace", "", out.trace);
  if (st.ok()) st = ReadSettings(f, "", out.defaults);
  if (st.ok()) st = ReadVariants(f.at("variants"), out);
  if (!st.ok()) return st;
  return out;
}

}  // namespace

ScenarioSettings ResolveVariant(const Scenario& scenario, const ScenarioVariant& variant) {
  ScenarioSettings out = scenario.defaults;
  const ScenarioSettings& own = variant.settings;
  if (own.policies) out.policies = own.policies;
  if (own.seed) out.seed = own.seed;
  if (own.inference_load) out.inference_load = own.inference_load;
  if (own.reclaim_trace) out.reclaim_trace = own.reclaim_trace;
  for (const auto& [key, value] : own.set) {
    bool replaced = false;
    for (auto& [k, v] : out.set) {
      if (k == key) {
        v = value;
        replaced = true;
      }
    }
    if (!replaced) out.set.emplace_back(key, value);
  }
  if (own.assume.preemptible) out.assume.preemptible = own.assume.preemptible;
  if (own.assume.checkpointable) out.assume.checkpointable = own.assume.checkpointable;
  if (own.assume.checkpoint_cost) out.assume.checkpoint_cost = own.assume.checkpoint_cost;
  if (own.assume.checkpoint_stall) out.assume.checkpoint_stall = own.assume.checkpoint_stall;
  if (own.assume.data_gb) out.assume.data_gb = own.assume.data_gb;
  if (own.assume.urgent_share) out.assume.urgent_share = own.assume.urgent_share;
  return out;
}

Result<Scenario> ParseScenarioYaml(std::string_view text, const std::string& source,
                                   const std::string& base_dir) {
  return ReadOneYamlDocument<Scenario>(
      text, source, "a map with keys 'trace' and 'variants'",
      [&](const YAML::Node& root) { return ScenarioReader(source, base_dir).Read(root); });
}

Result<Scenario> LoadScenarioFile(const std::string& path) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseScenarioYaml(*text, path, std::filesystem::path(path).parent_path().string());
}

}  // namespace squeeze
