// A job history as `squeeze advise` reads it: when each job wanted GPUs, how many, for how long,
// and whether it can survive an interruption. Built from a trace (sim/trace.h) or from the
// daemon's store; plain data.
#ifndef SQUEEZE_ADVISE_HISTORY_H_
#define SQUEEZE_ADVISE_HISTORY_H_

#include <optional>
#include <string>
#include <vector>

#include "core/types.h"
#include "sim/trace.h"

namespace squeeze {

struct HistoryJob {
  JobId id = 0;
  std::string team;  // empty = none
  std::string pool;  // home pool; empty = any
  int gpus = 1;      // a fraction of a GPU counts as one
  Time submit = 0;
  // When it held its GPUs. A trace gives no start: the job is taken as started at submit (the
  // demand had every job been served at once).
  Time start = 0;
  Time end = 0;
  bool checkpointable = false;   // saves its state when asked
  Time checkpoint_interval = 0;  // periodic checkpoints; 0 = none
  Time checkpoint_cost = 0;      // 0 = not known
  std::optional<Time> checkpoint_stall;  // asynchronous checkpoints' pause (core/job.h)
  Time restart_overhead = 0;     // core/job.h RestartOverhead
  bool fault_tolerant = false;   // the job says so (preprocessing, sweeps, ablations)
  Time Work() const { return end - start; }
  // Survives an interruption without starting again from zero, or says it tolerates one.
  bool FaultTolerant() const {
    return fault_tolerant || checkpointable || checkpoint_interval > 0;
  }
};

struct History {
  std::string source;
  std::vector<HistoryJob> jobs;
  bool has_teams = false;        // some job names a team
  bool has_start_times = false;  // start and end are the real ones (a store), not submit-based
};

// Each trace job as started at its submit time and run for its duration.
History HistoryFromTrace(const Trace& trace);

}  // namespace squeeze

#endif  // SQUEEZE_ADVISE_HISTORY_H_
