// `squeeze serve`: the daemon. It takes the data directory (one daemon per directory, held by
// a lock), makes sure an admin token exists, finds the GPUs, builds the cluster, takes back
// what a previous run left (LiveQueue::Recover), serves the API and steps the queue on every
// event and on a timer with the system clock, until SIGTERM or SIGINT. Jobs keep running
// under their supervisors when it stops.
#ifndef SQUEEZE_SERVE_DAEMON_H_
#define SQUEEZE_SERVE_DAEMON_H_

#include <string>
#include <vector>

#include "exec/process_priority.h"
#include "serve/live_queue.h"
#include "serve/serve_limits.h"

namespace squeeze {

struct DaemonOptions {
  std::string data_dir;       // DIR
  std::string config_path;    // a cluster file; empty = one local pool of the GPUs found
  std::string limits_path;    // a limits file (config/job_limits.h); empty = the cluster file's
  std::string listen = "127.0.0.1:8642";
  std::string virtual_gpus;   // "N" or "N:MODEL"; empty = find real ones
  std::string nvidia_smi = "nvidia-smi";
  std::string policy = "sliced";
  std::vector<std::string> settings;  // KEY=VALUE policy settings
  bool fsync_each_commit = true;
  LiveQueueOptions queue;
  Time slurm_watch = 2 * kSecond;  // how long between looks at each Slurm pool (sinfo, squeue)
  // How long between reads of the found GPUs' utilization (NVML or nvidia-smi); 0: never.
  Time gpu_sample_interval = kMinute;
  std::string web_dir;   // the dashboard's built files; empty = `web` beside the binary
  bool allow_root_jobs = false;  // a root daemon runs root's own jobs (as root)
  std::string socket_path;       // the Unix socket of local users; empty = DIR/squeeze.sock
  std::string admin_group;       // its members are admins on the socket; empty = root only
  // How each local run's processes are tracked: auto, cgroup or subreaper (exec/run_tracking.h).
  std::string process_tracking = "auto";
  int64_t max_log_bytes = int64_t{1} << 30;  // what each local run's log may hold; 0 = no limit
  ServeLimits api_limits;        // connections, request sizes and deadlines, workers
  // The daemon's own nice value (exec/process_priority.h); what it starts gets the one it had.
  int nice = kDaemonNice;
};

// $SQUEEZE_DATA, else ~/.squeeze, else ./squeeze-data.
std::string DefaultDataDir();

// Runs until SIGTERM or SIGINT; 0 on a clean stop, 1 (with the reason on stderr) when it
// cannot start.
int RunDaemon(const DaemonOptions& options);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_DAEMON_H_
