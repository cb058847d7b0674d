// The supervisor's watch over one started run, until its last process is gone: it copies the
// job's output into the run's log (at most max_log_bytes, then a note and the rest dropped, so a
// job cannot fill the disk through a root-owned file), reaps every process the supervisor
// adopted (it is their subreaper), relays the checkpoint marker every second, and when the
// job's main process ends, ends what is left of the run: SIGTERM to each process, SIGKILL after
// the grace. Used by the supervisor only; single-threaded.
#ifndef SQUEEZE_EXEC_RUN_WATCH_H_
#define SQUEEZE_EXEC_RUN_WATCH_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <utility>

#include "exec/marker_relay.h"
#include "exec/run_files.h"
#include "exec/run_tracking.h"

namespace squeeze {

struct WatchedRun {
  pid_t job_pid = 0;
  int output_fd = -1;      // the read end of the job's output pipe (taken over)
  int failure_fd = -1;     // the read end of the pipe ExecJob reports a failure on (taken over)
  int log_fd = -1;         // the run's log (not taken over)
  int64_t max_log_bytes = 0;  // 0 = no limit
  int leftover_grace_s = 10;
  RunProcesses processes;  // the run's cgroup, or the supervisor itself
};

class RunWatch {
 public:
  RunWatch(WatchedRun run, MarkerRelay& marker) : run_(run), marker_(marker) {}
  // Until the main process has ended and no process of the run is left; how the main ended.
  ExitStatus Run();
  // The failure ExecJob reported (its step and errno), if it could not exec the job.
  const std::optional<std::pair<int, int>>& failure() const { return failure_; }

 private:
  // Waits for output, a failure report or a child's end, up to `timeout_ms`, and takes them.
  void Serve(int timeout_ms);
  void CopyOutput();
  void ReadFailure();
  void Reap();
  void EndLeftovers();

  WatchedRun run_;
  MarkerRelay& marker_;
  std::optional<ExitStatus> main_exit_;
  std::optional<std::pair<int, int>> failure_;
  int64_t logged_ = 0;
  bool log_full_ = false;
};

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_RUN_WATCH_H_
