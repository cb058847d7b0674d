// The two adapters into JobNode. yaml-cpp and nlohmann::json stay inside this file; their
// exceptions are caught here.
#include "config/job_tree.h"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

namespace squeeze {
namespace {

std::string YamlWhere(const std::string& source, const YAML::Mark& mark) {
  if (mark.is_null()) return source;
  return source + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

// Checks what every scalar and key must satisfy, whichever the format.
Status CheckText(const std::string& text, const std::string& where) {
  if (text.size() > kMaxJobStringBytes) {
    return Status::Error(where + ": a value is " + std::to_string(text.size()) +
                         " bytes long; the limit is " + std::to_string(kMaxJobStringBytes));
  }
  if (text.find('\0') != std::string::npos) {
    return Status::Error(where + ": a value holds a NUL character");
  }
  return Status::Ok();
}

Status CheckSize(std::string_view text, const std::string& source) {
  if (text.size() <= kMaxJobTextBytes) return Status::Ok();
  return Status::Error(source + ": the job is " + std::to_string(text.size()) +
                       " bytes long; the limit is " + std::to_string(kMaxJobTextBytes));
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
    const std::vector<YAML::Node> docs = YAML::LoadAll(std::string(text));
    if (docs.size() > 1) {
      return Status::Error(YamlWhere(source, docs[1].Mark()) +
                           ": the file holds more than one YAML document; give one job per file");
    }
    if (docs.empty() || docs[0].IsNull()) return Status::Error(source + ": the job file is empty");
    return FromYaml(docs[0], source, 0);
  } catch (const YAML::Exception& e) {
    return Status::Error(YamlWhere(source, e.mark) + ": malformed YAML: " + e.msg);
  }
}

Result<JobNode> ReadJsonJobTree(std::string_view text, const std::string& source) {
  if (Status s = CheckSize(text, source); !s.ok()) return s;
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(text);
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
  return FromJson(value, source, 0);
}

}  // namespace squeeze
