// A job-profile trace's arrays and dependencies made into what the simulator replays: a row
// with an `array` becomes one job per task (the first keeps the row's id, which is the array's
// id; the others take fresh ids above the trace's largest, in task order, submitted with it),
// and a `dependency` becomes spec.dependencies by job ids (an array's id stands for all its
// tasks, ID_TASK for one). Pure.
#ifndef SQUEEZE_SIM_READERS_TRACE_LINKS_H_
#define SQUEEZE_SIM_READERS_TRACE_LINKS_H_

#include <vector>

#include "core/status.h"
#include "sim/trace.h"

namespace squeeze {

// Errors name the job and its cell: a dependency on a job the trace does not hold, or on one
// submitted after it (it could not be named at its submission), or on a task its array lacks.
Status ExpandTraceLinks(std::vector<TraceJob>& jobs);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_READERS_TRACE_LINKS_H_
