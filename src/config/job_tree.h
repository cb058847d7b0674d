// The neutral form of a job document (config-internal): YAML and JSON are both turned into this
// small tree so that one field table (job_file.cc) reads and checks either. Each node keeps
// where it came from for error messages. Plain data; the readers are thread-safe.
#ifndef SQUEEZE_CONFIG_JOB_TREE_H_
#define SQUEEZE_CONFIG_JOB_TREE_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace squeeze {

struct JobEntry;

struct JobNode {
  enum class Kind { kNull, kScalar, kList, kMap };
  Kind kind = Kind::kNull;
  std::string text;               // kScalar: the value as written
  std::vector<JobNode> items;     // kList
  std::vector<JobEntry> entries;  // kMap, in document order
  std::string where;  // "job.yaml:3:7" (YAML) or "" (JSON: messages name the field instead)
};

struct JobEntry {
  std::string key;
  std::string where;  // of the key, like JobNode::where
  JobNode value;
};

// What the readers accept: whole documents, strings, nesting.
// A string holds a whole batch script (`bash -c SCRIPT`), a job its environment (--export).
constexpr size_t kMaxJobTextBytes = 256 * 1024;
constexpr size_t kMaxJobStringBytes = 64 * 1024;
constexpr int kMaxJobDepth = 8;

// "a map", "a list", "a single value", "nothing".
std::string_view JobNodeKindName(JobNode::Kind kind);

// One YAML document. Errors: "SOURCE:LINE:COL: MESSAGE".
Result<JobNode> ReadYamlJobTree(std::string_view text, const std::string& source);
// One JSON value. Errors: "SOURCE: malformed JSON at byte N: ...". Scalars keep their text:
// strings as they are, numbers as written by the shortest form, true/false as words.
Result<JobNode> ReadJsonJobTree(std::string_view text, const std::string& source);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_JOB_TREE_H_
