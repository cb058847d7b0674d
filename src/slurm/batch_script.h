// The batch script squeeze hands to sbatch for one attempt of a job: the checkpoint protocol's
// environment (docs/checkpoint-protocol.md), the job's own env, its workdir, then its argv,
// each word single-quoted so that no shell ever interprets it. SQUEEZE_RESUME is set by the
// script itself when a complete checkpoint exists when it starts, so a run that Slurm requeues
// after a node failure resumes too. With an exit record, the argv runs as the script's child
// (the checkpoint signal and SIGTERM passed on to it) and its exit status is written to the
// record ("exit N") as it ends, for the daemon to see at once; without one, the script execs
// it. Pure; thread-safe.
#ifndef SQUEEZE_SLURM_BATCH_SCRIPT_H_
#define SQUEEZE_SLURM_BATCH_SCRIPT_H_

#include <string>
#include <string_view>

#include "core/job_request.h"
#include "core/types.h"

namespace squeeze {

// 'word' with every ' written as '\''; safe for any byte but NUL.
std::string ShellQuote(std::string_view word);

// The name squeeze gives the Slurm job of attempt `attempt` of job `id`: "squeeze-ID.ATTEMPT";
// how a restarted daemon finds its runs again (and never submits an attempt twice).
std::string SlurmJobName(JobId id, int attempt);
// The inverse; false when `name` is not one of squeeze's.
bool ParseSlurmJobName(std::string_view name, JobId& id, int& attempt);

// `checkpoint_dir`: the job's SQUEEZE_CHECKPOINT_DIR, on a file system the nodes share with
// the daemon. An empty workdir means the checkpoint dir's job folder is not used: the script
// then stays where sbatch starts it.
std::string SlurmBatchScript(JobId id, int attempt, const JobRequest& request,
                             const std::string& checkpoint_dir,
                             const std::string& exit_record = "");

}  // namespace squeeze

#endif  // SQUEEZE_SLURM_BATCH_SCRIPT_H_
