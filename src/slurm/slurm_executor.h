// SlurmExecutor runs the attempts of jobs that squeeze placed on a Slurm pool: each attempt is
// one batch job (sbatch) named squeeze-ID.ATTEMPT, on the nodes the scheduler chose (--nodes,
// --nodelist, one task per node, the same GPUs as GRES on each; Slurm binds
// CUDA_VISIBLE_DEVICES), its output in DIR/logs/ID.ATTEMPT.log and the checkpoint protocol of
// the local executor (batch_script.h; a run of several nodes runs one srun task per node). It learns a run ended from the exit record its batch
// script writes (DIR/logs/ID.ATTEMPT.exit) at the next Poll; else, and for what only Slurm
// knows (a node failure, a requeue, a time limit), it follows them with `squeue --json`, and
// finished ones that squeue has forgotten with `scontrol show job`; it asks for a checkpoint with
// `scancel --signal=USR1 --batch` and stops with `scancel` (SIGTERM, then SIGKILL after the
// cluster's KillWait). Nothing is submitted twice: DIR/slurm/ID.ATTEMPT.sbatch records every
// submission before Start returns, and before submitting, Start looks for a Slurm job of that
// name and comment (a daemon killed between sbatch and that file).
// What Slurm says is read from a SlurmWatch (sinfo and squeue, on its own thread in the
// daemon): a run that Slurm ended by a node failure, requeued on its own (its copy is cancelled
// first) or forgot while its controller answers ends as lost (ExitStatus::lost); while the
// controller does not answer, nothing is judged and no Slurm command is run (a stop waits
// for its return). A run Slurm keeps waiting behind jobs squeeze does not run is cancelled and
// ends lost. Report() gives the nodes' states, where Slurm runs each run, the GPUs others' jobs
// hold, and the squeeze-* jobs it does not follow.
// Thread-safe: starts of different jobs may run at once (the daemon's outbox runs several
// sbatch in parallel); no lock is held while sbatch or scancel runs for a start or a stop.
#ifndef SQUEEZE_SLURM_SLURM_EXECUTOR_H_
#define SQUEEZE_SLURM_SLURM_EXECUTOR_H_

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "exec/command_runner.h"
#include "exec/executor.h"
#include "exec/unix_account.h"
#include "slurm/slurm_output.h"
#include "slurm/slurm_watch.h"

namespace squeeze {

struct SlurmExecutorOptions {
  std::string data_dir;  // DIR, on a file system the cluster's nodes share
  SlurmPoolSpec pool;    // conf (SLURM_CONF), partition, user, cluster
  int command_timeout_ms = 30000;
  int watch_interval_ms = 0;  // > 0: look at the cluster on a thread this often; 0: at each Poll
  int watch_timeout_ms = 8000;  // sinfo's and squeue's limit in a look
  // A run Slurm has had RUNNING this long counts as launched even without its script's record
  // of it: a job that erased its record does not keep its slice from ending.
  int launch_grace_ms = 60000;
};

class SlurmExecutor : public Executor {
 public:
  explicit SlurmExecutor(SlurmExecutorOptions options);

  Result<RunInfo> Start(JobId id, int attempt, const JobRequest& request,
                        const RunPlace& place, bool resume) override;
  Status RequestCheckpoint(JobId id) override;
  // `grace` is the cluster's own KillWait: scancel sends SIGTERM, then SIGKILL.
  Status Stop(JobId id, Time now, Time grace) override;
  std::vector<ExecEvent> Poll(Time now) override;
  Result<std::vector<RunInfo>> Reattach() override;
  std::optional<std::string> BackendStatus(JobId id) const override;
  std::optional<BackendReport> Report() const override;
  void Release(JobId id) override {
    std::lock_guard lock(mu_);
    runs_.erase(id);
  }
  bool ReportsLaunches() const override { return true; }
  bool IsRunning(JobId id) const override {
    std::lock_guard lock(mu_);
    return runs_.count(id) > 0;
  }
  size_t RunningCount() const override {
    std::lock_guard lock(mu_);
    return runs_.size();
  }

  // The Slurm view of a running job (state, reason, GPUs Slurm gave it), as of the last Poll.
  std::optional<SlurmJob> SlurmView(JobId id) const;
  // Whether the last squeue answered; the message when it did not (controller down).
  std::optional<std::string> Unreachable() const {
    std::lock_guard lock(mu_);
    return unreachable_;
  }

 private:
  struct Run {
    RunInfo info;
    int64_t slurm_id = 0;
    int64_t submitted_ms = 0;  // steady clock after sbatch: an older look may not list it
    std::optional<SlurmJob> last_seen;
    std::string ran_on;        // the nodes Slurm last ran it on
    std::vector<std::string> asked_nodes;  // the nodes it was submitted to (--nodelist)
    int64_t failed_record_ms = 0;  // several nodes: when a failed exit record was first read
    std::string lost;          // why Slurm lost it, once squeeze cancelled Slurm's own copy
    bool cancel_due = false;   // a stop asked while the controller did not answer
    bool stop_asked = false;   // squeeze stopped it (Stop): its end is no node's failure
    bool checkpoint_due = false;  // a checkpoint asked before its script ran: sent at a Poll
    bool launch_reported = false;  // its script's start was reported (kStarted)
    int64_t running_since_ms = 0;  // steady clock when a look first saw it RUNNING
  };
  enum class Known { kEnded, kLive, kForgotten, kNoAnswer };
  // Start without the lock: the batch script written and submitted (or found submitted).
  Result<Run> Submit(JobId id, int attempt, const JobRequest& request, const RunPlace& place,
                     bool resume, const std::string& what);
  // Writes the attempt's exit record and batch script and submits it: the Slurm job's id.
  Result<int64_t> SubmitBatch(JobId id, int attempt, const JobRequest& job, const RunPlace& place,
                              bool resume, const std::optional<UnixAccount>& owner, const std::string& script,
                              const std::string& what);
  // The Slurm job id of `id`'s run; an error when it does not run here.
  Result<int64_t> SlurmIdOf(JobId id) const;
  // Whether the run's batch script runs and passes signals on (its exit record says so).
  bool ScriptStarted(JobId id, int attempt) const;
  Result<CommandOutput> Slurm(const std::vector<std::string>& argv) const;
  // sbatch for a run of `owner`'s, with exactly the owner's base environment, which the run
  // starts from (--export=ALL), as a local run does; never the daemon's. Not --export=NONE:
  // Slurm would run the owner's login shell on the node before each launch (--get-user-env),
  // seconds for a shell that sets up conda or pyenv, tens of seconds on a busy node, while the
  // run's GPUs wait.
  Result<CommandOutput> SbatchAs(const std::vector<std::string>& argv,
                                 const UnixAccount& owner) const;
  Result<std::vector<SlurmJob>> Squeue();
  // A job squeue no longer lists: scontrol's record of it (its end when kEnded).
  Known Ended(int64_t slurm_id, SlurmJob* ended) const;
  // How `run` stands in `look`: nullopt while it runs, else how it ended. `strangers`: node ->
  // a job squeeze does not run that holds GPUs there (ForeignHolders).
  std::optional<ExitStatus> Judge(Run& run, const SlurmLook& look,
                                  const std::map<std::string, std::string>& strangers);
  // The Slurm jobs this executor follows: its runs', and those ended by their exit record that
  // Slurm may still list. Called with mu_ held.
  std::set<int64_t> FollowedIds() const;
  // The nodes of `look` where jobs this executor does not follow hold GPUs, with one of them
  // in words.
  std::map<std::string, std::string> ForeignHolders(const SlurmLook& look) const;
  // A checkpoint event for each run (or `run`) whose marker changed since the last one.
  void CheckpointEvents(std::vector<ExecEvent>& events);
  void CheckpointEvent(JobId id, Run& run, std::vector<ExecEvent>& events);
  Status Scancel(const std::vector<std::string>& args) const;
  // The controller did not answer the latest look: its message.
  std::optional<std::string> Away() const;
  std::string SubmittedPath(JobId id, int attempt) const;
  // DIR/logs/ID.ATTEMPT.exit: what the batch script writes as its command ends.
  std::string ExitRecordPath(JobId id, int attempt) const;
  // The accounts whose files a run of `id` may leave in the data directory (its exit record,
  // its checkpoint marker): the owner of its checkpoint folder (given to the job's account at
  // its start), the pool's slurm.user and the daemon's own. Nothing else is read.
  std::vector<uid_t> AccountsOf(JobId id) const;
  // The run's exit record (a file its batch script writes), read as ReadOwnedSmallFile reads.
  std::string ReadExitRecord(JobId id, int attempt) const;
  void FollowEndedByRecord(const SlurmLook& look);
  // The exit a run's record holds, once its script has written it.
  // The run's end as its exit record says; a kStarted event first, once, when the record is the
  // first sign of its script or Slurm has run it for launch_grace_ms.
  std::optional<ExitStatus> ExitRecorded(JobId id, Run& run, std::vector<ExecEvent>& events) const;
  // A kStarted event for the run, once.
  static void ReportLaunch(JobId id, Run& run, std::vector<ExecEvent>& events);
  // A run of several nodes whose record says it failed: a node that died took its rank with it
  // and srun ended the others, so the record comes before Slurm has noticed the node. The
  // verdict waits for Slurm's looks, up to kNodeVerdictMs: a node of the run reported in
  // trouble makes it a lost run (queued again from its checkpoint, not a failure); else the
  // record stands. nullopt while it waits. A run squeeze stopped is not judged (Poll).
  std::optional<ExitStatus> SeveralNodesVerdict(Run& run, const ExitStatus& recorded) const;
  // --comment of its Slurm jobs: "squeeze job ID of DIR (INSTANCE)", INSTANCE a random word
  // kept in DIR/slurm/instance. Only a job of squeeze's name with this comment is taken for
  // one of this data directory's: another one (or an earlier one at the same path) may use
  // the same cluster, and the same ids.
  std::string Comment(JobId id) const;

  SlurmExecutorOptions options_;
  std::string instance_;
  std::unique_ptr<SlurmWatch> watch_;
  mutable std::mutex mu_;   // guards what follows (Poll holds it throughout)
  int64_t judged_seq_ = 0;  // the look the runs were last judged against
  std::map<JobId, Run> runs_;
  // Slurm jobs whose run ended by its exit record, and when the record was read or the job last
  // cancelled (steady ms): Slurm should end them within moments; one still live long after is
  // cancelled (again every 30 s). Followed until Slurm says it ended, so that squeeze's own
  // run winding down (on a node that went down, on a loaded machine) is never taken for a
  // stranger's job that the run after it waits behind.
  std::map<int64_t, int64_t> ended_by_record_;
  std::set<JobId> starting_;  // a Start in progress
  std::optional<std::string> unreachable_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SLURM_SLURM_EXECUTOR_H_
