// Reading Slurm's openapi JSON (v0.0.38) for the sinfo and squeue parsers: the document, its
// errors[] and typed fields, with errors that name the path and the value. Internal to
// src/slurm; pure functions, thread-safe.
#ifndef SQUEEZE_SLURM_JSON_FIELDS_H_
#define SQUEEZE_SLURM_JSON_FIELDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace squeeze::slurm_json {

using Json = nlohmann::json;

// The document, an object whose errors[] (when present) is empty; otherwise an error with the
// parser's reason or errors[]' text. `list` is the array the caller reads ("nodes", "jobs"):
// it must be present and an array.
Result<Json> ParseDocument(std::string_view text, const char* list);

// The value as a message shows it: strings in quotes as they are, others as JSON; long ones cut.
std::string Show(const Json& value);

// Field `key` of `object` (whose path is `path`, e.g. "jobs[3]"). A missing or null field is an
// error when `required`, else leaves *out as it was; a wrong type is always an error.
Status ReadString(const Json& object, const std::string& path, const char* key, bool required,
                  std::string* out);
Status ReadInt(const Json& object, const std::string& path, const char* key, bool required,
               int64_t* out);
Status ReadInt(const Json& object, const std::string& path, const char* key, bool required,
               int* out);
Status ReadBool(const Json& object, const std::string& path, const char* key, bool required,
                bool* out);
Status ReadStrings(const Json& object, const std::string& path, const char* key, bool required,
                   std::vector<std::string>* out);

}  // namespace squeeze::slurm_json

#endif  // SQUEEZE_SLURM_JSON_FIELDS_H_
