// LocalExecutor runs jobs as real processes on this machine, each under a squeeze-supervisor
// that outlives the daemon, and follows them through the files described in run_files.h.
// The daemon owns one LocalExecutor; it is thread-safe, and starts of different jobs may run at
// once (the daemon's outbox forks several supervisors in parallel).
// Signals (see docs/checkpoint-protocol.md): a checkpoint request is SIGUSR1 to the job's main
// process only (its helpers keep the default action, which would kill them); Stop is SIGTERM
// to the job's process group and to every other process of the run (its cgroup, or the
// supervisor's descendants: run_tracking.h), then SIGKILL to all of them once the grace has
// passed, as Poll(now) finds it. The executor never sleeps except briefly in Start, until the
// supervisor has recorded the job's pid. It never opens a file a job's account controls: the
// supervisor relays the checkpoint marker into a file of its own (marker_relay.h).
#ifndef SQUEEZE_EXEC_LOCAL_EXECUTOR_H_
#define SQUEEZE_EXEC_LOCAL_EXECUTOR_H_

#include <sys/types.h>

#include <map>
#include <mutex>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "core/job_request.h"
#include "core/status.h"
#include "core/types.h"
#include "exec/executor.h"
#include "exec/run_files.h"
#include "exec/run_tracking.h"

namespace squeeze {

struct ExecutorOptions {
  std::string data_dir;         // DIR: runs/, logs/, checkpoints/, jobs/ live under it
  std::string supervisor_path;  // empty = squeeze-supervisor beside /proc/self/exe
  int start_timeout_ms = 5000;   // how long Start waits for the supervisor's run file
  TrackingSetup tracking;        // how each run's processes are tracked (run_tracking.h)
  int64_t max_log_bytes = 0;     // what each run's log may hold; 0 = no limit
  int leftover_grace_s = 10;     // processes left when a job's main process ends: SIGTERM, this, SIGKILL
};

class LocalExecutor : public Executor {
 public:
  explicit LocalExecutor(ExecutorOptions options);

  // Starts attempt `attempt` of job `id`. Refuses when the job already runs here or when that
  // attempt was ever started (its run file exists), so nothing starts twice.
  Result<RunInfo> Start(JobId id, int attempt, const JobRequest& request,
                        const RunPlace& place, bool resume) override;
  // Whether the job could start here: its workdir entered and its command found and runnable,
  // checked as the account it runs as (request.run_as) by squeeze-supervisor --check. The
  // error names the path and the user.
  Status CheckRunnable(const JobRequest& request) const override;
  // SIGUSR1 to the job's main process. The job answers with a new COMPLETE marker.
  Status RequestCheckpoint(JobId id) override;
  // SIGTERM to the job's process group now; SIGKILL to it at the first Poll at or after
  // now + grace if it has not ended.
  Status Stop(JobId id, Time now, Time grace) override;
  // Ends (kExited, removing the run) and new checkpoints (kCheckpoint, each marker content
  // once); a checkpoint is reported before the exit of the same run. Sends due SIGKILLs.
  std::vector<ExecEvent> Poll(Time now) override;
  // After a daemon restart: takes back every job's latest run. Running ones are followed by
  // Poll from now on; ended ones come back with `exit` set (the caller ignores those its store
  // has already recorded) and are not reported again. Starts nothing. A start a killed daemon
  // left between its fork and the supervisor's run file is waited for (up to the start
  // timeout), so its run is taken back and never started again.
  Result<std::vector<RunInfo>> Reattach() override;

  bool IsRunning(JobId id) const override {
    std::lock_guard lock(mu_);
    return runs_.count(id) > 0;
  }
  size_t RunningCount() const override {
    std::lock_guard lock(mu_);
    return runs_.size();
  }
  const std::string& supervisor_path() const { return options_.supervisor_path; }

 private:
  struct Run {
    RunInfo info;
    uint64_t supervisor_start = 0;
    std::string cgroup;           // the run's cgroup; empty = tracked by its supervisor
    std::optional<Time> kill_at;  // set by Stop
  };

  Result<Run> StartRun(JobId id, int attempt, const JobRequest& request,
                       const std::vector<int>& gpu_indices, bool resume, const std::string& what);
  void WaitForInterruptedStarts(const std::string& runs_dir);
  Result<RunRecord> WaitForRunRecord(pid_t intermediate, const RunPaths& paths);
  std::optional<std::string> NewCheckpoint(Run& run) const;
  Status Signal(JobId id, bool group, int sig);  // under mu_
  // The run from its run file (Start, Reattach).
  Run RunFrom(JobId id, int attempt, const RunRecord& record) const;

  ExecutorOptions options_;
  mutable std::mutex mu_;  // guards runs_ and starting_ (never held while a start waits)
  std::map<JobId, Run> runs_;
  std::set<JobId> starting_;  // a Start in progress
};

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_LOCAL_EXECUTOR_H_
