#include "sim/readers/philly_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "sim/readers/cell_parse.h"

namespace squeeze {
namespace {

enum PhillyColumn { kTimestamp, kDuration, kNumGpus, kGpuTime, kCluster };
constexpr ColumnDef kPhillyColumns[] = {
    {"timestamp", true}, {"duration", true}, {"num_gpus", true},
    {"gpu_time", true},  {"cluster", true},
};

enum OctNovColumn { kJobId, kVc, kSubmitTimeS, kDurationS, kOctNovNumGpus };
constexpr ColumnDef kOctNovColumns[] = {
    {"job_id", true},     {"vc", true},       {"submit_time_s", true},
    {"duration_s", true}, {"num_gpus", true},
};

// One "philly" row; its submit time is left as the absolute Time since 1970.
Status ParsePhillyRow(const std::vector<int>& col, const CsvRecord& row, int row_number,
                      TraceBuilder* builder) {
  const auto cell = [&](PhillyColumn c) { return row.fields[col[c]]; };
  const auto error = [&](PhillyColumn c, const Status& reason) {
    return builder->CellError(row.line, kPhillyColumns[c].name, cell(c), reason);
  };
  TraceJob job = builder->NewJob();
  Result<Time> submit = ParseTimestampCell(cell(kTimestamp));
  if (!submit.ok()) return error(kTimestamp, submit.status());
  Result<double> duration = ParseNumberCell(cell(kDuration));
  if (!duration.ok()) return error(kDuration, duration.status());
  if (*duration < 0) return error(kDuration, Status::Error("must be >= 0"));
  if (*duration > static_cast<double>(kMaxTraceSeconds)) {
    return error(kDuration, Status::Error("must be <= " + std::to_string(kMaxTraceSeconds)));
  }
  Result<int64_t> gpus = ParseIntegerCell(cell(kNumGpus), 1, kMaxJobGpus);
  if (!gpus.ok()) return error(kNumGpus, gpus.status());
  job.spec.id = row_number;
  job.spec.name = "philly-" + std::to_string(row_number);
  job.spec.pool = std::string(cell(kCluster));
  job.spec.submit_time = *submit;
  job.spec.gpus = static_cast<int>(*gpus);
  // Whole seconds, as documented: the same durations at any tick.
  job.duration = Seconds(std::max<int64_t>(1, std::llround(*duration)));
  builder->Add(std::move(job));
  return Status::Ok();
}

Status ParseOctNovRow(const std::vector<int>& col, const CsvRecord& row,
                      TraceBuilder* builder) {
  const auto cell = [&](OctNovColumn c) { return row.fields[col[c]]; };
  const auto error = [&](OctNovColumn c, const Status& reason) {
    return builder->CellError(row.line, kOctNovColumns[c].name, cell(c), reason);
  };
  TraceJob job = builder->NewJob();
  Result<int64_t> id = ParseIntegerCell(cell(kJobId), 0, std::numeric_limits<int64_t>::max());
  if (!id.ok()) return error(kJobId, id.status());
  Result<int64_t> submit = ParseIntegerCell(cell(kSubmitTimeS), 0, kMaxTraceSeconds);
  if (!submit.ok()) return error(kSubmitTimeS, submit.status());
  Result<int64_t> duration = ParseIntegerCell(cell(kDurationS), 1, kMaxTraceSeconds);
  if (!duration.ok()) return error(kDurationS, duration.status());
  Result<int64_t> gpus = ParseIntegerCell(cell(kOctNovNumGpus), 1, kMaxJobGpus);
  if (!gpus.ok()) return error(kOctNovNumGpus, gpus.status());
  job.spec.id = *id;
  job.spec.name = std::to_string(*id);
  job.spec.pool = std::string(cell(kVc));
  job.spec.submit_time = Seconds(*submit);
  job.spec.gpus = static_cast<int>(*gpus);
  job.duration = Seconds(*duration);
  return builder->AddUnique(std::move(job), row.line, kOctNovColumns[kJobId].name,
                            cell(kJobId));
}

}  // namespace

std::span<const ColumnDef> PhillyColumns() { return kPhillyColumns; }
std::span<const ColumnDef> PhillyOctNovColumns() { return kOctNovColumns; }

Status ReadPhillyRows(const CsvRecord& header, CsvReader* csv, TraceBuilder* builder) {
  Result<std::vector<int>> col = builder->MapHeader(header, kPhillyColumns);
  if (!col.ok()) return col.status();
  Status s = builder->ForEachRow(csv, header.fields.size(),
                                 [&](const CsvRecord& row, int row_number) {
                                   return ParsePhillyRow(*col, row, row_number, builder);
                                 });
  if (!s.ok() || builder->jobs().empty()) return s;
  Time earliest = builder->jobs().front().spec.submit_time;
  for (const TraceJob& job : builder->jobs()) earliest = std::min(earliest, job.spec.submit_time);
  for (TraceJob& job : builder->jobs()) job.spec.submit_time -= earliest;
  return Status::Ok();
}

Status ReadPhillyOctNovRows(const CsvRecord& header, CsvReader* csv, TraceBuilder* builder) {
  Result<std::vector<int>> col = builder->MapHeader(header, kOctNovColumns);
  if (!col.ok()) return col.status();
  return builder->ForEachRow(csv, header.fields.size(),
                             [&](const CsvRecord& row, int) {
                               return ParseOctNovRow(*col, row, builder);
                             });
}

}  // namespace squeeze
