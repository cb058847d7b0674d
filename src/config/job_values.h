// The value forms of a job file that are not plain numbers or durations: RFC 3339 date-times,
// memory sizes and CPU counts. Pure functions; thread-safe. Messages name the value, not the field.
#ifndef SQUEEZE_CONFIG_JOB_VALUES_H_
#define SQUEEZE_CONFIG_JOB_VALUES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

// "2026-12-01T18:00:00Z", "2026-12-01T19:00:00+01:00", optional fractional seconds (dropped);
// 'T' may be 't' or a space, 'Z' may be 'z'. The moment as a Time (from the epoch).
Result<Time> ParseDateTime(std::string_view text);
// "2026-12-01T18:00:00Z" (UTC); a part of a second is dropped (rounded toward the past).
std::string FormatDateTime(Time t);
// "16GiB", "512MiB", "1.5TiB" (a space before the unit is allowed) -> MiB, rounded; > 0.
Result<int64_t> ParseMemoryMib(std::string_view text);
// "4", "0.5" cores -> millicores, rounded; 1 millicore to 4096 cores.
Result<int64_t> ParseCpuMilli(std::string_view text);

// squeeze's field for what Slurm (or Kubernetes) users call by another name; empty if none.
std::string_view SlurmFieldName(std::string_view key);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_JOB_VALUES_H_
