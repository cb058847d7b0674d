// Basic value types of the scheduling model: time, ids, urgency classes, job states.
#ifndef SQUEEZE_CORE_TYPES_H_
#define SQUEEZE_CORE_TYPES_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace squeeze {

// Seconds. The core never reads a clock: every call that needs "now" is given it.
using Time = int64_t;
constexpr Time kNever = std::numeric_limits<Time>::max() / 4;

using JobId = int64_t;
constexpr int kMilliPerGpu = 1000;

enum class Urgency : uint8_t { kLow = 0, kNormal = 1, kHigh = 2, kCritical = 3 };
std::string_view UrgencyName(Urgency u);
std::optional<Urgency> ParseUrgency(std::string_view name);

enum class JobState : uint8_t {
  kPending,        // waiting to (re)start; a preempted job is pending with preemptions > 0
  kRunning,
  kCheckpointing,  // asked to checkpoint and stop; still holds its GPUs
  kDone,
  kFailed,
  kCancelled,
  kTimeout,  // stopped at its time limit (JobSpec::time_limit), after a checkpoint if it can
};
std::string_view JobStateName(JobState s);

enum class PoolKind : uint8_t { kOwned, kColocated, kSpot, kReserved, kOnDemand };
std::string_view PoolKindName(PoolKind k);
std::optional<PoolKind> ParsePoolKind(std::string_view name);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_TYPES_H_
