// Basic value types of the scheduling model: time, ids, urgency classes, job states.
#ifndef SQUEEZE_CORE_TYPES_H_
#define SQUEEZE_CORE_TYPES_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace squeeze {

// A moment or a length of time, counted in ticks: kSecond ticks make a second. The core never
// reads a clock: every call that needs "now" is given it. Every duration in the code is written
// with the units below ("30 * kMinute"), never as a bare number of seconds; values cross the
// project's edges (traces, job files, the store, the API, Slurm) through Seconds / ToSeconds /
// WholeSeconds, so the tick can change without changing any figure.
using Time = int64_t;
constexpr Time kNever = std::numeric_limits<Time>::max() / 4;

#ifndef SQUEEZE_TICKS_PER_SECOND
#define SQUEEZE_TICKS_PER_SECOND 1000  // a tick is a millisecond
#endif
constexpr Time kSecond = SQUEEZE_TICKS_PER_SECOND;
constexpr Time kMinute = 60 * kSecond;
constexpr Time kHour = 60 * kMinute;
constexpr Time kDay = 24 * kHour;
constexpr Time kWeek = 7 * kDay;

// Whole seconds from outside (a trace, a job file, the store, the API) to Time.
constexpr Time Seconds(int64_t seconds) { return seconds * kSecond; }
// Time to seconds, for figures and rates ("avg_queue_s", GPU-hours); exact while t / kSecond is.
constexpr double ToSeconds(Time t) { return static_cast<double>(t) / static_cast<double>(kSecond); }
// Time to whole seconds, rounded down (toward the past, also before 1970), for what goes out in
// whole seconds (the API's timestamps, Slurm, the store's older columns).
constexpr int64_t WholeSeconds(Time t) {
  return t >= 0 ? t / kSecond : -((-t + kSecond - 1) / kSecond);
}
// Fractional seconds from outside (a trace's "12.5") to Time, rounded to the nearest tick.
Time SecondsToTime(double seconds);
// Time to whole milliseconds (the job store's times; a wait on a std::chrono clock), and back.
// Saturated where a tick is longer: kNever stays the furthest time.
static_assert(kSecond % 1000 == 0 || 1000 % kSecond == 0,
              "milliseconds and Time's ticks must divide one another");
constexpr int64_t WholeMilliseconds(Time t) {
  if constexpr (kSecond >= 1000) {
    return t / (kSecond / 1000);
  } else {
    constexpr int64_t kPer = 1000 / kSecond;
    if (t > std::numeric_limits<int64_t>::max() / kPer) return std::numeric_limits<int64_t>::max();
    if (t < std::numeric_limits<int64_t>::min() / kPer) return std::numeric_limits<int64_t>::min();
    return t * kPer;
  }
}
constexpr Time FromMilliseconds(int64_t ms) {
  if constexpr (kSecond >= 1000) {
    return ms * (kSecond / 1000);
  } else {
    constexpr int64_t kPer = 1000 / kSecond;
    return ms >= 0 ? ms / kPer : -((-ms + kPer - 1) / kPer);
  }
}

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
