#include "sim/readers/job_profile_reader.h"

#include <array>
#include <limits>
#include <string>
#include <vector>

#include "core/elastic.h"
#include "core/hardware.h"
#include "core/job_array.h"
#include "sim/readers/cell_parse.h"
#include "sim/readers/trace_links.h"

namespace squeeze {
namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

// Parses a cell (non-empty unless the column is required) into *job; on failure the status
// holds the reason.
using ApplyCell = Status (*)(std::string_view value, TraceJob* job);

struct ProfileColumn {
  ColumnDef def;
  ApplyCell apply;
};

template <typename T, typename Set>
Status Apply(Result<T> parsed, Set set) {
  if (!parsed.ok()) return parsed.status();
  set(*parsed);
  return Status::Ok();
}

Status ApplyUrgency(std::string_view value, TraceJob* job) {
  const std::optional<Urgency> u = ParseUrgency(NormalizeName(value));
  if (!u) {
    return Status::Error("is not valid: urgency must be one of critical, high, normal, low");
  }
  job->spec.urgency = *u;
  return Status::Ok();
}

enum ProfileColumnIndex { kId, kSubmitTime, kDuration, kGpus, kPool, kName, kGpuMilli };

// The order of the first seven entries follows ProfileColumnIndex.
constexpr ProfileColumn kColumns[] = {
    {{"id", true}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseIntegerCell(v, 0, kMaxInt64), [&](int64_t x) { j->spec.id = x; });
     }},
    {{"submit_time", true}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseSecondsCell(v, 0), [&](Time x) { j->spec.submit_time = x; });
     }},
    {{"duration", true}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseSecondsCell(v, 1), [&](Time x) { j->duration = x; });
     }},
    {{"gpus", true}, [](std::string_view v, TraceJob* j) -> Status {
       // MIN-MAX: an elastic job (core/elastic.h), its duration at MAX.
       if (v.find('-') != std::string_view::npos && v.front() != '-') {
         auto range = ParseGpuRange(v, "gpus");
         if (!range.ok() || range->max > kMaxJobGpus) {
           return Status::Error("is not a range MIN-MAX of GPUs with 1 <= MIN <= MAX <= " +
                                std::to_string(kMaxJobGpus) + " (as 2-8)");
         }
         j->spec.elastic.min = range->min;
         j->spec.elastic.max = range->max;
         j->spec.gpus = range->max;
         return Status::Ok();
       }
       // 0: a CPU-only job (the daemon runs them; profile export writes them).
       return Apply(ParseIntegerCell(v, 0, kMaxJobGpus),
                    [&](int64_t x) { j->spec.gpus = static_cast<int>(x); });
     }},
    {{"pool", true}, [](std::string_view v, TraceJob* j) {
       j->spec.pool = std::string(v);
       return Status::Ok();
     }},
    {{"name", false}, [](std::string_view v, TraceJob* j) {
       j->spec.name = std::string(v);
       return Status::Ok();
     }},
    {{"gpu_milli", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseIntegerCell(v, 1, kMilliPerGpu),
                    [&](int64_t x) { j->spec.gpu_milli = static_cast<int>(x); });
     }},
    {{"team", false}, [](std::string_view v, TraceJob* j) {
       j->spec.team = std::string(v);
       return Status::Ok();
     }},
    {{"urgency", false}, ApplyUrgency},
    {{"gpu_models", false}, [](std::string_view v, TraceJob* j) {
       j->spec.gpu_models = SplitListCell(v);
       return Status::Ok();
     }},
    {{"min_gpu_memory_mib", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseIntegerCell(v, 0, kMaxInt64),
                    [&](int64_t x) { j->spec.min_gpu_memory_mib = x; });
     }},
    {{"gpu_speeds", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseGpuSpeeds(v), [&](std::map<std::string, double> x) {
         j->spec.gpu_speeds = std::move(x);
       });
     }},
    {{"cpu_milli", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseIntegerCell(v, 0, kMaxInt64), [&](int64_t x) { j->spec.cpu_milli = x; });
     }},
    {{"memory_mib", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseIntegerCell(v, 0, kMaxInt64), [&](int64_t x) { j->spec.memory_mib = x; });
     }},
    {{"preemptible", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseBoolCell(v), [&](bool x) { j->spec.preemptible = x; });
     }},
    {{"checkpointable", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseBoolCell(v), [&](bool x) { j->spec.checkpointable = x; });
     }},
    {{"fault_tolerant", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseBoolCell(v), [&](bool x) { j->spec.fault_tolerant = x; });
     }},
    {{"checkpoint_interval", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseSecondsCell(v, 0), [&](Time x) { j->spec.checkpoint_interval = x; });
     }},
    {{"checkpoint_cost", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseSecondsCell(v, 0), [&](Time x) { j->spec.checkpoint_cost = x; });
     }},
    {{"checkpoint_stall", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseSecondsCell(v, 0), [&](Time x) { j->spec.checkpoint_stall = x; });
     }},
    {{"restart_overhead", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseSecondsCell(v, 0), [&](Time x) { j->spec.restart_overhead = x; });
     }},
    {{"estimate", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseSecondsCell(v, 1), [&](Time x) { j->spec.estimate = x; });
     }},
    {{"deadline", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseSecondsCell(v, 0), [&](Time x) { j->spec.deadline = x; });
     }},
    {{"regions", false}, [](std::string_view v, TraceJob* j) {
       j->spec.regions = SplitListCell(v);
       return Status::Ok();
     }},
    {{"data_gb", false}, [](std::string_view v, TraceJob* j) -> Status {
       auto gb = ParseNumberCell(v);
       if (!gb.ok()) return gb.status();
       if (*gb < 0) return Status::Error("is negative (a size in GB)");
       j->spec.data_gb = *gb;
       return Status::Ok();
     }},
    {{"user", false}, [](std::string_view v, TraceJob* j) {
       j->spec.user = std::string(v);
       return Status::Ok();
     }},
    {{"time_limit", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseSecondsCell(v, 1), [&](Time x) { j->spec.time_limit = x; });
     }},
    {{"array", false}, [](std::string_view v, TraceJob* j) -> Status {
       if (auto spec = ParseArraySpec(v); !spec.ok()) return spec.status();
       j->array = std::string(v);
       return Status::Ok();
     }},
    {{"dependency", false}, [](std::string_view v, TraceJob* j) -> Status {
       if (auto deps = ParseDependency(v); !deps.ok()) return deps.status();
       j->dependency = std::string(v);
       return Status::Ok();
     }},
    // An elastic job's (gpus MIN-MAX): the widths between are MIN + k x gpus_step.
    {{"gpus_step", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseIntegerCell(v, 1, kMaxJobGpus),
                    [&](int64_t x) { j->spec.elastic.step = static_cast<int>(x); });
     }},
    {{"scaling", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseScaling(v), [&](const Scaling& x) { j->spec.elastic.scaling = x; });
     }},
    {{"resize_cost", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseSecondsCell(v, 0), [&](Time x) { j->spec.elastic.resize_cost = x; });
     }},
    {{"duration_gpus", false}, [](std::string_view v, TraceJob* j) {
       return Apply(ParseIntegerCell(v, 1, kMaxJobGpus),
                    [&](int64_t x) { j->spec.elastic.reference = static_cast<int>(x); });
     }},
};

// The cell of a column found by name ("" when the file has no such column).
std::string_view CellOf(const std::vector<int>& col, const CsvRecord& row, std::string_view name);

// The elastic columns of a row whose gpus is not a range, or a range they do not fit.
Status CheckElastic(const std::vector<int>& col, const CsvRecord& row, const TraceJob& job,
                    TraceBuilder* builder) {
  const ElasticSpec& e = job.spec.elastic;
  for (const char* name : {"gpus_step", "scaling", "resize_cost", "duration_gpus"}) {
    const std::string_view value = CellOf(col, row, name);
    if (!e.enabled() && !value.empty()) {
      return builder->CellError(row.line, name, value, "is only for an elastic job (gpus MIN-MAX, as 2-8)");
    }
  }
  if (Status s = ValidateElastic(e); !s.ok()) {
    return builder->CellError(row.line, "gpus_step", CellOf(col, row, "gpus_step"),
                              "does not fit: " + s.message());
  }
  return Status::Ok();
}
constexpr size_t kNumColumns = std::size(kColumns);
static_assert(kColumns[kPool].def.name == "pool" && kColumns[kName].def.name == "name" &&
              kColumns[kGpuMilli].def.name == "gpu_milli");

const std::array<ColumnDef, kNumColumns>& ColumnDefs() {
  static const std::array<ColumnDef, kNumColumns> defs = [] {
    std::array<ColumnDef, kNumColumns> out;
    for (size_t i = 0; i < kNumColumns; ++i) out[i] = kColumns[i].def;
    return out;
  }();
  return defs;
}

Status ParseProfileRow(const std::vector<int>& col, const CsvRecord& row,
                       TraceBuilder* builder) {
  TraceJob job = builder->NewJob();
  std::string errors;  // every bad cell of the row, one per line
  for (size_t i = 0; i < kNumColumns; ++i) {
    if (col[i] < 0) continue;
    const std::string_view value = row.fields[col[i]];
    if (value.empty() && !kColumns[i].def.required) continue;
    Status s = kColumns[i].apply(value, &job);
    if (s.ok()) continue;
    if (!errors.empty()) errors += '\n';
    errors += builder->CellError(row.line, kColumns[i].def.name, value, s).message();
  }
  if (!errors.empty()) return Status::Error(errors);
  if (job.spec.gpu_milli < kMilliPerGpu && job.spec.gpus != 1) {
    return builder->CellError(row.line, "gpu_milli", row.fields[col[kGpuMilli]],
                              "is only allowed with gpus = 1 (this row asks for " +
                                  std::to_string(job.spec.gpus) + " GPUs)");
  }
  if (Status s = CheckElastic(col, row, job, builder); !s.ok()) return s;
  if (job.spec.name.empty()) job.spec.name = std::to_string(job.spec.id);
  return builder->AddUnique(std::move(job), row.line, "id", row.fields[col[kId]]);
}

std::string_view CellOf(const std::vector<int>& col, const CsvRecord& row, std::string_view name) {
  for (size_t i = 0; i < kNumColumns; ++i) {
    if (kColumns[i].def.name == name) return col[i] < 0 ? std::string_view() : row.fields[col[i]];
  }
  return {};
}

}  // namespace

std::span<const ColumnDef> JobProfileColumns() { return ColumnDefs(); }

Status ReadJobProfileRows(const CsvRecord& header, CsvReader* csv, TraceBuilder* builder) {
  Result<std::vector<int>> col = builder->MapHeader(header, ColumnDefs());
  if (!col.ok()) return col.status();
  Status read = builder->ForEachRow(csv, header.fields.size(),
                                    [&](const CsvRecord& row, int) {
                                      return ParseProfileRow(*col, row, builder);
                                    },
                                    /*all_errors=*/true);
  if (!read.ok()) return read;
  return ExpandTraceLinks(builder->jobs());
}

}  // namespace squeeze
