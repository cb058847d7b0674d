// The scheduler's counters (core/engine_state.h) into a simulation's result: the figures of a
// run the simulator reads from the core rather than counting itself. Pure.
#ifndef SQUEEZE_SIM_SIM_COUNTERS_H_
#define SQUEEZE_SIM_SIM_COUNTERS_H_

#include <vector>

#include "core/engine_state.h"
#include "sim/simulator.h"

namespace squeeze {

void CopyCounters(const SchedulerCounters& counters, SimResult* result);
// Adds a run's GPU time, from `run_start` to `end`, to the pools it held GPUs of (by pool index).
void ChargePools(const ClusterState& cluster, const Job& job, Time run_start, Time end,
                 std::vector<double>* pool_gpu_s);
// What a finished elastic job's record says of its widths (gpus: its reference width).
void RecordWidths(const Job& job, JobRecord* record);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_SIM_COUNTERS_H_
