// What runs a job's attempts somewhere: the local executor (processes on this machine under a
// supervisor) and, for pools of backend slurm, a Slurm cluster. The daemon's queue drives any
// of them the same way; the checkpoint protocol (docs/checkpoint-protocol.md) is the same for
// all. Implementations are thread-safe: the daemon's outbox starts and stops runs of different
// jobs from several threads at once, while its loop polls (never two calls for one job at once).
#ifndef SQUEEZE_EXEC_EXECUTOR_H_
#define SQUEEZE_EXEC_EXECUTOR_H_

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/job_request.h"
#include "core/status.h"
#include "core/types.h"
#include "exec/run_files.h"

namespace squeeze {

// One run (an attempt) of a job, as Start or Reattach sees it.
struct RunInfo {
  JobId id = 0;
  int attempt = 0;
  pid_t supervisor_pid = 0;         // local: the supervisor; 0 elsewhere
  pid_t pgid = 0;                   // local: the job's pid and process group; 0 elsewhere
  std::optional<ExitStatus> exit;   // set when the run has ended
  std::string log_path;
  std::string last_checkpoint;      // the marker's content when last seen; empty = none
  std::string backend_id;           // where the backend knows it (a Slurm job id); may be empty
};

// Where the scheduler placed a run: this machine's GPUs by CUDA index (what
// CUDA_VISIBLE_DEVICES names, for an executor that binds GPUs itself) and, for a backend that
// runs nodes of its own (a Slurm cluster), each node by name with its GPUs there (the
// scheduler's indices on that node), in the placement's order.
struct RunPlace {
  struct Node {
    std::string name;
    std::vector<int> gpus;
  };
  std::vector<int> cuda_gpus;
  std::vector<Node> nodes;
};

struct ExecEvent {
  // kStarted: the run's process began (an executor that ReportsLaunches says so once per run,
  // before its checkpoints and exit).
  enum class Kind { kExited, kCheckpoint, kStarted };
  Kind kind = Kind::kExited;
  JobId id = 0;
  int attempt = 0;
  ExitStatus exit;         // kExited
  std::string checkpoint;  // kCheckpoint: the marker's content (e.g. the step)
};

// What a backend that runs nodes of its own (a Slurm cluster) says of them, and of the jobs it
// runs that the executor does not follow, as of its last look.
struct BackendReport {
  std::string cluster;
  bool reachable = true;                  // its controller answered the last look
  std::string error;                      // why not
  std::optional<Time> unreachable_since;  // since when it does not answer
  std::map<std::string, std::string> nodes;  // every node it lists -> "" (usable) or its trouble
  std::vector<std::string> unknown_jobs;  // "Slurm job 12 'squeeze-999999.1' RUNNING on n0"
  // Where it runs each run it follows that it has started: job -> each node by name with the
  // GPU indices there (a run still waiting in the backend is absent).
  std::map<JobId, std::vector<RunPlace::Node>> placed;
  // GPUs that jobs it does not follow hold (other users' jobs), by node, and those jobs in words:
  // "Slurm job 4 'train' RUNNING on east-n0".
  std::map<std::string, std::vector<int>> foreign_gpus;
  std::vector<std::string> foreign_jobs;
  Time at = 0;                            // when it looked
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Starts attempt `attempt` of job `id` where `place` says. Refuses an attempt that was ever
  // started.
  virtual Result<RunInfo> Start(JobId id, int attempt, const JobRequest& request,
                                const RunPlace& place, bool resume) = 0;
  // SIGUSR1 to the job's main process: please checkpoint.
  virtual Status RequestCheckpoint(JobId id) = 0;
  // SIGTERM now; SIGKILL once `grace` has passed (at a Poll at or after now + grace).
  virtual Status Stop(JobId id, Time now, Time grace) = 0;
  // Ends and new checkpoints since the last Poll; a checkpoint before the exit of its run.
  virtual std::vector<ExecEvent> Poll(Time now) = 0;
  // After a daemon restart: every job's latest run, running or ended. Starts nothing.
  virtual Result<std::vector<RunInfo>> Reattach() = 0;
  // What the backend says of a running job, for `why` ("Slurm job 12 on east: PENDING
  // (Resources)"); nullopt when it has nothing to add (the local executor).
  virtual std::optional<std::string> BackendStatus(JobId id) const { return std::nullopt; }
  // The backend's nodes and strangers (BackendReport); nullopt for one without nodes of its own
  // or before its first look.
  virtual std::optional<BackendReport> Report() const { return std::nullopt; }
  // Stop following `id`'s run without touching it: Reattach found a run the store does not
  // know (it is then reported as unknown, and left alone).
  virtual void Release(JobId id) {}
  // Whether `request` could start here as it is (its workdir and command, as request.run_as),
  // asked when the job is submitted; the error names the path and the user. Thread-safe. The
  // default says yes (a backend whose nodes check for themselves).
  virtual Status CheckRunnable(const JobRequest& request) const { return Status::Ok(); }
  // Whether a run's process starts some time after Start returns (a Slurm batch job waits for
  // the controller and a node's slurmd), reported by a kStarted event; false: it runs when
  // Start returns.
  virtual bool ReportsLaunches() const { return false; }
  virtual bool IsRunning(JobId id) const = 0;
  virtual size_t RunningCount() const = 0;
};

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_EXECUTOR_H_
