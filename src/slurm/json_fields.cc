#include "slurm/json_fields.h"

#include <limits>
#include <string>

namespace squeeze::slurm_json {
namespace {

// The field, or nullptr when missing or null; "PATH.key is missing" when required.
Result<const Json*> Find(const Json& object, const std::string& path, const char* key,
                         bool required) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (required) return Status::Error(path + "." + key + " is missing");
    return static_cast<const Json*>(nullptr);
  }
  return &*it;
}

Status WrongType(const std::string& path, const char* key, const Json& value, const char* want) {
  return Status::Error(path + "." + key + ": " + Show(value) + " is not " + want);
}

std::string ErrorText(const Json& error) {
  if (error.is_string()) return error.get<std::string>();
  if (!error.is_object()) return error.dump();
  std::string text;
  for (const char* key : {"error", "description"}) {
    const auto it = error.find(key);
    if (it != error.end() && it->is_string() && !it->get<std::string>().empty()) {
      if (!text.empty()) text += ", ";
      text += it->get<std::string>();
    }
  }
  const auto code = error.find("errno");
  if (code != error.end() && code->is_number()) {
    text += (text.empty() ? "errno " : " (errno ") + code->dump() + (text.empty() ? "" : ")");
  }
  return text.empty() ? error.dump() : text;
}

}  // namespace

std::string Show(const Json& value) {
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return "'" + text + "'";
}

Result<Json> ParseDocument(std::string_view text, const char* list) {
  Json doc;
  try {
    doc = Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    return Status::Error(std::string("not JSON: ") + e.what());
  }
  if (!doc.is_object()) return Status::Error("the document " + Show(doc) + " is not an object");
  const auto errors = doc.find("errors");
  if (errors != doc.end() && !errors->is_null()) {
    if (!errors->is_array()) {
      return Status::Error("errors: " + Show(*errors) + " is not an array");
    }
    if (!errors->empty()) {
      std::string text;
      for (const Json& error : *errors) text += (text.empty() ? "" : "; ") + ErrorText(error);
      return Status::Error("Slurm reported errors: " + text);
    }
  }
  const auto it = doc.find(list);
  if (it == doc.end() || it->is_null()) return Status::Error(std::string(list) + " is missing");
  if (!it->is_array()) {
    return Status::Error(std::string(list) + ": " + Show(*it) + " is not an array");
  }
  return doc;
}

Status ReadString(const Json& object, const std::string& path, const char* key, bool required,
                  std::string* out) {
  Result<const Json*> field = Find(object, path, key, required);
  if (!field.ok()) return field.status();
  if (*field == nullptr) return Status::Ok();
  if (!(*field)->is_string()) return WrongType(path, key, **field, "a string");
  *out = (*field)->get<std::string>();
  return Status::Ok();
}

Status ReadInt(const Json& object, const std::string& path, const char* key, bool required,
               int64_t* out) {
  Result<const Json*> field = Find(object, path, key, required);
  if (!field.ok()) return field.status();
  if (*field == nullptr) return Status::Ok();
  const Json& v = **field;
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return WrongType(path, key, v, "a 64-bit integer");
    }
    *out = static_cast<int64_t>(v.get<uint64_t>());
    return Status::Ok();
  }
  if (!v.is_number_integer()) return WrongType(path, key, v, "an integer");
  *out = v.get<int64_t>();
  return Status::Ok();
}

Status ReadInt(const Json& object, const std::string& path, const char* key, bool required,
               int* out) {
  int64_t wide = *out;
  Status s = ReadInt(object, path, key, required, &wide);
  if (!s.ok()) return s;
  if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max()) {
    return WrongType(path, key, object.at(key), "a 32-bit integer");
  }
  *out = static_cast<int>(wide);
  return Status::Ok();
}

Status ReadBool(const Json& object, const std::string& path, const char* key, bool required,
                bool* out) {
  Result<const Json*> field = Find(object, path, key, required);
  if (!field.ok()) return field.status();
  if (*field == nullptr) return Status::Ok();
  if (!(*field)->is_boolean()) return WrongType(path, key, **field, "true or false");
  *out = (*field)->get<bool>();
  return Status::Ok();
}

Status ReadStrings(const Json& object, const std::string& path, const char* key, bool required,
                   std::vector<std::string>* out) {
  Result<const Json*> field = Find(object, path, key, required);
  if (!field.ok()) return field.status();
  if (*field == nullptr) return Status::Ok();
  if (!(*field)->is_array()) return WrongType(path, key, **field, "an array of strings");
  std::vector<std::string> values;
  for (size_t i = 0; i < (*field)->size(); ++i) {
    const Json& item = (**field)[i];
    const std::string at = std::string(key) + "[" + std::to_string(i) + "]";
    if (!item.is_string()) return WrongType(path, at.c_str(), item, "a string");
    values.push_back(item.get<std::string>());
  }
  *out = std::move(values);
  return Status::Ok();
}

}  // namespace squeeze::slurm_json
