// Reader of squeeze's own job-profile CSV: one job per row, columns matched by header name in
// any order and case. Required: id, submit_time, duration, gpus, pool (pool may be empty = any
// pool). Optional: name, team, urgency, gpu_milli, gpu_models, min_gpu_memory_mib, cpu_milli,
// memory_mib, preemptible, checkpointable, checkpoint_interval, checkpoint_cost,
// restart_overhead, estimate, deadline, regions, user, time_limit, array (sbatch --array:
// the row stands for every task), dependency (sbatch --dependency, by the trace's ids). Times are seconds or durations ("30m");
// lists are '|'-separated; an empty optional cell means "not given" (a job without a name is
// named after its id). Unknown columns are errors. Stateless; thread-safe.
#ifndef SQUEEZE_SIM_READERS_JOB_PROFILE_READER_H_
#define SQUEEZE_SIM_READERS_JOB_PROFILE_READER_H_

#include <span>

#include "core/status.h"
#include "sim/readers/csv.h"
#include "sim/readers/trace_builder.h"

namespace squeeze {

// The columns a job-profile file may have, the required ones first.
std::span<const ColumnDef> JobProfileColumns();

// Reads the data rows that follow `header` (already read by the caller) into *builder.
Status ReadJobProfileRows(const CsvRecord& header, CsvReader* csv, TraceBuilder* builder);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_READERS_JOB_PROFILE_READER_H_
