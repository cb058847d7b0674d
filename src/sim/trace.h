// A trace: the jobs a simulation replays, each with its true duration (which policies see
// only when they are allowed to: see Policy::oracle_estimates).
#ifndef SQUEEZE_SIM_TRACE_H_
#define SQUEEZE_SIM_TRACE_H_

#include <string>
#include <vector>

#include "core/job.h"
#include "core/status.h"

namespace squeeze {

struct TraceJob {
  JobSpec spec;    // spec.id is unique in the trace; spec.submit_time >= 0
  Time duration = 0;  // true run time without overheads (>= 1 s)
  // job-profile's `array` and `dependency` cells as written, until ExpandTraceLinks turns them
  // into tasks and spec.dependencies (sim/readers/trace_links.h); then empty.
  std::string array;
  std::string dependency;
};

struct Trace {
  std::string source;            // file name
  std::string format;            // "philly", "philly-oct-nov", "job-profile", "openb-pods"
  // Ascending submit_time, file order among equal times; openb-pods keeps file order (its
  // fill protocol does not use submit times).
  std::vector<TraceJob> jobs;
  int skipped_rows = 0;          // with ReadOptions::skip_bad_rows
  std::vector<std::string> skipped;  // the first few skip messages
};

// A kind of job and how fast it trains on each GPU model (simulate --assume-job-types).
struct JobType {
  std::string name;
  bool multi_gpu = false;  // jobs of several GPUs may be of this type
  std::map<std::string, double> gpu_speeds;
};

struct ReadOptions {
  bool skip_bad_rows = false;
  // What a trace that says nothing about interruptibility is taken to allow.
  bool default_checkpointable = true;
  bool default_preemptible = true;
  // The size of a job's data (GB) when the trace gives none: what a move to another region
  // copies (Philly and openb give no sizes).
  double default_data_gb = 0;
  // How long a checkpoint takes when the trace gives none (job-profile `checkpoint_cost`).
  Time default_checkpoint_cost = 0;
  // How long a periodic checkpoint pauses training when the trace gives none (job-profile
  // `checkpoint_stall`): asynchronous checkpoints. Unset: synchronous (the checkpoint_cost).
  std::optional<Time> default_checkpoint_stall;
  // Traces that give no urgency (all but job-profile): this share of the jobs is `high` and
  // the rest `low`, picked by a hash of the job id (the same jobs every time); 0 = all normal.
  double urgent_share = 0;
  // Time limits as users give them, for traces that give none: each job's true duration times
  // this factor, rounded up to a whole hour (sbatch --time); 0 = no limits. At 1 or more no
  // job reaches its limit: the limits only tell backfill when runs end at the latest.
  double time_limit_factor = 0;
  // Elastic jobs, for traces that give none: this share of the checkpointable jobs (picked by a
  // hash of the job id, the same jobs every time; 0 = none, 1 = all) runs on 1 GPU (or
  // elastic_min_factor times its trace width, rounded up) up to
  // elastic_max_factor times its trace width (jobs whose range would be one width stay as
  // they are), with this scaling and resize cost; its duration is for its trace width.
  double elastic_share = 0;
  double elastic_max_factor = 1;
  double elastic_min_factor = 0;  // the narrowest: this times its trace width, at least 1 GPU
  Scaling elastic_scaling;
  std::optional<Time> elastic_resize_cost;
  // Heterogeneous GPUs, for traces that give no speeds: each job that has none gets the speed
  // table of one of these types, picked by a hash of its id (the same type every time); a job
  // of several GPUs only among the multi_gpu types (when there are any).
  std::vector<JobType> job_types;
};

}  // namespace squeeze

#endif  // SQUEEZE_SIM_TRACE_H_
