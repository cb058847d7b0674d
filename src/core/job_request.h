// What a user submits to the live queue (`squeeze serve`): the scheduling profile the core
// sees, and how to run the job, which only the executor sees. Plain data.
#ifndef SQUEEZE_CORE_JOB_REQUEST_H_
#define SQUEEZE_CORE_JOB_REQUEST_H_

#include <map>
#include <string>
#include <vector>

#include "core/checkpoint_store.h"
#include "core/job.h"

namespace squeeze {

struct JobRequest {
  JobSpec spec;  // name, team, gpus, gpu_milli, gpu_models, urgency, preemptible, ...
  // argv: command[0] is found on PATH and run with these arguments, never through a shell
  // unless the job names one (["bash", "-c", "..."]).
  std::vector<std::string> command;
  std::string workdir;                     // empty = the data directory's job folder
  std::map<std::string, std::string> env;  // added to the daemon's environment
  // The Unix account the run executes as (a root daemon runs each job as its owner); empty =
  // the daemon's own user. Set by the daemon when it starts the run, never by the submitter.
  std::string run_as;
  int max_retries = -1;                    // -1 = the daemon's default
  // A batch script's tasks (sbatch's --ntasks, or --nodes x --ntasks-per-node): the command
  // runs once, on the first of the run's nodes, as sbatch runs a script, in an allocation of
  // that many tasks that its own srun starts. 0: on a run of several nodes, the command runs
  // once on each node (SQUEEZE_NODE_RANK), with no srun of its own.
  int tasks = 0;
  // Submitted held (sbatch --hold): it waits, whatever is free, until released.
  bool hold = false;
  // Not to start before then (sbatch --begin); a time already past changes nothing.
  std::optional<Time> begin;
  // Where the run's stdout and stderr go (sbatch -o/-e), as given: %j (job id), %A (array id),
  // %a (task index), %x (name), %u (user), %% are replaced at the start; a relative path is
  // taken from the workdir. Empty: the run's own log in the data directory (squeeze logs);
  // error_path empty: stderr goes with stdout.
  std::string output_path;
  std::string error_path;
  // The dependency as the user wrote it ("afterok:12:13"), for show; spec.dependencies holds
  // what it became (job ids, arrays expanded).
  std::string dependency;
  // A task of a job array: how the array was asked for ("0-99:2%8") and its number of tasks
  // (its tasks have consecutive ids from spec.array_id).
  std::string array;
  int array_size = 0;
  // Object storage for its checkpoints (job file checkpoint_store), besides its checkpoint
  // folder; spec.checkpoint_cost includes its upload (UploadSeconds).
  CheckpointStore checkpoint_store;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_JOB_REQUEST_H_
