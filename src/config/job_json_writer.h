// Writes a JobRequest as the job-file JSON form (docs/job-file.md) that ParseJobJson reads
// back to an equal request: what `squeeze submit` posts to `squeeze serve`. Only the fields
// of a job file are written; the rest of JobSpec (id, submit_time, ...) is the daemon's.
// Pure; thread-safe.
#ifndef SQUEEZE_CONFIG_JOB_JSON_WRITER_H_
#define SQUEEZE_CONFIG_JOB_JSON_WRITER_H_

#include <cstdint>
#include <string>

#include "core/job_request.h"

namespace squeeze {

// A JSON object; fields at their "not set" value (no estimate, cpu_milli 0, max_retries -1,
// data_gb 0, no checkpoint_stall and checkpoint_cost 0 without one, empty name/team/pool/
// workdir/env/gpu_models/regions) are left out. Times are absolute: a deadline is an RFC 3339
// date-time in UTC. Text that is not UTF-8 is written with U+FFFD in its place. Values are
// written as given, not checked: ParseJobJson checks.
std::string JobRequestToJobJson(const JobRequest& r);

// Millicores as a job file writes cores: 500 -> "0.5", 4000 -> "4", 1 -> "0.001".
std::string FormatCpuMilli(int64_t milli);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_JOB_JSON_WRITER_H_
