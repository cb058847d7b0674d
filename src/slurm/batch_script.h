// The batch script squeeze hands to sbatch for one attempt of a job: the checkpoint protocol's
// environment (docs/checkpoint-protocol.md), the job's own env, its workdir, then its argv,
// each word single-quoted so that no shell ever interprets it. SQUEEZE_RESUME is set by the
// script itself when a complete checkpoint exists when it starts, so a run that Slurm requeues
// after a node failure resumes too. With an exit record, the argv runs as the script's child
// (the checkpoint signal and SIGTERM passed on to it); the record says "started" once the
// script passes signals on, and its exit status ("exit N") as it ends, for the daemon to see
// at once; without one, the script execs it. Pure; thread-safe.
#ifndef SQUEEZE_SLURM_BATCH_SCRIPT_H_
#define SQUEEZE_SLURM_BATCH_SCRIPT_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/job_request.h"
#include "core/status.h"
#include "core/types.h"

namespace squeeze {

// 'word' with every ' written as '\''; safe for any byte but NUL.
std::string ShellQuote(std::string_view word);

// The name squeeze gives the Slurm job of attempt `attempt` of job `id`: "squeeze-ID.ATTEMPT";
// how a restarted daemon finds its runs again (and never submits an attempt twice).
std::string SlurmJobName(JobId id, int attempt);
// The inverse; false when `name` is not one of squeeze's.
bool ParseSlurmJobName(std::string_view name, JobId& id, int& attempt);

// How a run is spread over the cluster: `nodes` nodes with `gpus_per_node` GPUs each. With more
// than one node, the command runs once on each (srun, one task per node, every task killed when
// one fails) and the signals the script is sent reach every task; a batch script's command
// (JobRequest::tasks) runs once, on the first node, and starts its tasks with its own srun. Every run learns its shape
// (docs/serve.md, "Distributed jobs"): SQUEEZE_NNODES, SQUEEZE_NODE_RANK (per task),
// SQUEEZE_NODELIST, SQUEEZE_GPUS_PER_NODE, SQUEEZE_WORLD_SIZE (nodes x GPUs per node, the
// processes `torchrun --nproc-per-node=$SQUEEZE_GPUS_PER_NODE` starts), SQUEEZE_MASTER_ADDR
// (the first node's address) and SQUEEZE_MASTER_PORT, the last two also as MASTER_ADDR and
// MASTER_PORT (torch.distributed's env://) and PET_MASTER_ADDR and PET_MASTER_PORT (torchrun's
// defaults).
struct BatchShape {
  int nodes = 1;
  int gpus_per_node = 0;
  // The daemon's SLURM_CONF, given to a job whose environment has none (scontrol needs it to
  // find the first node's address), where that file exists on the node.
  std::string slurm_conf;
  // The daemon has recorded a checkpoint of the job: with a checkpoint store, the run resumes
  // even on a node whose folder holds no copy (without one, the folder's marker decides).
  bool resume = false;
};

// The port rank 0 listens on for the job's processes: 20000 + id % 40000, so that jobs that
// share a node seldom collide.
int MasterPort(JobId id);

// `checkpoint_dir`: the job's SQUEEZE_CHECKPOINT_DIR, on a file system the nodes share with
// the daemon. An empty workdir means the checkpoint dir's job folder is not used: the script
// then stays where sbatch starts it.
std::string SlurmBatchScript(JobId id, int attempt, const JobRequest& request,
                             const std::string& checkpoint_dir,
                             const std::string& exit_record = "", const BatchShape& shape = {});

// sbatch's --output, --error and --open-mode for attempt `attempt` of `job`: the job's own
// files (core/output_path.h, filled in here for `user`, the workdir's and every % left
// escaped so that Slurm fills in nothing more) or else `log`. With a file of its own for
// stdout, the first attempt empties its files and later ones append; otherwise all append (the
// log is the daemon's). `note` gets the line the log keeps of where the output went (empty
// when it went to the log).
Result<std::vector<std::string>> SlurmOutputOptions(JobId id, int attempt, const JobRequest& job,
                                                    const std::string& user,
                                                    const std::string& log, std::string& note);

}  // namespace squeeze

#endif  // SQUEEZE_SLURM_BATCH_SCRIPT_H_
