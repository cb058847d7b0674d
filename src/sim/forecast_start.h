// When waiting jobs are expected to start, for `squeeze why`: a copy of the live scheduler
// (Scheduler::Clone: the running jobs where they run, their preemptibility, minimum runtimes,
// slices, deadlines, reservations, down and reclaimed nodes, inference load, what the orders
// learned) is driven forward through the same core, each job taken to run for its estimate.
// The driver plays what the daemon would see: a run ends when its estimate is used up, a job
// asked to stop stops after its checkpoint (Job::StopTakes), and the cycle runs at each such
// event and whenever the core asks to be woken (a slice end, a minimum runtime over, a
// deadline at risk). Pure: no clock, I/O or randomness; the live scheduler is not touched.
#ifndef SQUEEZE_SIM_FORECAST_START_H_
#define SQUEEZE_SIM_FORECAST_START_H_

#include <map>
#include <optional>
#include <vector>

#include "core/scheduler.h"
#include "core/status.h"
#include "core/types.h"

namespace squeeze {

struct ForecastOptions {
  Time horizon = 30 * 86400;  // no further ahead than this
  // nor more cycles than this (each is a whole cycle of the policy: a job deep in a long queue
  // gets a lower bound instead, not_before_s)
  int max_cycles = 300;
};

struct StartForecast {
  // Seconds from now until the target starts; nullopt when it does not start within the
  // horizon (see missing_estimate).
  std::optional<Time> in_s;
  // The other waiting jobs' starts on the way (seconds from now): the forecast of any of them.
  std::map<JobId, Time> starts_in_s;
  // For each of them, how many stops the policy had asked for before it started (0: it starts
  // on GPUs that free up by themselves).
  std::map<JobId, int> stops_before;
  // A job without an estimate that holds GPUs in the forecast when the target did not start:
  // nobody can say when it frees them.
  std::optional<JobId> missing_estimate;
  // Running jobs already past their estimate: the forecast takes them to end now.
  std::vector<JobId> overrun;
  // The forecast stopped at max_cycles before the target started: it starts no sooner than
  // this many seconds from now.
  std::optional<Time> not_before_s;
  int stops = 0;            // stops the policy asks for (preemption, slices, ...) on the way
  int cycles = 0;
};

// Errors: `target` is unknown or not waiting.
Result<StartForecast> ForecastStart(const Scheduler& live, JobId target, Time now,
                                    const ForecastOptions& options = {});
// The same on a copy the caller made (Scheduler::Clone, say under its lock), driven forward
// and left in whatever state the forecast ended.
Result<StartForecast> ForecastStartOnCopy(std::unique_ptr<Scheduler> copy, JobId target,
                                          Time now, const ForecastOptions& options = {});

}  // namespace squeeze

#endif  // SQUEEZE_SIM_FORECAST_START_H_
