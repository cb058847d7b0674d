// SlurmExecutor runs the attempts of jobs that squeeze placed on a Slurm pool: each attempt is
// one batch job (sbatch) named squeeze-ID.ATTEMPT, with its GPUs as GRES (Slurm binds
// CUDA_VISIBLE_DEVICES), its output in DIR/logs/ID.ATTEMPT.log and the checkpoint protocol of
// the local executor (batch_script.h). It follows them with `squeue --json`, and finished ones
// that squeue has forgotten with `scontrol show job`; it asks for a checkpoint with
// `scancel --signal=USR1 --batch` and stops with `scancel` (SIGTERM, then SIGKILL after the
// cluster's KillWait). Nothing is submitted twice: DIR/slurm/ID.ATTEMPT.sbatch records every
// submission before Start returns, and before submitting, Start looks for a Slurm job of that
// name (a daemon killed between sbatch and that file). Thread-compatible.
#ifndef SQUEEZE_SLURM_SLURM_EXECUTOR_H_
#define SQUEEZE_SLURM_SLURM_EXECUTOR_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "exec/command_runner.h"
#include "exec/executor.h"
#include "slurm/slurm_output.h"

namespace squeeze {

struct SlurmExecutorOptions {
  std::string data_dir;  // DIR, on a file system the cluster's nodes share
  SlurmPoolSpec pool;    // conf (SLURM_CONF), partition, user, cluster
  int command_timeout_ms = 30000;
};

class SlurmExecutor : public Executor {
 public:
  explicit SlurmExecutor(SlurmExecutorOptions options);

  Result<RunInfo> Start(JobId id, int attempt, const JobRequest& request,
                        const std::vector<int>& gpu_indices, bool resume) override;
  Status RequestCheckpoint(JobId id) override;
  // `grace` is the cluster's own KillWait: scancel sends SIGTERM, then SIGKILL.
  Status Stop(JobId id, Time now, Time grace) override;
  std::vector<ExecEvent> Poll(Time now) override;
  Result<std::vector<RunInfo>> Reattach() override;
  std::optional<std::string> BackendStatus(JobId id) const override;
  bool IsRunning(JobId id) const override { return runs_.count(id) > 0; }
  size_t RunningCount() const override { return runs_.size(); }

  // The Slurm view of a running job (state, reason, GPUs Slurm gave it), as of the last Poll.
  const SlurmJob* SlurmView(JobId id) const;
  // Whether the last squeue answered; the message when it did not (controller down).
  const std::optional<std::string>& Unreachable() const { return unreachable_; }

 private:
  struct Run {
    RunInfo info;
    int64_t slurm_id = 0;
    std::optional<SlurmJob> last_seen;
  };
  Result<CommandOutput> Slurm(const std::vector<std::string>& argv) const;
  Result<std::vector<SlurmJob>> Squeue();
  // A job squeue no longer lists: its end from scontrol, or nullopt when Slurm has lost it.
  std::optional<SlurmJob> Ended(int64_t slurm_id) const;
  std::string SubmittedPath(JobId id, int attempt) const;

  SlurmExecutorOptions options_;
  std::map<JobId, Run> runs_;
  std::optional<std::string> unreachable_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SLURM_SLURM_EXECUTOR_H_
