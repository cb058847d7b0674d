// Reads a job as users submit it to `squeeze serve`: a YAML job file (`squeeze submit FILE`) or
// a JSON body over HTTP. Both forms go through one field table, so they accept the same fields
// with the same checks and give the same JobRequest. docs/job-file.md is the reference.
// Errors are values; a message names where (YAML: file:line:column; JSON: the source), the field
// and the value. Stateless free functions; thread-safe.
//
//   name: resnet-50                  # [A-Za-z0-9._-], 1..128, starts with a letter or digit
//   command: [python, train.py]      # required; a list of arguments, never a single string
//   workdir: /home/me/project
//   env: {OMP_NUM_THREADS: "4"}      # SQUEEZE_* is reserved for squeeze
//   gpus: 1                          # 0..1024 (default 1)
//   gpu_milli: 500                   # 1..1000 (default 1000); a fraction needs gpus: 1
//   gpu_models: [A100, H100]         # or one string
//   gpu_memory: 40GiB                # the least memory of each card, as memory is written
//   gpu_speeds: {V100: 1, K80: 0.24} # or V100:1,K80:0.24; each 0.001..100: steers cards only
//   topology: required:rack          # or preferred[:LEVEL] (default), unconstrained
//   pool: a100                       # the home pool, as named in the cluster file
//   regions: [us-east, eu-west]      # where the job (and its data) may go; or one string
//   data_gb: 250                     # GB of data, 0..1e12, copied to run in another region
//   urgency: normal                  # critical | high | normal | low
//   preemptible: true
//   checkpointable: true
//   checkpoint_interval: 30m         # needs checkpointable: true
//   checkpoint_cost: 2m              # what a checkpoint takes, 0s or more; needs checkpointable
//   checkpoint_stall: 5s             # the part of it that pauses training (asynchronous ones);
//                                    # needs checkpoint_cost and is no longer than it
//   fault_tolerant: true             # tolerates interruption well: prefers spot capacity
//   estimate: 2h
//   deadline: 2026-12-01T18:00:00Z   # or "+12h" from now; must be in the future
//   team: ml
//   cpus: 4                          # cores; 0.5 allowed
//   memory: 16GiB                    # MiB, GiB or TiB
//   max_retries: 3                   # 0..100 (default: the daemon's)
#ifndef SQUEEZE_CONFIG_JOB_FILE_H_
#define SQUEEZE_CONFIG_JOB_FILE_H_

#include <string>
#include <string_view>

#include "core/job_request.h"
#include "core/status.h"
#include "core/types.h"

namespace squeeze {

// `source` (a file name, or any label) starts every error message. `now` is the submission
// time: it becomes spec.submit_time and anchors relative deadlines. A relative workdir is kept
// as written.
Result<JobRequest> ParseJobYaml(std::string_view text, const std::string& source, Time now);
// The HTTP form. A relative workdir is an error: the server cannot know the client's directory.
Result<JobRequest> ParseJobJson(std::string_view text, Time now);
// Reads the YAML job file at `path` for `squeeze submit`: like sbatch, a relative workdir is
// resolved against the current directory (the submitter's), and no workdir means that directory.
Result<JobRequest> ReadJobFile(const std::string& path, Time now);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_JOB_FILE_H_
