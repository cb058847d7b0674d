// `squeeze serve`: the flags of the daemon (src/serve/daemon.h).
#include <memory>

#include "cli/commands.h"
#include "config/job_values.h"
#include "core/duration.h"
#include "serve/daemon.h"

namespace squeeze {

namespace {

// Where the daemon keeps its data, what it schedules and where it answers.
void AddPlaceOptions(CLI::App& app, DaemonOptions* o) {
  app.add_option("--data", o->data_dir,
                 "The data directory: job store (SQLite), logs, checkpoints, tokens "
                 "(default $SQUEEZE_DATA, else ~/.squeeze)");
  app.add_option("--config", o->config_path,
                 "A cluster file (the YAML the simulator reads, docs/cluster-file.md): pools and "
                 "nodes; the GPUs found are handed to its local nodes in order. Default: one pool "
                 "'local' of every GPU found");
  app.add_option("--limits", o->limits_path,
                 "A limits file: who may ask for what (urgency ceilings, caps on waiting jobs "
                 "and tasks per submission, how long finished jobs' details are kept), the "
                 "limits: section of a cluster file on its own, for a daemon without one "
                 "(docs/operating.md). Default: the --config file's limits:, else squeeze's "
                 "defaults");
  app.add_option("--listen", o->listen, "HOST:PORT to serve the API on (port 0 = any free one)")
      ->capture_default_str();
  app.add_option("--web-dir", o->web_dir,
                 "The web dashboard's built files (cd web && npm ci && npm run build), served "
                 "at / and /ui/. Default: the folder web beside the squeeze binary (build/web)");
  app.add_option("--virtual-gpus", o->virtual_gpus,
                 "N or N:MODEL: declare GPUs that do not exist (marked virtual everywhere), to "
                 "try squeeze on a machine without one. Default: find them with NVML, else "
                 "nvidia-smi");
  app.add_option("--nvidia-smi", o->nvidia_smi, "The nvidia-smi to run when NVML is missing")
      ->capture_default_str();
  app.add_option("--policy", o->policy, "The scheduling policy (docs/policies.md)")
      ->capture_default_str();
  app.add_option("--set", o->settings,
                 "Change a policy setting, KEY=VALUE (e.g. slice=30m for the default sliced, "
                 "min_runtime=5m); one the policy does not read is refused");
  app.add_option("--socket", o->socket_path,
                 "The Unix socket local users reach the API on with no token, known by the "
                 "kernel (default DIR/squeeze.sock; its path is also written to DIR/serve.socket)");
  app.add_option("--admin-group", o->admin_group,
                 "A Unix group whose members are admins on the socket (root always is)");
}

// What one client may hold of the API (docs/serve.md "Limits of the API").
void AddApiLimitOptions(CLI::App& app, ServeLimits* l) {
  app.add_option("--api-workers", l->workers,
                 "Threads that answer API requests; one client (a local user, or a remote "
                 "address) may keep at most half of them busy")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--max-connections-per-peer", l->max_connections_per_peer,
                 "Open API connections one client may hold (a local user, on the socket or "
                 "on 127.0.0.1, or a remote address); more are answered 503")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--max-connections", l->max_connections,
                 "Open API connections in all (kept under half of the open-file limit)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 24));
}

// How the daemon runs jobs: whose, how often again, how many at once, how it follows them.
void AddJobOptions(CLI::App& app, DaemonOptions* o) {
  app.add_flag("--allow-root-jobs", o->allow_root_jobs,
               "When run as root (each job as its owner): also run the jobs root submits, as "
               "root. Without it they are refused");
  app.add_option("--max-retries", o->queue.max_retries,
                 "How often a failed job runs again unless its job file says (max_retries)")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  app.add_option("--dispatch-workers", o->queue.dispatch_workers,
                 "Per backend (this machine, each Slurm pool): how many starts and stops are "
                 "carried out at once (forks, sbatch, scancel), off the scheduling lock")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  app.add_option("--held-idle-threshold", o->queue.held_idle.threshold,
                 "The utilization (0..1, sampled or from telemetry) below which a job's GPU counts as idle "
                 "(default 0.1)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--process-tracking", o->process_tracking,
                 "How every process of a local run is found and ended with it (a setsid child, "
                 "a double fork): cgroup (a cgroup v2 of its own per run, with the job's cpus and "
                 "memory as limits where the controllers are there; needs root), subreaper (the "
                 "run's supervisor adopts what leaves its parent), or auto (cgroup where the "
                 "daemon may, else subreaper); what is in force is printed at start")
      ->check(CLI::IsMember({"auto", "cgroup", "subreaper"}))
      ->capture_default_str();
  app.add_option("--nice", o->nice,
                 "The daemon's own CPU priority (nice, -20..19), ahead of the jobs' processes so "
                 "a busy job does not slow the API or the scheduling; every job and command it "
                 "starts runs at the nice the daemon was started with. Lowering it needs root "
                 "(otherwise the start-up line says it was kept)")
      ->capture_default_str()
      ->check(CLI::Range(-20, 19));
}

// The flags that take a duration (30s, 5m, 1h): its help, its default and its field, a Time
// or (`in_seconds`) a plain number of whole seconds (ApiLimits' *_timeout_s).
struct DurationFlag {
  const char* flag;
  const char* help;
  const char* fallback;
  Time* (*field)(DaemonOptions&);
  bool in_seconds = false;
};
constexpr DurationFlag kDurationFlags[] = {
    {"--retry-backoff", "Wait before the first retry; doubled for each next one", "10s",
     [](DaemonOptions& o) { return &o.queue.retry_backoff; }},
    {"--retry-backoff-max", "The longest wait before a retry", "10m",
     [](DaemonOptions& o) { return &o.queue.retry_backoff_max; }},
    {"--checkpoint-grace",
     "After asking a job to checkpoint (SIGUSR1), how long to wait for its marker before "
     "SIGTERM",
     "60s",
     [](DaemonOptions& o) { return &o.queue.checkpoint_grace; }},
    {"--stop-grace", "After SIGTERM, how long before SIGKILL", "10s",
     [](DaemonOptions& o) { return &o.queue.stop_grace; }},
    {"--slurm-watch",
     "How often each Slurm pool's nodes and jobs are looked at (sinfo, squeue) and "
     "compared with the queue",
     "2s",
     [](DaemonOptions& o) { return &o.slurm_watch; }},
    {"--held-idle-window",
     "A running job whose every GPU stays below --held-idle-threshold for this long is "
     "reported held but idle (GET /v1/held-idle, squeeze held-idle)",
     "30m",
     [](DaemonOptions& o) { return &o.queue.held_idle.window; }},
    {"--gpu-sample-interval",
     "How often the daemon reads the utilization and memory of the GPUs it found (NVML, "
     "else nvidia-smi) into its store; 0 or off: never (virtual GPUs are never read)",
     "60s",
     [](DaemonOptions& o) { return &o.gpu_sample_interval; }},
    {"--request-timeout",
     "An API request's line and headers must arrive within this, from its first byte "
     "(else 408 and the connection is closed)",
     "10s",
     [](DaemonOptions& o) { return &o.api_limits.head_timeout_s; }, true},
    {"--body-timeout", "An API request's whole body must arrive within this (else 408)", "30s",
     [](DaemonOptions& o) { return &o.api_limits.body_timeout_s; }, true},
    {"--idle-timeout", "An API connection with no request in flight is closed after this",
     "30s",
     [](DaemonOptions& o) { return &o.api_limits.idle_timeout_s; }, true}};

// The durations as given (text), read when the command runs (ApplyDurations).
void AddDurationOptions(CLI::App& app, std::map<std::string, std::string>* durations) {
  for (const DurationFlag& d : kDurationFlags) {
    (*durations)[d.flag] = d.fallback;
    app.add_option(d.flag, (*durations)[d.flag],
                   std::string(d.help) + " (default " + d.fallback + ")");
  }
}

// Each duration's text into its field; false, after a message naming the flag, for a text
// that is not a duration.
bool ApplyDurations(const std::map<std::string, std::string>& durations, DaemonOptions& o) {
  for (const DurationFlag& flag : kDurationFlags) {
    const std::string& text = durations.at(flag.flag);
    if (flag.field(o) == &o.gpu_sample_interval && (text == "0" || text == "off")) {
      o.gpu_sample_interval = 0;
      continue;
    }
    auto d = ParseDuration(text);
    if (!d.ok() || *d <= 0 || (flag.in_seconds && WholeSeconds(*d) <= 0)) {
      std::fprintf(stderr, "squeeze serve: %s: '%s' is not a duration like 30s, 5m or 1h\n",
                   flag.flag, text.c_str());
      return false;
    }
    *flag.field(o) = flag.in_seconds ? WholeSeconds(*d) : *d;
  }
  return true;
}

// --max-log-size (e.g. 512MiB; 0: no limit) into bytes; false, after a message, when broken.
bool ApplyMaxLogSize(const std::string& text, DaemonOptions& o) {
  if (text == "0") {
    o.max_log_bytes = 0;
    return true;
  }
  Result<int64_t> mib = ParseMemoryMib(text);
  if (!mib.ok()) {
    std::fprintf(stderr, "squeeze serve: --max-log-size: %s\n", mib.status().message().c_str());
    return false;
  }
  o.max_log_bytes = *mib << 20;
  return true;
}

}  // namespace

CommandRun RegisterServe(CLI::App& app) {
  auto o = std::make_shared<DaemonOptions>();
  o->queue.forecast_in_background = true;  // a why never waits for a forecast it can do without
  auto durations = std::make_shared<std::map<std::string, std::string>>();
  AddPlaceOptions(app, o.get());
  AddApiLimitOptions(app, &o->api_limits);
  AddJobOptions(app, o.get());
  AddDurationOptions(app, durations.get());
  auto max_log = std::make_shared<std::string>("1GiB");
  app.add_option("--max-log-size", *max_log,
                 "The most a local run's log (DIR/logs/ID.ATTEMPT.log, written by its root "
                 "supervisor) may hold, e.g. 512MiB or 4GiB; the rest of the run's output is "
                 "dropped, with a note; 0: no limit (default 1GiB)");
  auto fsync = std::make_shared<std::string>("full");
  app.add_option("--sync", *fsync,
                 "full: every accepted job is fsynced before it is acknowledged (survives power "
                 "loss); normal: written through the WAL, fsynced at checkpoints (survives a "
                 "crash of squeeze)")
      ->check(CLI::IsMember({"full", "normal"}))
      ->capture_default_str();
  return [o, durations, fsync, max_log] {
    if (!ApplyMaxLogSize(*max_log, *o) || !ApplyDurations(*durations, *o)) return 2;
    o->fsync_each_commit = *fsync == "full";
    return RunDaemon(*o);
  };
}

}  // namespace squeeze
