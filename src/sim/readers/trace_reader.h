// Reading a trace file: the format is told by the header (the one whose column names it uses
// most; job-profile on a tie), then that format's reader turns the rows into a Trace sorted by
// submit time, stably. Formats:
//   "philly"          timestamp,duration,num_gpus,gpu_time,cluster   (philly_reader.h)
//   "philly-oct-nov"  job_id,vc,submit_time_s,duration_s,num_gpus    (philly_reader.h)
//   "job-profile"     squeeze's own job CSV                           (job_profile_reader.h)
// Every error names the file and line, and for a bad cell the column and the value. With
// ReadOptions::skip_bad_rows a bad row is counted and skipped instead; header errors, CSV
// syntax errors and a trace without jobs are always errors. Stateless; thread-safe.
#ifndef SQUEEZE_SIM_READERS_TRACE_READER_H_
#define SQUEEZE_SIM_READERS_TRACE_READER_H_

#include <string>
#include <string_view>

#include "core/status.h"
#include "sim/trace.h"

namespace squeeze {

// Reads the whole file at `path`; messages and Trace::source name it as given.
Result<Trace> ReadTrace(const std::string& path, const ReadOptions& options);

// Parses the text of a trace file; `source_name` stands for the file in messages.
Result<Trace> ParseTrace(std::string_view text, const std::string& source_name,
                         const ReadOptions& options);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_READERS_TRACE_READER_H_
