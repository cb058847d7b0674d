// The scheduler's counters (core/engine_state.h) into a simulation's result: the figures of a
// run the simulator reads from the core rather than counting itself. Pure.
#ifndef SQUEEZE_SIM_SIM_COUNTERS_H_
#define SQUEEZE_SIM_SIM_COUNTERS_H_

#include "core/engine_state.h"
#include "sim/simulator.h"

namespace squeeze {

void CopyCounters(const SchedulerCounters& counters, SimResult* result);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_SIM_COUNTERS_H_
