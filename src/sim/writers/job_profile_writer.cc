#include "sim/writers/job_profile_writer.h"

#include <cstdio>
#include <functional>
#include <map>

#include "core/elastic.h"
#include "core/hardware.h"
#include "sim/readers/job_profile_reader.h"

namespace squeeze {
namespace {

std::string Count(int64_t v) { return v > 0 ? std::to_string(v) : std::string(); }
// Times go out in whole seconds, as the reader reads them.
std::string SecondsText(Time t) { return std::to_string(WholeSeconds(t)); }
std::string PositiveTime(Time t) { return t > 0 ? SecondsText(t) : std::string(); }
std::string Optional(const std::optional<Time>& v) {
  return v ? SecondsText(*v) : std::string();
}
std::string Bool(bool v) { return v ? "true" : "false"; }
std::string JoinList(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : "|") + item;
  return out;
}
std::string Number(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

using Writer = std::function<std::string(const TraceJob&)>;
using WriterMap = std::map<std::string, Writer, std::less<>>;

// An elastic job's columns (empty for any other job).
WriterMap ElasticWriters() {
  return {
      {"gpus_step", [](const TraceJob& j) {
         return j.spec.elastic.enabled() ? std::to_string(j.spec.elastic.step) : std::string();
       }},
      {"scaling", [](const TraceJob& j) {
         return j.spec.elastic.enabled() ? ScalingText(j.spec.elastic.scaling) : std::string();
       }},
      {"resize_cost", [](const TraceJob& j) {
         return j.spec.elastic.enabled() ? Optional(j.spec.elastic.resize_cost) : std::string();
       }},
      {"duration_gpus", [](const TraceJob& j) {
         const ElasticSpec& e = j.spec.elastic;
         return e.enabled() && e.reference > 0 ? std::to_string(e.reference) : std::string();
       }},
  };
}

const WriterMap& Writers() {
  static const WriterMap writers = [] {
    WriterMap w = ElasticWriters();
    w.merge(WriterMap{
      {"id", [](const TraceJob& j) { return std::to_string(j.spec.id); }},
      {"submit_time", [](const TraceJob& j) { return SecondsText(j.spec.submit_time); }},
      {"duration", [](const TraceJob& j) { return SecondsText(j.duration); }},
      {"gpus", [](const TraceJob& j) {
         const ElasticSpec& e = j.spec.elastic;  // elastic: its range, the duration at its max
         return e.enabled() ? std::to_string(e.min) + "-" + std::to_string(e.max)
                            : std::to_string(j.spec.gpus);
       }},
      {"pool", [](const TraceJob& j) { return j.spec.pool; }},
      {"name", [](const TraceJob& j) { return j.spec.name; }},
      {"gpu_milli", [](const TraceJob& j) {
         return j.spec.gpu_milli == kMilliPerGpu ? std::string() : std::to_string(j.spec.gpu_milli);
       }},
      {"team", [](const TraceJob& j) { return j.spec.team; }},
      {"urgency", [](const TraceJob& j) { return std::string(UrgencyName(j.spec.urgency)); }},
      {"gpu_models", [](const TraceJob& j) { return JoinList(j.spec.gpu_models); }},
      {"min_gpu_memory_mib", [](const TraceJob& j) { return Count(j.spec.min_gpu_memory_mib); }},
      {"gpu_speeds", [](const TraceJob& j) { return GpuSpeedsText(j.spec.gpu_speeds, '|'); }},
      {"cpu_milli", [](const TraceJob& j) { return Count(j.spec.cpu_milli); }},
      {"memory_mib", [](const TraceJob& j) { return Count(j.spec.memory_mib); }},
      {"preemptible", [](const TraceJob& j) { return Bool(j.spec.preemptible); }},
      {"checkpointable", [](const TraceJob& j) { return Bool(j.spec.checkpointable); }},
      {"fault_tolerant", [](const TraceJob& j) { return Bool(j.spec.fault_tolerant); }},
      {"checkpoint_interval",
       [](const TraceJob& j) { return PositiveTime(j.spec.checkpoint_interval); }},
      {"checkpoint_cost", [](const TraceJob& j) { return PositiveTime(j.spec.checkpoint_cost); }},
      {"checkpoint_stall", [](const TraceJob& j) { return Optional(j.spec.checkpoint_stall); }},
      {"restart_overhead", [](const TraceJob& j) { return Optional(j.spec.restart_overhead); }},
      {"estimate", [](const TraceJob& j) { return Optional(j.spec.estimate); }},
      {"deadline", [](const TraceJob& j) { return Optional(j.spec.deadline); }},
      {"regions", [](const TraceJob& j) { return JoinList(j.spec.regions); }},
      {"data_gb", [](const TraceJob& j) {
         return j.spec.data_gb > 0 ? Number(j.spec.data_gb) : std::string();
       }},
      {"user", [](const TraceJob& j) { return j.spec.user; }},
      {"time_limit", [](const TraceJob& j) { return Optional(j.spec.time_limit); }},
      // An array's tasks are written one per row (their ids as read), without their limit.
      {"array", [](const TraceJob& j) { return j.array; }},
      {"dependency", [](const TraceJob& j) {
         std::string out;
         for (const Dependency& d : j.spec.dependencies) {
           if (!out.empty()) out += j.spec.dependency_any ? "?" : ",";
           out += DependencyKindName(d.kind);
           if (d.kind == DependencyKind::kSingleton) continue;
           for (JobId id : d.jobs) out += ":" + std::to_string(id);
         }
         return out;
       }},
    });
    return w;
  }();
  return writers;
}

}  // namespace

Result<std::string> ProfileCell(std::string_view column, const TraceJob& job) {
  auto it = Writers().find(column);
  if (it == Writers().end()) {
    return Status::Error("job-profile column '" + std::string(column) + "' has no writer");
  }
  return it->second(job);
}

std::string CsvField(std::string_view value, char delimiter) {
  const bool quote = value.find_first_of(std::string{delimiter, '"', '\n', '\r'}) != std::string_view::npos ||
                     (!value.empty() && (value.front() == ' ' || value.back() == ' '));
  if (!quote) return std::string(value);
  std::string out = "\"";
  for (char ch : value) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + '"';
}

Status WriteJobProfileCsv(const Trace& trace, const ProfileCsvOptions& options, std::ostream* out) {
  if (options.delimiter != ',' && options.delimiter != ';') {
    return Status::Error(std::string("job-profile CSV: delimiter '") + options.delimiter +
                         "' is not ',' or ';'");
  }
  const char* eol = options.excel ? "\r\n" : "\n";
  if (options.excel) *out << "\xEF\xBB\xBF";
  const auto columns = JobProfileColumns();
  std::string line;
  for (size_t i = 0; i < columns.size(); ++i) {
    line += (i ? std::string(1, options.delimiter) : "") + std::string(columns[i].name);
  }
  *out << line << eol;
  for (const TraceJob& job : trace.jobs) {
    line.clear();
    for (size_t i = 0; i < columns.size(); ++i) {
      Result<std::string> cell = ProfileCell(columns[i].name, job);
      if (!cell.ok()) return cell.status();
      if (i) line += options.delimiter;
      line += CsvField(*cell, options.delimiter);
    }
    *out << line << eol;
  }
  if (!*out) return Status::Error("job-profile CSV: the write failed");
  return Status::Ok();
}

}  // namespace squeeze
