// The two adapters into JobNode. yaml-cpp and nlohmann::json stay inside this file; their
// exceptions are caught here.
#include "config/job_tree.h"

#include <yaml-cpp/yaml.h>

#include "config/yaml_documents.h"
#include "core/safe_text.h"

#include <nlohmann/json.hpp>

namespace squeeze {
namespace {

std::string YamlWhere(const std::string& source, const YAML::Mark& mark) {
  if (mark.is_null()) return source;
  return source + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

// Checks what every scalar and key must satisfy, whichever the format (its characters are
// checked with the fields it belongs to: job_text.h).
Status CheckText(const std::string& text, const std::string& where) {
  if (text.size() > kMaxJobStringBytes) {
    return Status::Error(where + ": a value is " + std::to_string(text.size()) +
                         " bytes long; the limit is " + std::to_string(kMaxJobStringBytes));
  }
  return Status::Ok();
}

Status CheckSize(std::string_view text, const std::string& source) {
  if (text.size() > kMaxJobTextBytes) {
    return Status::Error(source + ": the job is " + std::to_string(text.size()) +
                         " bytes long; the limit is " + std::to_string(kMaxJobTextBytes));
  }
  if (const std::optional<size_t> bad = InvalidUtf8At(text)) {
    static const char kHex[] = "0123456789ABCDEF";
    const auto b = static_cast<unsigned char>(text[*bad]);
    return Status::Error(source + ": byte " + std::to_string(*bad) + " (0x" + kHex[b >> 4] +
                         kHex[b & 15] + ") is not UTF-8: a job is UTF-8 text");
  }
  return Status::Ok();
}

Result<JobNode> FromYaml(const YAML::Node& node, const std::string& source, int depth) {
  JobNode out;
  out.where = YamlWhere(source, node.Mark());
  if (depth > kMaxJobDepth) return Status::Error(out.where + ": nested too deeply");
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      out.kind = JobNode::Kind::kScalar;
      out.text = node.Scalar();
      if (Status s = CheckText(out.text, out.where); !s.ok()) return s;
      return out;
    case YAML::NodeType::Sequence:
      out.kind = JobNode::Kind::kList;
      for (const YAML::Node& item : node) {
        Result<JobNode> child = FromYaml(item, source, depth + 1);
        if (!child.ok()) return child.status();
        out.items.push_back(std::move(*child));
      }
      return out;
    case YAML::NodeType::Map:
      out.kind = JobNode::Kind::kMap;
      for (const auto& entry : node) {
        const std::string key_where = YamlWhere(source, entry.first.Mark());
        if (!entry.first.IsScalar())
          return Status::Error(key_where + ": a key must be a plain name");
        const std::string& key = entry.first.Scalar();
        if (Status s = CheckText(key, key_where); !s.ok()) return s;
        for (const JobEntry& seen : out.entries) {
          if (seen.key == key) return Status::Error(key_where + ": '" + key + "' is given twice");
        }
        Result<JobNode> child = FromYaml(entry.second, source, depth + 1);
        if (!child.ok()) return child.status();
        // An empty value (`workdir:`) has no mark of its own; point at its key.
        if (child->kind == JobNode::Kind::kNull) child->where = key_where;
        out.entries.push_back(JobEntry{key, key_where, std::move(*child)});
      }
      return out;
    default:
      return out;
  }
}

Result<JobNode> FromJson(const nlohmann::json& value, const std::string& source, int depth) {
  JobNode out;
  if (depth > kMaxJobDepth) return Status::Error(source + ": nested too deeply");
  if (value.is_object()) {
    out.kind = JobNode::Kind::kMap;
    for (const auto& [key, child_value] : value.items()) {
      if (Status s = CheckText(key, source); !s.ok()) return s;
      Result<JobNode> child = FromJson(child_value, source, depth + 1);
      if (!child.ok()) return child.status();
      out.entries.push_back(JobEntry{key, "", std::move(*child)});
    }
  } else if (value.is_array()) {
    out.kind = JobNode::Kind::kList;
    for (const auto& item : value) {
      Result<JobNode> child = FromJson(item, source, depth + 1);
      if (!child.ok()) return child.status();
      out.items.push_back(std::move(*child));
    }
  } else if (!value.is_null()) {
    out.kind = JobNode::Kind::kScalar;
    out.text = value.is_string() ? value.get<std::string>() : value.dump();
    if (Status s = CheckText(out.text, source); !s.ok()) return s;
  }
  return out;
}

}  // namespace

std::string_view JobNodeKindName(JobNode::Kind kind) {
  switch (kind) {
    case JobNode::Kind::kMap:
      return "a map";
    case JobNode::Kind::kList:
      return "a list";
    case JobNode::Kind::kScalar:
      return "a single value";
    case JobNode::Kind::kNull:
      return "nothing";
  }
  return "nothing";
}

Result<JobNode> ReadYamlJobTree(std::string_view text, const std::string& source) {
  if (Status s = CheckSize(text, source); !s.ok()) return s;
  try {
    const YamlDocuments docs = LoadYamlDocuments(std::string(text));
    if (docs.count > 1) {
      return Status::Error(YamlWhere(source, docs.second) +
                           ": the file holds more than one YAML document; give one job per file");
    }
    if (docs.count == 0 || docs.first.IsNull()) {
      return Status::Error(source + ": the job file is empty");
    }
    return FromYaml(docs.first, source, 0);
  } catch (const YAML::Exception& e) {
    return Status::Error(YamlWhere(source, e.mark) + ": malformed YAML: " + e.msg);
  }
}

Result<JobNode> ReadJsonJobTree(std::string_view text, const std::string& source) {
  if (Status s = CheckSize(text, source); !s.ok()) return s;
  nlohmann::json value;
  // A key given twice in one object would be taken silently (the last one wins): refuse it.
  std::vector<std::vector<std::string>> keys;
  std::string twice;
  auto seen = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end && !keys.empty()) keys.pop_back();
    if (event == E::key && !keys.empty() && twice.empty()) {
      const std::string key = parsed.get<std::string>();
      for (const std::string& k : keys.back()) {
        if (k == key) twice = key;
      }
      keys.back().push_back(key);
    }
    return true;
  };
  try {
    value = nlohmann::json::parse(text, seen);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 9: syntax error ..."
    const size_t colon = what.find(": ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    return Status::Error(source + ": malformed JSON at byte " + std::to_string(e.byte) + ": " +
                         what);
  } catch (const nlohmann::json::exception& e) {
    return Status::Error(source + ": malformed JSON: " + e.what());
  }
  if (!twice.empty()) return Status::Error(source + ": '" + twice + "' is given twice");
  return FromJson(value, source, 0);
}

}  // namespace squeeze
