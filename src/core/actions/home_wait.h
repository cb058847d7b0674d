// How long a waiting job is expected to wait at home: when whole GPUs of its home pool come
// free by the expected ends of the jobs there, against the GPUs the jobs ahead of it want.
// Shared by the actions that weigh starting elsewhere (region, spot, colocate) against waiting.
#ifndef SQUEEZE_CORE_ACTIONS_HOME_WAIT_H_
#define SQUEEZE_CORE_ACTIONS_HOME_WAIT_H_

#include <utility>
#include <vector>

#include "core/cycle.h"

namespace squeeze {

// When whole GPUs of a pool (-1: every pool whose capacity is not taken away) come free by
// the expected ends of the jobs on it: (time, GPUs), ascending. Jobs whose end is unknown are
// left out; so are unavailable nodes.
using FreeingSchedule = std::vector<std::pair<Time, int>>;
FreeingSchedule ScheduleOf(const CycleContext& c, int pool);

// How long until `wanted` whole GPUs are free, counting `free` now and the schedule (kNever if
// the jobs with known ends never free enough).
Time WaitFor(const CycleContext& c, const FreeingSchedule& schedule, int free, int wanted);

// How long the job is expected to wait in its home pool behind `ahead` whole GPUs wanted by the
// waiting jobs before it.
Time WaitAtHome(const CycleContext& c, const Job& job, const FreeingSchedule& schedule,
                int ahead);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_ACTIONS_HOME_WAIT_H_
