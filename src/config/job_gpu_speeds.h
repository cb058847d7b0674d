// The job file's `gpu_speeds` (core/hardware.h): how fast the job trains on each GPU model,
// relative to the card its estimate is for, as a map ({V100: 1, K80: 0.24}) or as text
// (V100:1,K80:0.24). A user's claim, so bounded: a speed from 0.001 to 100, at most 64 models,
// each name 1 to 128 characters. The scheduler lets it choose the job's cards only, never its
// rank (docs/job-file.md). Messages name the field (gpu_speeds.K80) and the value. Stateless;
// thread-safe.
#ifndef SQUEEZE_CONFIG_JOB_GPU_SPEEDS_H_
#define SQUEEZE_CONFIG_JOB_GPU_SPEEDS_H_

#include <map>
#include <string>

#include "config/job_tree.h"
#include "core/status.h"

namespace squeeze {

constexpr double kMinJobGpuSpeed = 0.001;
constexpr double kMaxJobGpuSpeed = 100;
constexpr size_t kMaxJobGpuSpeeds = 64;

// `source` names the document in messages where a node has no position (JSON bodies).
Result<std::map<std::string, double>> ReadJobGpuSpeeds(const JobNode& node,
                                                       const std::string& source);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_JOB_GPU_SPEEDS_H_
