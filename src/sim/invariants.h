// The simulator's own ledger of what the scheduler decided, kept apart from the core's state so
// that it can catch the core's mistakes: no GPU given twice, every job's service adds up to its
// duration plus the overheads charged, and the core's accounting agrees.
#ifndef SQUEEZE_SIM_INVARIANTS_H_
#define SQUEEZE_SIM_INVARIANTS_H_

#include <unordered_map>
#include <vector>

#include "core/cluster_state.h"
#include "core/job.h"
#include "core/status.h"

namespace squeeze {

class InvariantChecker {
 public:
  explicit InvariantChecker(const ClusterState& cluster);

  // A run starts: its GPUs must be free in this ledger, and a task of an array with a limit
  // (%N) must not bring the array's running tasks above it (checked at every start).
  Status OnStart(const Job& job);
  // The most tasks of one limited array seen running at once.
  int MostArrayRunning() const { return most_array_running_; }
  // A run ends at `now`: asked to stop at `stop_at` (kNever: it finished by itself).
  void OnStop(const Job& job, Time run_start, Time stop_at, Time now);
  // The job is done: its service must add up to `duration` plus what was charged.
  Status OnFinish(const Job& job, Time duration);
  // GPU-seconds of a job's runs so far spent on overhead, lost work and checkpoints (each run
  // at its width); before OnFinish.
  double LostGpuSeconds(JobId id) const;

 private:
  struct Ledger {
    double held_s = 0;     // seconds holding GPUs, over all runs
    double held_gpu_s = 0;  // the same times the GPUs held (each run its own width)
    double lost_gpu_s = 0;  // GPU-seconds of overhead, lost work and checkpoints
    Time overhead = 0;     // restart overhead charged
    Time lost = 0;         // progress not saved when stopped
    Time checkpoint = 0;   // time between a stop request and the stop
    Time slow = 0;         // run time beyond the progress made, on a run slower than 1
    Time final_progress = 0;
  };
  std::vector<std::vector<int>> used_milli_;  // [node][gpu]
  std::unordered_map<JobId, Ledger> ledgers_;
  std::unordered_map<JobId, int> array_running_;  // limited arrays: tasks running now
  int most_array_running_ = 0;
};

}  // namespace squeeze

#endif  // SQUEEZE_SIM_INVARIANTS_H_
