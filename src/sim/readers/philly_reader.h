// Readers of the two Philly trace formats (see shared/traces/README.md). Each reads the data
// rows that follow a header the caller has already read, into a TraceBuilder.
//   "philly":         timestamp,duration,num_gpus,gpu_time,cluster — submit times become
//                     the time since the file's earliest timestamp; durations are rounded to
//                     whole seconds (at least 1); gpu_time is not read; the id is the data
//                     row's number (from 1, blank lines not counted), the name "philly-<id>".
//   "philly-oct-nov": job_id,vc,submit_time_s,duration_s,num_gpus — taken as they are.
// Columns may come in any order. Stateless; thread-safe.
#ifndef SQUEEZE_SIM_READERS_PHILLY_READER_H_
#define SQUEEZE_SIM_READERS_PHILLY_READER_H_

#include <span>

#include "core/status.h"
#include "sim/readers/csv.h"
#include "sim/readers/trace_builder.h"

namespace squeeze {

// The columns of each format, all required.
std::span<const ColumnDef> PhillyColumns();
std::span<const ColumnDef> PhillyOctNovColumns();

Status ReadPhillyRows(const CsvRecord& header, CsvReader* csv, TraceBuilder* builder);
Status ReadPhillyOctNovRows(const CsvRecord& header, CsvReader* csv, TraceBuilder* builder);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_READERS_PHILLY_READER_H_
