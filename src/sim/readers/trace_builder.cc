#include "sim/readers/trace_builder.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "sim/readers/cell_parse.h"

namespace squeeze {
namespace {

// Values longer than this are cut in messages.
constexpr size_t kMaxShownValue = 60;

std::string ShowValue(std::string_view value) {
  if (value.size() <= kMaxShownValue) return std::string(value);
  return std::string(value.substr(0, kMaxShownValue)) + "...";
}

std::string JoinNames(std::span<const ColumnDef> columns, bool required_only) {
  std::string out;
  for (const ColumnDef& c : columns) {
    if (required_only && !c.required) continue;
    if (!out.empty()) out += ", ";
    out += c.name;
  }
  return out;
}

// Stable sort by submit time. Jobs are large, so the order is found on (time, index) pairs
// and then applied in place, cycle by cycle.
void SortBySubmitTime(std::vector<TraceJob>* jobs) {
  const auto by_time = [](const TraceJob& a, const TraceJob& b) {
    return a.spec.submit_time < b.spec.submit_time;
  };
  if (std::is_sorted(jobs->begin(), jobs->end(), by_time)) return;
  std::vector<std::pair<Time, size_t>> order(jobs->size());
  for (size_t i = 0; i < jobs->size(); ++i) order[i] = {(*jobs)[i].spec.submit_time, i};
  std::sort(order.begin(), order.end());  // the index breaks ties: stable
  // Position i must receive the job now at order[i].second.
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i].second == i) continue;
    TraceJob held = std::move((*jobs)[i]);
    size_t hole = i;
    for (;;) {
      const size_t from = order[hole].second;
      order[hole].second = hole;
      if (from == i) break;
      (*jobs)[hole] = std::move((*jobs)[from]);
      hole = from;
    }
    (*jobs)[hole] = std::move(held);
  }
}

}  // namespace

void TraceBuilder::Reserve(size_t rows) {
  // Beyond this the vector grows as usual, so that odd input (a file of empty lines) cannot
  // make us ask for gigabytes up front.
  constexpr size_t kMaxReservedRows = size_t{1} << 20;
  trace_.jobs.reserve(std::min(rows, kMaxReservedRows));
#ifdef __linux__
  // A big trace's jobs take tens of MB (philly.csv: 23 MB). Filling them page by page costs
  // thousands of page faults, which dominate the parse on VMs; with huge pages they are a few
  // dozen. Only a hint: the kernel may ignore it, and it never changes what is read.
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  const auto first = reinterpret_cast<uintptr_t>(trace_.jobs.data());
  const uintptr_t last = first + trace_.jobs.capacity() * sizeof(TraceJob);
  const uintptr_t begin = (first + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = last & ~(kHugePage - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

TraceBuilder::TraceBuilder(std::string source, std::string format, const ReadOptions& options)
    : options_(options) {
  trace_.source = std::move(source);
  trace_.format = std::move(format);
}

Result<std::vector<int>> TraceBuilder::MapHeader(const CsvRecord& header,
                                                 std::span<const ColumnDef> columns) const {
  std::vector<int> index(columns.size(), -1);
  for (size_t field = 0; field < header.fields.size(); ++field) {
    const std::string name = NormalizeName(header.fields[field]);
    if (name.empty()) {
      return RowError(header.line, "header field " + std::to_string(field + 1) +
                                       " is empty (every column needs a name)");
    }
    const auto known = std::find_if(columns.begin(), columns.end(),
                                    [&](const ColumnDef& c) { return c.name == name; });
    if (known == columns.end()) {
      return RowError(header.line, "unknown column '" + ShowValue(header.fields[field]) +
                                       "' in a " + trace_.format + " file (known columns: " +
                                       JoinNames(columns, false) + ")");
    }
    int& slot = index[known - columns.begin()];
    if (slot >= 0) {
      return RowError(header.line, "column '" + name + "' appears twice (fields " +
                                       std::to_string(slot + 1) + " and " +
                                       std::to_string(field + 1) + ")");
    }
    slot = static_cast<int>(field);
  }
  std::string missing;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].required && index[i] < 0) {
      missing += (missing.empty() ? "'" : ", '") + std::string(columns[i].name) + "'";
    }
  }
  if (!missing.empty()) {
    return RowError(header.line, "missing required column " + missing + " (a " +
                                     trace_.format + " file needs " +
                                     JoinNames(columns, true) + ")");
  }
  return index;
}

Status TraceBuilder::ForEachRow(CsvReader* csv, size_t header_fields,
                                const RowParser& parse_row, bool all_errors) {
  CsvRecord row;
  std::vector<std::string> errors;
  int error_count = 0;
  for (;;) {
    Result<bool> more = csv->Next(&row);
    if (!more.ok()) return more.status();
    if (!*more) break;
    ++rows_;
    Status s = row.fields.size() == header_fields
                   ? parse_row(row, rows_)
                   : RowError(row.line, "row has " + std::to_string(row.fields.size()) +
                                            " fields but the header has " +
                                            std::to_string(header_fields));
    if (s.ok()) continue;
    if (options_.skip_bad_rows) {
      ++trace_.skipped_rows;
      if (trace_.skipped.size() < static_cast<size_t>(kMaxSkippedMessages)) {
        trace_.skipped.push_back(s.message());
      }
      continue;
    }
    if (!all_errors) return s;
    // A row may hold several errors, one per line of the message.
    for (size_t start = 0; start < s.message().size();) {
      size_t end = s.message().find('\n', start);
      if (end == std::string::npos) end = s.message().size();
      ++error_count;
      if (errors.size() < static_cast<size_t>(kMaxListedErrors)) {
        errors.push_back(s.message().substr(start, end - start));
      }
      start = end + 1;
    }
  }
  if (errors.empty()) return Status::Ok();
  if (error_count == 1) return Status::Error(errors[0]);
  std::string text = std::to_string(error_count) + (error_count == 1 ? " error" : " errors") +
                     " in " + trace_.source + "; nothing was read:";
  for (const auto& e : errors) text += "\n" + e;
  if (error_count > static_cast<int>(errors.size())) {
    text += "\n... and " + std::to_string(error_count - static_cast<int>(errors.size())) + " more";
  }
  return Status::Error(text);
}

Status TraceBuilder::CellError(int line, std::string_view column, std::string_view value,
                               std::string_view reason) const {
  return RowError(line, "column '" + std::string(column) + "': value '" + ShowValue(value) +
                            "' " + std::string(reason));
}

Status TraceBuilder::CellError(int line, std::string_view column, std::string_view value,
                               const Status& reason) const {
  return CellError(line, column, value, reason.message());
}

TraceJob TraceBuilder::NewJob() const {
  TraceJob job;
  job.spec.preemptible = options_.default_preemptible;
  job.spec.checkpointable = options_.default_checkpointable;
  job.spec.data_gb = options_.default_data_gb;
  job.spec.checkpoint_cost = options_.default_checkpoint_cost;
  job.spec.checkpoint_stall = options_.default_checkpoint_stall;
  return job;
}

Status TraceBuilder::AddUnique(TraceJob job, int line, std::string_view column,
                               std::string_view raw_id) {
  const auto [it, inserted] = id_lines_.emplace(job.spec.id, line);
  if (!inserted) {
    return CellError(line, column, raw_id,
                     "is a duplicate id " + std::to_string(job.spec.id) + " (first on line " +
                         std::to_string(it->second) + ")");
  }
  trace_.jobs.push_back(std::move(job));
  return Status::Ok();
}

namespace {

// SplitMix64 of the id (plus a salt, so that two choices by id are independent), its top 53
// bits as a share in [0, 1).
double ShareOfId(JobId id, uint64_t salt) {
  uint64_t z = static_cast<uint64_t>(id) + 0x9E3779B97F4A7C15ull + salt;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

}  // namespace

void TraceBuilder::MakeElastic() {
  for (TraceJob& job : trace_.jobs) {
    JobSpec& spec = job.spec;
    if (spec.elastic.enabled() || !spec.checkpointable || !spec.WholeGpus() || spec.gpus < 1) {
      continue;
    }
    const int max = static_cast<int>(spec.gpus * options_.elastic_max_factor);
    const int min = std::clamp(static_cast<int>(std::ceil(spec.gpus * options_.elastic_min_factor)), 1, max);
    if (max <= min || ShareOfId(spec.id, 0x5EEDE1A57ull) >= options_.elastic_share) continue;
    spec.elastic.min = min;
    spec.elastic.max = max;
    spec.elastic.reference = spec.gpus;
    spec.elastic.scaling = options_.elastic_scaling;
    spec.elastic.resize_cost = options_.elastic_resize_cost;
  }
}

void TraceBuilder::AssignJobTypes() {
  const std::vector<JobType>& types = options_.job_types;
  std::vector<const JobType*> multi;
  for (const JobType& t : types) {
    if (t.multi_gpu) multi.push_back(&t);
  }
  for (TraceJob& job : trace_.jobs) {
    JobSpec& spec = job.spec;
    if (!spec.gpu_speeds.empty()) continue;
    const double u = ShareOfId(spec.id, 0x6A0B7E5ull);
    if (spec.gpus > 1 && !multi.empty()) {
      spec.gpu_speeds = multi[static_cast<size_t>(u * static_cast<double>(multi.size()))]->gpu_speeds;
    } else {
      spec.gpu_speeds = types[static_cast<size_t>(u * static_cast<double>(types.size()))].gpu_speeds;
    }
  }
}

Result<Trace> TraceBuilder::Finish() {
  if (trace_.jobs.empty()) {
    std::string why = rows_ == 0 ? "the file has a header but no rows"
                                 : "all " + std::to_string(rows_) +
                                       " rows were skipped as bad; the first: " +
                                       trace_.skipped.front();
    return Status::Error(trace_.source + ": no jobs: " + why);
  }
  if (options_.urgent_share > 0 && trace_.format != "job-profile") {
    for (TraceJob& job : trace_.jobs) {
      const double u = ShareOfId(job.spec.id, 0);
      job.spec.urgency = u < options_.urgent_share ? Urgency::kHigh : Urgency::kLow;
    }
  }
  if (options_.elastic_share > 0) MakeElastic();
  if (!options_.job_types.empty()) AssignJobTypes();
  if (options_.time_limit_factor > 0) {
    for (TraceJob& job : trace_.jobs) {
      if (job.spec.time_limit) continue;
      // In seconds, as the duration was before Time counted ticks: the same hours at any tick.
      const double wanted_s = ToSeconds(job.duration) * options_.time_limit_factor;
      const Time hours = std::max<Time>(1, static_cast<Time>(std::ceil(wanted_s / 3600.0)));
      job.spec.time_limit = hours * kHour;
    }
  }
  SortBySubmitTime(&trace_.jobs);
  return std::move(trace_);
}

Status TraceBuilder::RowError(int line, const std::string& message) const {
  return Status::Error(trace_.source + ":" + std::to_string(line) + ": " + message);
}

}  // namespace squeeze
