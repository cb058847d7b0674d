// The job `squeeze submit` sends: a YAML job file, flags, or both (flags win), checked by the
// same field reader as a job file (config/job_file.h). Pure apart from reading the file;
// thread-safe.
#ifndef SQUEEZE_CLI_SUBMIT_REQUEST_H_
#define SQUEEZE_CLI_SUBMIT_REQUEST_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/sbatch_directives.h"
#include "core/job_request.h"
#include "core/status.h"
#include "core/types.h"

namespace squeeze {

// The flags of `squeeze submit`, as the user wrote them; nullopt = not given. Each is written
// as the job file field of the same name would be (docs/job-file.md).
struct SubmitFlags {
  std::optional<std::string> name;
  std::optional<std::string> gpus;  // a count, or a range MIN-MAX (an elastic job)
  std::optional<std::string> step;
  std::optional<std::string> scaling;
  std::optional<std::string> gpu_milli;
  std::optional<std::string> gpu_models;  // comma-separated
  std::optional<std::string> gpu_memory;  // a memory size (40GiB)
  std::optional<std::string> gpu_speeds;  // MODEL:SPEED pairs (V100:1,K80:0.24)
  std::optional<std::string> topology;    // MODE or MODE:LEVEL (required:rack)
  std::optional<std::string> pool;
  std::optional<std::string> regions;  // comma-separated
  std::optional<std::string> data_gb;
  std::optional<std::string> urgency;
  std::optional<std::string> preemptible;     // "true" or "false"
  std::optional<std::string> checkpointable;  // "true" or "false"
  std::optional<std::string> fault_tolerant;  // "true" or "false"
  std::optional<std::string> checkpoint_interval;
  std::optional<std::string> checkpoint_cost;
  std::optional<std::string> checkpoint_stall;
  std::optional<std::string> estimate;
  std::optional<std::string> time_limit;
  std::optional<std::string> deadline;
  std::optional<std::string> team;
  std::optional<std::string> workdir;
  std::optional<std::string> max_retries;
  std::optional<std::string> hold;  // "true": submitted held (sbatch -H)
  std::optional<std::string> begin;  // a date-time or +duration (sbatch --begin)
  std::optional<std::string> cpus;
  std::optional<std::string> memory;
  std::optional<std::string> output;  // a file for the run's stdout (sbatch -o; core/output_path.h)
  std::optional<std::string> error;   // and for its stderr (sbatch -e)
  std::optional<std::string> array;       // task indices (sbatch --array 0-99%8)
  std::optional<std::string> dependency;  // afterok:12,... (sbatch -d/--dependency)
  std::vector<std::string> env;      // "KEY=VALUE" each; a later one wins
  std::vector<std::string> command;  // the words after --; empty = the file's (a batch
                                     // script's arguments when the file is one)
  // sbatch's options given as flags (-J, --gres, -p, ...; docs/job-file.md), line 0 each; they
  // win over a batch script's #SBATCH lines, and squeeze's own flags win over them.
  std::vector<SbatchDirective> sbatch;
  bool ignore_unsupported = false;  // an sbatch option squeeze cannot honour warns, not fails
  std::optional<std::string> wrap;  // --wrap: a shell line as the whole job
  std::map<std::string, std::string> environ;  // the submitter's environment, for --export
};

// Reads `file` (when given) like `squeeze submit FILE` (errors FILE:LINE:COL), lays the flags
// over it and checks the result. `cwd` is the submitter's directory (absolute): a relative
// workdir, from the file or --workdir, is resolved against it, and no workdir means `cwd`.
// `now` is the submission time (relative deadlines). An error names the flag and the value
// ("--estimate: '5x' is not a duration ...") or, for a field from the file, the file.
// A FILE that is a batch script (#! or #SBATCH first, config/sbatch_directives.h) is read
// for its #SBATCH lines and runs as the command; what sbatch options squeeze leaves out (with
// ignore_unsupported) is added to `warnings`.
Result<JobRequest> BuildSubmitRequest(const std::optional<std::string>& file,
                                      const SubmitFlags& flags, const std::string& cwd, Time now,
                                      std::vector<std::string>* warnings = nullptr);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_SUBMIT_REQUEST_H_
