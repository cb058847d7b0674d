// The field table of a job, shared by the YAML and the JSON form (both arrive as a JobNode tree).
#include "config/job_file.h"

#include <cctype>
#include <filesystem>
#include <system_error>
#include <vector>

#include "config/file_io.h"
#include "config/job_checkpoint_store.h"
#include "config/job_gpu_speeds.h"
#include "config/job_text.h"
#include "config/job_tree.h"
#include "config/job_values.h"
#include "config/text_util.h"
#include "core/duration.h"
#include "core/job_array.h"
#include "core/output_path.h"
#include "core/safe_text.h"

namespace squeeze {
namespace {

constexpr size_t kMaxNameChars = 128;
constexpr size_t kMaxCommandArgs = 1024;
constexpr size_t kMaxEnvEntries = 1024;  // a login shell's environment, for --export=ALL
constexpr size_t kMaxGpuModels = 64;
constexpr size_t kMaxRegions = 64;
constexpr double kMaxDataGb = 1e12;
constexpr int64_t kMaxGpus = 1024;
constexpr int64_t kMaxRetries = 100;
constexpr int64_t kMaxTasks = 100000;
constexpr std::string_view kReservedEnvPrefix = "SQUEEZE_";
constexpr std::string_view kJsonSource = "JSON request";

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

bool IsEnvName(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    if (!IsNameChar(c) || c == '.' || c == '-') return false;
  }
  return true;
}

// The job's name when the file gives none: the program's base name, made a valid name.
std::string DefaultName(const std::string& program) {
  std::string name = std::filesystem::path(program).filename().string();
  for (char& c : name) {
    if (!IsNameChar(c)) c = '-';
  }
  if (name.size() > kMaxNameChars) name.resize(kMaxNameChars);
  if (name.empty() || !IsNameChar(name[0]) || name[0] == '.' || name[0] == '-' || name[0] == '_') {
    name = "job-" + name;
    if (name.size() > kMaxNameChars) name.resize(kMaxNameChars);
  }
  return name;
}

// Stores a value read into its field, or passes the error on.
template <typename T, typename Field>
Status Assign(const Result<T>& value, Field& field) {
  if (!value.ok()) return value.status();
  field = static_cast<Field>(*value);
  return Status::Ok();
}

// What a list of names holds, for its messages: "a GPU model or a list of them", "65 models".
struct NameListKind {
  std::string_view noun;        // "GPU model"
  std::string_view short_noun;  // "model"
  size_t limit;
};
constexpr NameListKind kGpuModelList{"GPU model", "model", kMaxGpuModels};
constexpr NameListKind kRegionList{"region", "region", kMaxRegions};

class JobReader;
using FieldFn = Status (JobReader::*)(const JobNode&, std::string_view, JobRequest&) const;
struct FieldDef {
  std::string_view name;
  FieldFn read;
};

// Reads one job document. Holds the source label used in messages and the submission time.
class JobReader {
 public:
  JobReader(std::string source, Time now) : source_(std::move(source)), now_(now) {}

  Result<JobRequest> Read(const JobNode& root) const;

  Status ReadName(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadTeam(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadCommand(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadWorkdir(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadEnv(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadGpus(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadGpuMilli(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadStep(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadScaling(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadGpuModels(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadGpuMemory(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadGpuSpeeds(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadTopology(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadPool(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadRegions(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadDataGb(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadUrgency(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadPreemptible(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadCheckpointable(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadFaultTolerant(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadCheckpointInterval(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadCheckpointCost(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadCheckpointStall(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadEstimate(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadTimeLimit(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadDeadline(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadCpus(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadMemory(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadMaxRetries(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadTasks(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadHold(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadBegin(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadArray(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadDependency(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadOutput(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadCheckpointStoreField(const JobNode& n, std::string_view f, JobRequest& out) const;
  Status ReadError(const JobNode& n, std::string_view f, JobRequest& out) const;
  Result<Time> DateTimeOrAhead(const JobNode& n, std::string_view f) const;

 private:
  Result<std::string> OutputPattern(const JobNode& n, std::string_view field) const;
  Status Error(const JobNode& at, std::string_view field, const std::string& message) const {
    return Error(at.where, field, message);
  }
  Status Error(const std::string& where, std::string_view field, const std::string& message) const;
  Result<std::string> Scalar(const JobNode& n, std::string_view field,
                             std::string_view expected) const;
  Result<std::string> PlainName(const JobNode& n, std::string_view field) const;
  Result<int64_t> Int(const JobNode& n, std::string_view field, int64_t min, int64_t max) const;
  Result<bool> Bool(const JobNode& n, std::string_view field) const;
  Result<std::vector<std::string>> NameList(const JobNode& n, std::string_view field,
                                            const NameListKind& kind) const;
  Result<Time> PositiveDuration(const JobNode& n, std::string_view field) const;
  Result<Time> NonNegativeDuration(const JobNode& n, std::string_view field) const;
  Result<int64_t> Parsed(const JobNode& n, std::string_view field, std::string_view expected,
                         Result<int64_t> (*parse)(std::string_view)) const;
  Status CheckTogether(const JobNode& root, const JobRequest& out) const;
  Status CheckCheckpoint(const JobNode& root, const JobRequest& out) const;
  // step and scaling need gpus as a range of whole GPUs.
  Status CheckElastic(const JobNode& root, const JobRequest& out) const;

  std::string source_;
  Time now_;
};

constexpr FieldDef kFields[] = {
    {"name", &JobReader::ReadName},
    {"command", &JobReader::ReadCommand},
    {"workdir", &JobReader::ReadWorkdir},
    {"env", &JobReader::ReadEnv},
    {"gpus", &JobReader::ReadGpus},
    {"gpu_milli", &JobReader::ReadGpuMilli},
    {"step", &JobReader::ReadStep},
    {"scaling", &JobReader::ReadScaling},
    {"gpu_models", &JobReader::ReadGpuModels},
    {"gpu_memory", &JobReader::ReadGpuMemory},
    {"gpu_speeds", &JobReader::ReadGpuSpeeds},
    {"topology", &JobReader::ReadTopology},
    {"pool", &JobReader::ReadPool},
    {"regions", &JobReader::ReadRegions},
    {"data_gb", &JobReader::ReadDataGb},
    {"urgency", &JobReader::ReadUrgency},
    {"preemptible", &JobReader::ReadPreemptible},
    {"checkpointable", &JobReader::ReadCheckpointable},
    {"checkpoint_interval", &JobReader::ReadCheckpointInterval},
    {"checkpoint_cost", &JobReader::ReadCheckpointCost},
    {"checkpoint_stall", &JobReader::ReadCheckpointStall},
    {"checkpoint_store", &JobReader::ReadCheckpointStoreField},
    {"fault_tolerant", &JobReader::ReadFaultTolerant},
    {"estimate", &JobReader::ReadEstimate},
    {"time_limit", &JobReader::ReadTimeLimit},
    {"deadline", &JobReader::ReadDeadline},
    {"team", &JobReader::ReadTeam},
    {"cpus", &JobReader::ReadCpus},
    {"memory", &JobReader::ReadMemory},
    {"max_retries", &JobReader::ReadMaxRetries},
    {"tasks", &JobReader::ReadTasks},
    {"hold", &JobReader::ReadHold},
    {"begin", &JobReader::ReadBegin},
    {"array", &JobReader::ReadArray},
    {"dependency", &JobReader::ReadDependency},
    {"output", &JobReader::ReadOutput},
    {"error", &JobReader::ReadError},
};

std::vector<std::string_view> FieldNames() {
  std::vector<std::string_view> names;
  for (const FieldDef& f : kFields) names.push_back(f.name);
  return names;
}

const JobNode* Find(const JobNode& root, std::string_view key) {
  for (const JobEntry& e : root.entries) {
    if (e.key == key && e.value.kind != JobNode::Kind::kNull) return &e.value;
  }
  return nullptr;
}

Status JobReader::Error(const std::string& where, std::string_view field,
                        const std::string& message) const {
  std::string text = where.empty() ? source_ : where;
  text.append(": ");
  if (!field.empty()) text.append(field).append(": ");
  return Status::Error(text.append(message));
}

Result<std::string> JobReader::Scalar(const JobNode& n, std::string_view field,
                                      std::string_view expected) const {
  if (n.kind != JobNode::Kind::kScalar) {
    return Error(
        n, field,
        "expected " + std::string(expected) + ", got " + std::string(JobNodeKindName(n.kind)));
  }
  return n.text;
}

// A name or team: 1..128 of [A-Za-z0-9._-], starting with a letter or digit.
Result<std::string> JobReader::PlainName(const JobNode& n, std::string_view field) const {
  Result<std::string> text = Scalar(n, field, "a name");
  if (!text.ok()) return text;
  const std::string& s = *text;
  bool ok = !s.empty() && s.size() <= kMaxNameChars && IsNameChar(s[0]) && s[0] != '.' &&
            s[0] != '-' && s[0] != '_';
  for (char c : s) ok = ok && IsNameChar(c);
  if (!ok) {
    return Error(n, field,
                 "value '" + s + "' is not a valid name (1 to 128 letters, digits, '.', '_' or " +
                     "'-', starting with a letter or digit)");
  }
  return text;
}

Result<int64_t> JobReader::Int(const JobNode& n, std::string_view field, int64_t min,
                               int64_t max) const {
  const Result<std::string> text = Scalar(n, field, "an integer");
  if (!text.ok()) return text.status();
  const std::optional<int64_t> value = ParseInt64(Trim(*text));
  if (!value) return Error(n, field, "value '" + *text + "' is not an integer");
  if (*value < min || *value > max) {
    return Error(
        n, field,
        "value '" + *text + "' is outside " + std::to_string(min) + ".." + std::to_string(max));
  }
  return *value;
}

Result<bool> JobReader::Bool(const JobNode& n, std::string_view field) const {
  const Result<std::string> text = Scalar(n, field, "true or false");
  if (!text.ok()) return text.status();
  if (*text == "true") return true;
  if (*text == "false") return false;
  return Error(n, field, "value '" + *text + "' is not true or false");
}

// One name or a list of them (gpu_models, regions); each trimmed and non-empty.
Result<std::vector<std::string>> JobReader::NameList(const JobNode& n, std::string_view field,
                                                     const NameListKind& kind) const {
  const std::string noun(kind.noun), short_noun(kind.short_noun);
  if (n.kind == JobNode::Kind::kMap) {
    return Error(n, field, "expected a " + noun + " or a list of them, got a map");
  }
  std::vector<const JobNode*> items;
  if (n.kind == JobNode::Kind::kScalar) items.push_back(&n);
  for (const JobNode& item : n.items) items.push_back(&item);
  if (items.size() > kind.limit) {
    return Error(n, field,
                 std::to_string(items.size()) + " " + short_noun + "s; the limit is " +
                     std::to_string(kind.limit));
  }
  std::vector<std::string> names;
  for (const JobNode* item : items) {
    const Result<std::string> name = Scalar(*item, field, "a " + noun + " name");
    if (!name.ok()) return name.status();
    if (Trim(*name).empty()) return Error(*item, field, "a " + short_noun + " name is empty");
    names.push_back(std::string(Trim(*name)));
  }
  return names;
}

Result<Time> JobReader::PositiveDuration(const JobNode& n, std::string_view field) const {
  const Result<std::string> text = Scalar(n, field, "a duration");
  if (!text.ok()) return text.status();
  const Result<Time> value = ParseDuration(Trim(*text));
  if (!value.ok()) return Error(n, field, value.status().message());
  if (*value <= 0) return Error(n, field, "value '" + *text + "' must be more than 0s");
  return *value;
}

// 0s or more; "-5s" is named as negative rather than as not a duration.
Result<Time> JobReader::NonNegativeDuration(const JobNode& n, std::string_view field) const {
  const Result<std::string> text = Scalar(n, field, "a duration");
  if (!text.ok()) return text.status();
  const std::string_view s = Trim(*text);
  const Result<Time> value = ParseDuration(s);
  if (value.ok()) return *value;
  if (s.starts_with('-') && ParseDuration(s.substr(1)).ok()) {
    return Error(n, field, "value '" + *text + "' is negative; give 0s or more");
  }
  return Error(n, field, value.status().message());
}

// A value in a form of its own (cpus, memory), read by `parse`; its message names the value.
Result<int64_t> JobReader::Parsed(const JobNode& n, std::string_view field,
                                  std::string_view expected,
                                  Result<int64_t> (*parse)(std::string_view)) const {
  const Result<std::string> text = Scalar(n, field, expected);
  if (!text.ok()) return text.status();
  const Result<int64_t> value = parse(*text);
  if (!value.ok()) return Error(n, field, value.status().message());
  return value;
}

Status JobReader::ReadName(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(PlainName(n, f), out.spec.name);
}

Status JobReader::ReadTeam(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(PlainName(n, f), out.spec.team);
}

Status JobReader::ReadCommand(const JobNode& n, std::string_view f, JobRequest& out) const {
  if (n.kind == JobNode::Kind::kScalar) {
    return Error(n, f,
                 "expected a list of arguments, got the single value '" + n.text +
                     "'; write it as a list, like [python, train.py], or run a shell line with " +
                     "[bash, -c, \"...\"]");
  }
  if (n.kind != JobNode::Kind::kList) {
    return Error(n, f, "expected a list of arguments, got " + std::string(JobNodeKindName(n.kind)));
  }
  if (n.items.empty()) return Error(n, f, "the list is empty; give the program and its arguments");
  if (n.items.size() > kMaxCommandArgs) {
    return Error(n, f,
                 std::to_string(n.items.size()) + " arguments; the limit is " +
                     std::to_string(kMaxCommandArgs));
  }
  for (size_t i = 0; i < n.items.size(); ++i) {
    const std::string where = std::string(f) + "[" + std::to_string(i) + "]";
    Result<std::string> arg = Scalar(n.items[i], where, "a string");
    if (!arg.ok()) return arg.status();
    out.command.push_back(std::move(*arg));
  }
  if (out.command[0].empty()) return Error(n.items[0], "command[0]", "the program name is empty");
  return Status::Ok();
}

Status JobReader::ReadWorkdir(const JobNode& n, std::string_view f, JobRequest& out) const {
  Result<std::string> dir = Scalar(n, f, "a path");
  if (!dir.ok()) return dir.status();
  if (dir->empty()) return Error(n, f, "the path is empty");
  if ((*dir)[0] == '~') {
    return Error(n, f, "'" + *dir + "': '~' is not expanded; give the full path");
  }
  out.workdir = std::move(*dir);
  return Status::Ok();
}

Status JobReader::ReadEnv(const JobNode& n, std::string_view f, JobRequest& out) const {
  if (n.kind != JobNode::Kind::kMap) {
    return Error(n, f,
                 "expected a map of NAME: value, got " + std::string(JobNodeKindName(n.kind)));
  }
  if (n.entries.size() > kMaxEnvEntries) {
    return Error(n, f,
                 std::to_string(n.entries.size()) + " variables; the limit is " +
                     std::to_string(kMaxEnvEntries));
  }
  for (const auto& [name, name_where, value] : n.entries) {
    const std::string where = std::string(f) + "." + name;
    if (!IsEnvName(name)) {
      return Error(name_where, where,
                   "'" + name + "' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)");
    }
    if (name.starts_with(kReservedEnvPrefix)) {
      return Error(
          name_where, where,
          "names starting with " + std::string(kReservedEnvPrefix) + " are reserved for squeeze");
    }
    if (value.kind == JobNode::Kind::kNull) {
      return Error(value, where, "no value given; write \"\" for an empty value");
    }
    Result<std::string> text = Scalar(value, where, "a string");
    if (!text.ok()) return text.status();
    out.env[name] = std::move(*text);
  }
  return Status::Ok();
}

// A count, or a range MIN-MAX for an elastic job (core/elastic.h), which waits for MIN.
Status JobReader::ReadGpus(const JobNode& n, std::string_view f, JobRequest& out) const {
  if (n.kind != JobNode::Kind::kScalar || n.text.find('-', 1) == std::string::npos) {
    return Assign(Int(n, f, 0, kMaxGpus), out.spec.gpus);
  }
  Result<ElasticSpec> range = ParseGpuRange(Trim(n.text), "value");
  if (!range.ok()) return Error(n, f, range.status().message());
  if (range->max > kMaxGpus) return Error(n, f, "value '" + n.text + "' is more than " + std::to_string(kMaxGpus) + " GPUs");
  out.spec.elastic.min = range->min;
  out.spec.elastic.max = range->max;
  out.spec.gpus = range->min;
  return Status::Ok();
}

Status JobReader::ReadStep(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(Int(n, f, 1, kMaxGpus), out.spec.elastic.step);
}

Status JobReader::ReadScaling(const JobNode& n, std::string_view f, JobRequest& out) const {
  const Result<std::string> text = Scalar(n, f, "linear, amdahl:P or WIDTH:THROUGHPUT pairs");
  if (!text.ok()) return text.status();
  Result<Scaling> scaling = ParseScaling(Trim(*text));
  if (!scaling.ok()) return Error(n, f, scaling.status().message());
  out.spec.elastic.scaling = *scaling;
  return Status::Ok();
}

Status JobReader::ReadGpuMilli(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(Int(n, f, 1, kMilliPerGpu), out.spec.gpu_milli);
}

Status JobReader::ReadGpuModels(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(NameList(n, f, kGpuModelList), out.spec.gpu_models);
}

// The least memory of each card, as `memory` is written (40GiB).
Status JobReader::ReadGpuMemory(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(Parsed(n, f, "a memory size", ParseMemoryMib), out.spec.min_gpu_memory_mib);
}

Status JobReader::ReadGpuSpeeds(const JobNode& n, std::string_view, JobRequest& out) const {
  return Assign(ReadJobGpuSpeeds(n, source_), out.spec.gpu_speeds);
}

// Where a job of several nodes may go: MODE or MODE:LEVEL (required:rack).
Status JobReader::ReadTopology(const JobNode& n, std::string_view f, JobRequest& out) const {
  const Result<std::string> text = Scalar(n, f, "a topology request (required:rack)");
  if (!text.ok()) return text.status();
  Result<TopologyRequest> r = ParseTopologyRequest(Trim(*text));
  return r.ok() ? Assign(std::move(r), out.spec.topology) : Error(n, f, r.status().message());
}

// A home pool, named as in the cluster file (any non-empty string).
Status JobReader::ReadPool(const JobNode& n, std::string_view f, JobRequest& out) const {
  const Result<std::string> text = Scalar(n, f, "a pool name");
  if (!text.ok()) return text.status();
  if (Trim(*text).empty()) return Error(n, f, "the pool name is empty");
  out.spec.pool = std::string(Trim(*text));
  return Status::Ok();
}

Status JobReader::ReadRegions(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(NameList(n, f, kRegionList), out.spec.regions);
}

// GB of data, a finite number from 0 to 1e12 (250, 1.5).
Status JobReader::ReadDataGb(const JobNode& n, std::string_view f, JobRequest& out) const {
  const Result<std::string> text = Scalar(n, f, "a number of GB");
  if (!text.ok()) return text.status();
  const std::optional<double> gb = ParseDouble(Trim(*text));
  if (!gb) return Error(n, f, "value '" + *text + "' is not a number of GB (like 250 or 1.5)");
  if (*gb < 0 || *gb > kMaxDataGb) return Error(n, f, "value '" + *text + "' is outside 0..1e12");
  out.spec.data_gb = *gb + 0.0;  // -0 becomes 0
  return Status::Ok();
}

Status JobReader::ReadUrgency(const JobNode& n, std::string_view f, JobRequest& out) const {
  const Result<std::string> text = Scalar(n, f, "an urgency class");
  if (!text.ok()) return text.status();
  const std::optional<Urgency> u = ParseUrgency(*text);
  if (!u) {
    return Error(n, f, "value '" + *text + "' is not one of critical, high, normal, low");
  }
  out.spec.urgency = *u;
  return Status::Ok();
}

Status JobReader::ReadPreemptible(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(Bool(n, f), out.spec.preemptible);
}

Status JobReader::ReadCheckpointable(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(Bool(n, f), out.spec.checkpointable);
}

Status JobReader::ReadFaultTolerant(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(Bool(n, f), out.spec.fault_tolerant);
}

Status JobReader::ReadCheckpointInterval(const JobNode& n, std::string_view f,
                                         JobRequest& out) const {
  return Assign(PositiveDuration(n, f), out.spec.checkpoint_interval);
}

Status JobReader::ReadCheckpointCost(const JobNode& n, std::string_view f,
                                     JobRequest& out) const {
  return Assign(NonNegativeDuration(n, f), out.spec.checkpoint_cost);
}

Status JobReader::ReadCheckpointStall(const JobNode& n, std::string_view f,
                                      JobRequest& out) const {
  return Assign(NonNegativeDuration(n, f), out.spec.checkpoint_stall);
}

Status JobReader::ReadEstimate(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(PositiveDuration(n, f), out.spec.estimate);
}

// Slurm's --time forms (a plain number is minutes) and squeeze's durations; 0 or UNLIMITED is
// no limit.
Status JobReader::ReadTimeLimit(const JobNode& n, std::string_view f, JobRequest& out) const {
  const Result<Time> limit =
      Parsed(n, f, "a time limit (1:00:00, 2-0, 90 for minutes, 2h)", ParseSlurmTime);
  if (!limit.ok()) return limit.status();
  if (*limit > 0) out.spec.time_limit = *limit;
  return Status::Ok();
}

// An RFC 3339 date-time, or "+DURATION" from now.
Result<Time> JobReader::DateTimeOrAhead(const JobNode& n, std::string_view f) const {
  const Result<std::string> text = Scalar(n, f, "a date-time or +duration");
  if (!text.ok()) return text.status();
  const std::string_view s = Trim(*text);
  Result<Time> at = Status::Error("unset");
  if (s.starts_with('+')) {
    const Result<Time> ahead = ParseDuration(s.substr(1));
    at = ahead.ok() ? Result<Time>(now_ + *ahead) : ahead;
  } else {
    at = ParseDateTime(s);
  }
  if (!at.ok()) return Error(n, f, at.status().message());
  return at;
}

Status JobReader::ReadBegin(const JobNode& n, std::string_view f, JobRequest& out) const {
  const Result<Time> at = DateTimeOrAhead(n, f);
  if (!at.ok()) return at.status();
  if (*at > now_) out.begin = *at;
  return Status::Ok();
}

// In the future.
Status JobReader::ReadDeadline(const JobNode& n, std::string_view f, JobRequest& out) const {
  const Result<Time> at = DateTimeOrAhead(n, f);
  if (!at.ok()) return at.status();
  const std::string text(Trim(n.text));
  if (*at <= now_) {
    return Error(n, f,
                 "'" + text + "' is not in the future (it is " + FormatDateTime(*at) +
                     "; now is " + FormatDateTime(now_) + ")");
  }
  out.spec.deadline = *at;
  return Status::Ok();
}

// sbatch's --array: "0-99:2%8", "1,3,5-7" (core/job_array.h).
Status JobReader::ReadArray(const JobNode& n, std::string_view f, JobRequest& out) const {
  const Result<std::string> text = Scalar(n, f, "task indices (as 0-99:2%8)");
  if (!text.ok()) return text.status();
  const std::string trimmed(Trim(*text));
  auto spec = ParseArraySpec(trimmed);
  if (!spec.ok()) return Error(n, f, spec.status().message());
  out.array = trimmed;
  out.array_size = static_cast<int>(spec->tasks.size());
  out.spec.array_limit = spec->limit;
  return Status::Ok();
}

// sbatch's --dependency: "afterok:12:13,afterany:14_2", '?' for any one (core/job_array.h);
// the jobs it names are looked up when the job is submitted.
Status JobReader::ReadDependency(const JobNode& n, std::string_view f, JobRequest& out) const {
  const Result<std::string> text = Scalar(n, f, "a dependency (as afterok:12)");
  if (!text.ok()) return text.status();
  const std::string trimmed(Trim(*text));
  if (trimmed.empty()) return Status::Ok();
  auto parsed = ParseDependency(trimmed);
  if (!parsed.ok()) return Error(n, f, parsed.status().message());
  out.dependency = trimmed;
  return Status::Ok();
}

Status JobReader::ReadHold(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(Bool(n, f), out.hold);
}

Status JobReader::ReadCpus(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(Parsed(n, f, "a number of CPU cores", ParseCpuMilli), out.spec.cpu_milli);
}

Status JobReader::ReadMemory(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(Parsed(n, f, "a memory size", ParseMemoryMib), out.spec.memory_mib);
}

Status JobReader::ReadMaxRetries(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(Int(n, f, 0, kMaxRetries), out.max_retries);
}

Status JobReader::ReadTasks(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(Int(n, f, 1, kMaxTasks), out.tasks);
}

// A file for the run's stdout or stderr (core/output_path.h): its % letters are filled in at
// each start, and a relative path is taken from the workdir.
Result<std::string> JobReader::OutputPattern(const JobNode& n, std::string_view f) const {
  Result<std::string> text = Scalar(n, f, "a file path");
  if (!text.ok()) return text;
  if (Status s = CheckOutputPattern(*text); !s.ok()) {
    return Error(n, f, QuotedValue(*text) + ": " + s.message());
  }
  return text;
}

Status JobReader::ReadOutput(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(OutputPattern(n, f), out.output_path);
}

Status JobReader::ReadError(const JobNode& n, std::string_view f, JobRequest& out) const {
  return Assign(OutputPattern(n, f), out.error_path);
}

Status JobReader::ReadCheckpointStoreField(const JobNode& n, std::string_view,
                                           JobRequest& out) const {
  return Assign(ReadCheckpointStore(n, source_), out.checkpoint_store);
}

// The rules that tie fields together; checked once every field has been read.
Status JobReader::CheckTogether(const JobNode& root, const JobRequest& out) const {
  if (out.command.empty()) {
    return Error(root, "command",
                 "required: the program and its arguments, like [python, train.py]");
  }
  if (out.spec.gpu_milli < kMilliPerGpu && out.spec.gpus != 1) {
    const JobNode* at = Find(root, "gpu_milli");
    return Error(at ? *at : root, "gpu_milli",
                 "a fraction of a GPU (" + std::to_string(out.spec.gpu_milli) +
                     ") needs gpus: 1, not " + std::to_string(out.spec.gpus));
  }
  if (Status st = CheckElastic(root, out); !st.ok()) return st;
  return CheckCheckpoint(root, out);
}

Status JobReader::CheckElastic(const JobNode& root, const JobRequest& out) const {
  const ElasticSpec& e = out.spec.elastic;
  for (std::string_view field : {"step", "scaling"}) {
    const JobNode* at = Find(root, field);
    if (at != nullptr && !e.enabled()) return Error(*at, field, "needs gpus as a range, like gpus: 2-8");
  }
  if (!e.enabled()) return Status::Ok();
  const JobNode* gpus = Find(root, "gpus");
  if (out.spec.gpu_milli != kMilliPerGpu) {
    return Error(gpus ? *gpus : root, "gpus", "a range (" + GpuRangeText(e) + ") takes whole GPUs, not gpu_milli");
  }
  if (Status st = ValidateElastic(e); !st.ok()) {
    const JobNode* step = Find(root, "step");
    return Error(step ? *step : root, "step", st.message());
  }
  return Status::Ok();
}

// checkpoint_interval, checkpoint_cost and checkpoint_stall need checkpointable: true; a stall
// is the part of a checkpoint that pauses training, so it needs the checkpoint's cost and is no
// longer than it.
Status JobReader::CheckCheckpoint(const JobNode& root, const JobRequest& out) const {
  for (std::string_view field :
       {"checkpoint_interval", "checkpoint_cost", "checkpoint_stall", "checkpoint_store"}) {
    const JobNode* at = Find(root, field);
    if (at != nullptr && !out.spec.checkpointable) {
      return Error(*at, field, "needs checkpointable: true");
    }
  }
  const JobNode* stall = Find(root, "checkpoint_stall");
  if (stall == nullptr) return Status::Ok();
  const JobNode* cost = Find(root, "checkpoint_cost");
  if (cost == nullptr) {
    return Error(*stall, "checkpoint_stall",
                 "needs checkpoint_cost (what the whole checkpoint takes; the stall is the part "
                 "of it that pauses training)");
  }
  if (*out.spec.checkpoint_stall > out.spec.checkpoint_cost) {
    return Error(*stall, "checkpoint_stall",
                 "value '" + stall->text + "' is longer than checkpoint_cost '" + cost->text +
                     "' (the stall is the part of the checkpoint that pauses training)");
  }
  return Status::Ok();
}

Result<JobRequest> JobReader::Read(const JobNode& root) const {
  if (root.kind != JobNode::Kind::kMap) {
    return Error(root, "",
                 "a job is a map of fields (name, command, ...), got " +
                     std::string(JobNodeKindName(root.kind)));
  }
  if (Status s = CheckJobText(root, source_); !s.ok()) return s;
  JobRequest out;
  out.spec.submit_time = now_;
  for (const auto& [key, key_where, node] : root.entries) {
    const FieldDef* def = nullptr;
    for (const FieldDef& f : kFields) def = f.name == key ? &f : def;
    if (def == nullptr) {
      if (const std::string_view ours = SlurmFieldName(key); !ours.empty()) {
        return Error(key_where, "",
                     "unknown field '" + key + "': squeeze's field for it is '" +
                         std::string(ours) + "' (docs/job-file.md)");
      }
      const std::optional<std::string> near = NearestName(key, FieldNames());
      return Error(key_where, "",
                   "unknown field '" + key + "'" +
                       (near ? " (did you mean '" + *near + "'?)" : "; see docs/job-file.md"));
    }
    if (node.kind == JobNode::Kind::kNull) continue;
    if (Status s = (this->*(def->read))(node, def->name, out); !s.ok()) return s;
  }
  if (Status s = CheckTogether(root, out); !s.ok()) return s;
  if (out.spec.name.empty()) out.spec.name = DefaultName(out.command[0]);
  // A checkpoint is saved once it is uploaded too (what the spot model weighs against the
  // warning); the job file's checkpoint_cost is the save alone.
  out.spec.checkpoint_cost += UploadSeconds(out.checkpoint_store);
  return out;
}

}  // namespace

Result<JobRequest> ParseJobYaml(std::string_view text, const std::string& source, Time now) {
  const Result<JobNode> root = ReadYamlJobTree(text, source);
  if (!root.ok()) return root.status();
  return JobReader(source, now).Read(*root);
}

Result<JobRequest> ParseJobJson(std::string_view text, Time now) {
  const std::string source(kJsonSource);
  const Result<JobNode> root = ReadJsonJobTree(text, source);
  if (!root.ok()) return root.status();
  Result<JobRequest> job = JobReader(source, now).Read(*root);
  if (job.ok() && !job->workdir.empty() && job->workdir[0] != '/') {
    return Status::Error(source + ": workdir: '" + job->workdir +
                         "' is relative; the server needs a full path");
  }
  return job;
}

Result<JobRequest> ReadJobFile(const std::string& path, Time now) {
  const Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status().WithContext("job file");
  Result<JobRequest> job = ParseJobYaml(*text, path, now);
  if (!job.ok()) return job;
  std::error_code ec;
  const std::filesystem::path here = std::filesystem::current_path(ec);
  if (ec) return Status::Error(path + ": cannot read the current directory: " + ec.message());
  job->workdir = (here / job->workdir).lexically_normal().string();
  if (job->workdir.size() > 1 && job->workdir.back() == '/') job->workdir.pop_back();
  return job;
}

}  // namespace squeeze
