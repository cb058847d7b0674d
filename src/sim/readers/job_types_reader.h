// Job types for a trace that says nothing about hardware (simulate --assume-job-types): each
// type a name, whether jobs of several GPUs may be of it, and how fast it trains on each GPU
// model (Gavel's measured throughputs, examples/hardware/gavel-job-types.csv). squeeze's own CSV:
//   job_type,multi_gpu,gpu_speeds
//   resnet50-bs64,yes,V100:1|P100:0.579|K80:0.165
// Lines whose first field starts with '#' are comments. Errors name the file, the line, the
// column and the value.
#ifndef SQUEEZE_SIM_READERS_JOB_TYPES_READER_H_
#define SQUEEZE_SIM_READERS_JOB_TYPES_READER_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "sim/trace.h"

namespace squeeze {

Result<std::vector<JobType>> ParseJobTypes(std::string_view text, const std::string& source);
Result<std::vector<JobType>> ReadJobTypes(const std::string& path);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_READERS_JOB_TYPES_READER_H_
