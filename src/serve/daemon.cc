#include "serve/daemon.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "config/cluster_file.h"
#include "config/job_values.h"
#include "config/job_limits.h"
#include "config/policy_settings.h"
#include "exec/run_tracking.h"
#include "exec/local_executor.h"
#include "exec/run_files.h"
#include "exec/unix_account.h"
#include "exec/gpu_utilization.h"
#include "serve/api_server.h"
#include "serve/local_users.h"
#include "serve/gpu_sampler.h"
#include "serve/queue_service.h"
#include "serve/slurm_pool_nodes.h"
#include "serve/store_purger.h"
#include "serve/web_dir.h"
#include "slurm/slurm_executor.h"
#include "store/gpu_sample_store.h"

namespace squeeze {
namespace {

// The system clock to the millisecond: the step sees sub-second time (as far as a tick goes).
Time Now() {
  return FromMilliseconds(std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count());
}

// A Time as a chrono duration, for waits and sleeps.
std::chrono::milliseconds Millis(Time t) {
  return std::chrono::milliseconds(WholeMilliseconds(t));
}

void Say(const std::string& line) { std::fprintf(stderr, "squeeze serve: %s\n", line.c_str()); }

// One daemon per data directory: an exclusive lock on DIR/serve.lock, released by the kernel
// whenever the process ends (kill -9 included).
Result<int> LockDataDir(const std::string& dir) {
  const std::string path = dir + "/serve.lock";
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Error("cannot open " + path + ": " + std::strerror(errno));
  // A daemon killed (kill -9) while it forked a command leaves the lock to that child until it
  // execs or exits: when the pid that took the lock is gone, wait for it a few seconds.
  for (int tries = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; ++tries) {
    std::string holder = ReadFileIfPresent(path).value_or("");
    while (!holder.empty() && holder.back() == '\n') holder.pop_back();
    const pid_t holder_pid = static_cast<pid_t>(std::atol(holder.c_str()));
    const bool holder_gone = holder_pid > 0 && kill(holder_pid, 0) != 0 && errno == ESRCH;
    if (holder_gone && tries < 50) {
      usleep(100 * 1000);
      continue;
    }
    close(fd);
    return Status::Error("another squeeze serve uses " + dir +
                         (holder.empty() ? "" : " (pid " + holder + ")"));
  }
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) != 0 || write(fd, pid.data(), pid.size()) < 0) {
    // The lock holds either way; the pid is only a hint for the message above.
  }
  return fd;
}

Result<Policy> BuildPolicy(const DaemonOptions& o) {
  auto policy = NamedPolicy(o.policy);
  if (!policy.ok()) return policy.status().WithContext("--policy");
  if (Status s = policy->Validate(); !s.ok()) return s.WithContext("--policy");
  std::vector<PolicySetting> settings;
  for (const std::string& text : o.settings) settings.push_back(SetFlag(text));
  std::vector<Policy> policies = {std::move(*policy)};
  auto outcome = ApplyPolicySettings(settings, policies, PolicyDriver::kLive);
  if (!outcome.ok()) return outcome.status();
  return std::move(policies[0]);
}

Result<LocalCluster> FindCluster(const DaemonOptions& o) {
  auto found = DiscoverGpus(o.virtual_gpus, o.nvidia_smi);
  if (!found.ok()) return found.status().WithContext("--virtual-gpus");
  std::optional<ClusterSpec> config;
  if (!o.config_path.empty()) {
    auto loaded = LoadClusterFile(o.config_path);
    if (!loaded.ok()) return loaded.status().WithContext("--config");
    config = std::move(loaded).value();
    if (Status s = AddSlurmInventory(*config, Say); !s.ok()) return s.WithContext("--config");
  }
  return BuildLocalCluster(*found, config, ShortHostName());
}

std::string Describe(const LocalCluster& cluster) {
  std::string out = std::to_string(cluster.gpus.size()) + " GPUs (" + cluster.source + ")";
  for (const NodeSpec& n : cluster.spec.nodes) {
    out += "; node " + n.name + ": " + std::to_string(n.gpus) + " x " + n.gpu_model;
    if (n.labels.count("virtual")) out += " (virtual: they do not exist)";
  }
  return out;
}

}  // namespace

std::string DefaultDataDir() {
  if (const char* d = std::getenv("SQUEEZE_DATA"); d && *d) return d;
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.squeeze";
  return "squeeze-data";
}

namespace {

// The data directory, made and locked down (a root daemon's jobs, as their owners, reach their
// logs and checkpoints through it, and local users its socket; nobody but the daemon lists it
// or reads what is not theirs). Absolute: the supervisor and the jobs run in other folders.
Result<std::string> PrepareDataDir(const DaemonOptions& options, bool owners) {
  std::string dir = options.data_dir.empty() ? DefaultDataDir() : options.data_dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Error("--data: cannot create " + dir + ": " + ec.message());
  dir = std::filesystem::absolute(dir, ec).lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  chmod(dir.c_str(), owners ? 0711 : 0700);
  return dir;
}

// One executor per Slurm pool: its jobs go to that cluster.
std::vector<std::unique_ptr<SlurmExecutor>> StartSlurmExecutors(const LocalCluster& cluster,
                                                                const std::string& dir,
                                                                const DaemonOptions& options,
                                                                LiveQueue& queue) {
  std::vector<std::unique_ptr<SlurmExecutor>> executors;
  for (size_t p = 0; p < cluster.spec.pools.size(); ++p) {
    const PoolSpec& pool = cluster.spec.pools[p];
    if (pool.backend != "slurm") continue;
    SlurmExecutorOptions so;
    so.data_dir = dir;
    so.pool = pool.slurm;
    // A controller that is down makes every Slurm command wait ~9 s before it fails: the
    // looks run on their own thread, and the commands the queue runs (sbatch, scancel) are
    // only sent while the latest look answered.
    so.command_timeout_ms = 15000;
    so.watch_interval_ms = static_cast<int>(Millis(options.slurm_watch).count());
    so.watch_timeout_ms = 8000;
    if (so.pool.cluster.empty()) so.pool.cluster = pool.name;
    executors.push_back(std::make_unique<SlurmExecutor>(so));
    queue.SetPoolExecutor(static_cast<int>(p), *executors.back());
  }
  return executors;
}

// A file beside the data others may read (serve.url, serve.socket).
void WritePublicFile(const std::string& path, const std::string& line) {
  (void)WriteFileAtomically(path, line + "\n");
  chmod(path.c_str(), 0644);
}

// Takes the queue back (Recover) and says what it found.
Status RecoverQueue(LiveQueue& queue) {
  const auto began = std::chrono::steady_clock::now();
  auto recovered = queue.Recover(Now());
  if (!recovered.ok()) return recovered.status();
  char took[32];
  std::snprintf(took, sizeof(took), "%.2f",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  Say(std::string("in ") + took + " s took back " + std::to_string(recovered->adopted) +
      " running jobs, " + std::to_string(recovered->pending) + " waiting; " +
      std::to_string(recovered->ended_offline) + " ended while it was down, " +
      std::to_string(recovered->requeued) + " queued again; learned the run times of " +
      std::to_string(recovered->learned) + " jobs that ended");
  return Status::Ok();
}

// The found GPUs' utilization, read on a thread of its own (nvidia-smi may take a while).
std::unique_ptr<GpuSampler> StartSampler(const LocalCluster& cluster, const DaemonOptions& options,
                                         QueueService& service) {
  if (options.gpu_sample_interval <= 0 ||
      (cluster.source != "nvml" && cluster.source != "nvidia-smi")) {
    return nullptr;
  }
  auto sampler = std::make_unique<GpuSampler>(
      cluster, [&cluster, &options] { return SampleGpus(cluster.source, options.nvidia_smi); },
      [&service](const std::vector<GpuTelemetry>& gpus, Time at) {
        const ApiResult r = service.ApplyReadings(gpus, at, Now());
        if (r.error) Say("GPU sample not applied: " + r.error->message);
      },
      options.gpu_sample_interval, Now, [](const std::string& line) { Say(line); });
  sampler->Start();
  Say("reading the GPUs' utilization every " +
      std::to_string(WholeSeconds(options.gpu_sample_interval)) +
      " s (" + cluster.source + ")");
  return sampler;
}

std::string Mib(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

// Finished jobs' details purged after the retention, on a thread of its own (store_purger.h).
StorePurger MakePurger(JobStore& store, Time retention, QueueService& service) {
  StorePurgerOptions po;
  po.retention = retention;
  po.interval = PurgeInterval(retention);
  return StorePurger(
      store, po, Now,
      [&service](const StorePurger::Round& r) {
        service.DetailsPurged();
        Say("store: purged the details of " + std::to_string(r.purged) +
            " finished jobs that ended before " + FormatDateTime(r.before) + "; the store " +
            Mib(r.bytes_before) + " before, " + Mib(r.bytes_after) + " after");
      },
      [](const std::string& line) { Say(line); });
}

// Wakes the daemon's loop early (a submission, a capacity call, a stop signal).
struct Waker {
  std::mutex mu;
  std::condition_variable cv;
  bool woken = false;
  std::atomic<bool> stopping{false};
  void Wake() {
    {
      std::lock_guard l(mu);
      woken = true;
    }
    cv.notify_one();
  }
};

// Steps the queue until told to stop, folding GPU samples now and then on this thread (the
// API's calls never wait for it).
// Until `next` (or a wake): while runs are active, the backends are asked every 200 ms, and
// what they report (a run ended) is stepped on at once. Woken early, it still waits until
// `not_before` (StepGap).
void WaitForNextStep(LiveQueue& queue, Waker& waker, Time next,
                     std::chrono::steady_clock::time_point not_before) {
  constexpr auto kPollEvery = std::chrono::milliseconds(200);
  std::unique_lock l(waker.mu);
  for (;;) {
    const auto now = std::chrono::system_clock::now();
    auto until = std::chrono::system_clock::time_point(Millis(next));
    until = std::max(until, now + std::chrono::milliseconds(20));
    const bool polling = queue.RunsActive() && until > now + kPollEvery;
    if (waker.cv.wait_until(l, polling ? now + kPollEvery : until,
                            [&] { return waker.woken || waker.stopping.load(); }) ||
        !polling) {
      break;
    }
    l.unlock();
    if (auto stepped = queue.StepIfEvents(Now())) next = *stepped;
    l.lock();
  }
  waker.woken = false;
  l.unlock();
  if (!waker.stopping) std::this_thread::sleep_until(not_before);
}

// How long the loop rests after a step that took `took` before a wake may start the next: as
// long as the step took (Slurm's sched_min_interval, made to scale), at most half a second.
// Every submission wakes the loop: with a long queue, back-to-back steps (each walks the
// waiting jobs) would take a whole core from the API's workers; with this rest the scheduling
// thread takes about half of one at most, and a start waits at most one step's time more.
std::chrono::steady_clock::duration StepGap(std::chrono::steady_clock::duration took) {
  return std::min<std::chrono::steady_clock::duration>(took, std::chrono::milliseconds(500));
}

void RunLoop(LiveQueue& queue, GpuSampleStore& samples, Waker& waker) {
  Time next_fold = 0;
  while (!waker.stopping) {
    const Time now = Now();
    const auto began = std::chrono::steady_clock::now();
    const Time next = queue.Step(now);
    const auto ended = std::chrono::steady_clock::now();
    if (now >= next_fold) {
      next_fold = now + kSampleFoldInterval;
      if (auto folded = samples.Fold(now); !folded.ok()) {
        Say(folded.status().message());
      } else if (folded->raw_folded > 0 || folded->hours_deleted > 0) {
        Say("GPU samples: folded " + std::to_string(folded->raw_folded) +
            " raw samples into hours, deleted " + std::to_string(folded->hours_deleted) +
            " hours past retention");
      }
    }
    WaitForNextStep(queue, waker, next, ended + StepGap(ended - began));
  }
}

// SIGTERM and SIGINT are taken by a thread of ours (sigwait, WaitForStopSignal); every thread
// started from here on inherits the mask. Jobs get a clean mask from their supervisor.
sigset_t BlockStopSignals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return stop_signals;
}

Status CheckSupervisor(const LocalExecutor& executor) {
  if (access(executor.supervisor_path().c_str(), X_OK) == 0) return Status::Ok();
  return Status::Error("cannot run the supervisor " + executor.supervisor_path() +
                       " (it is installed beside squeeze)");
}

// The API's limits as set, with the global cap kept under half of the open-file limit, which
// is first raised as far as the hard limit allows: each connection holds a descriptor.
ServeLimits LimitsWithinOpenFiles(const ServeLimits& wanted) {
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) != 0) return wanted;
  if (files.rlim_cur < files.rlim_max) {
    rlimit raised = files;
    raised.rlim_cur = files.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) files = raised;
  }
  ServeLimits limits = wanted.WithinOpenFiles(files.rlim_cur);
  if (limits.max_connections < wanted.max_connections) {
    Say("--max-connections " + std::to_string(wanted.max_connections) + " lowered to " +
        std::to_string(limits.max_connections) + ": half of the open-file limit " +
        std::to_string(files.rlim_cur) + " (ulimit -n)");
  }
  return limits;
}

// On its own thread: SIGTERM or SIGINT stops the loop.
void WaitForStopSignal(const sigset_t& stop_signals, Waker& waker) {
  int sig = 0;
  sigwait(&stop_signals, &sig);
  Say(std::string("got ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") +
      "; stopping (running jobs keep running and are taken back at the next start)");
  waker.stopping = true;
  waker.Wake();
}

// The outboxes stop before the executors go; what they had not begun is queued again at the
// next start (recorded as started, never carried out).
void StopDispatch(LiveQueue& queue) {
  if (const size_t dropped = queue.StopDispatch(); dropped > 0) {
    Say(std::to_string(dropped) + " starts or stops not carried out yet were dropped; their jobs "
        "are queued again at the next start");
  }
}

// What the whole process gets before any thread is made. Nothing the daemon writes is for
// others unless it says so (serve.url, the socket); each job's log and checkpoint folder are
// given to its owner. Its CPU priority is inherited by every thread (a user's busy job cannot
// starve the API). Returns the line that says the priority.
std::string SetUpProcess(int nice) {
  umask(077);
  return SetDaemonNice(nice);
}

}  // namespace

int RunDaemon(const DaemonOptions& options) {
  const sigset_t stop_signals = BlockStopSignals();
  auto fail = [](const Status& s) { Say(s.message()); return 1; };
  const std::string priority = SetUpProcess(options.nice);
  if (Status s = options.api_limits.Validate(); !s.ok()) return fail(s);
  Result<UnixAccount> self = CurrentAccount();
  if (!self.ok()) return fail(self.status());
  DaemonOptions o = options;
  o.queue.run_as = RunAsPolicy::For(geteuid(), self->name, options.allow_root_jobs);
  auto prepared = PrepareDataDir(options, o.queue.run_as.owners);
  if (!prepared.ok()) return fail(prepared.status());
  const std::string dir = *prepared;
  auto lock = LockDataDir(dir);
  if (!lock.ok()) return fail(lock.status());
  ApiOptions api_options;
  if (Status s = ParseListen(options.listen, api_options); !s.ok()) return fail(s);
  api_options.web_dir = options.web_dir.empty() ? DefaultWebDir() : options.web_dir;
  api_options.socket_path = options.socket_path.empty() ? dir + "/squeeze.sock" : options.socket_path;
  api_options.limits = LimitsWithinOpenFiles(options.api_limits);
  auto policy = BuildPolicy(options);
  if (!policy.ok()) return fail(policy.status());
  auto cluster = FindCluster(options);
  if (!cluster.ok()) return fail(cluster.status());
  auto limits = LoadJobLimits(options.config_path, options.limits_path);
  if (!limits.ok()) return fail(limits.status());
  auto admin = EnsureAdminToken(dir, self->name);
  if (!admin.ok()) return fail(admin.status());
  auto tokens = LiveTokens::Load(dir);
  if (!tokens.ok()) return fail(tokens.status());
  auto store = JobStore::Open(dir, JobStore::Options{options.fsync_each_commit, true});
  if (!store.ok()) return fail(store.status());
  if (!(*store)->open_note().empty()) Say((*store)->open_note());
  auto samples = GpuSampleStore::Open(dir, GpuSampleStore::Options());
  if (!samples.ok()) return fail(samples.status());

  auto tracking = PrepareTracking(options.process_tracking, dir);
  if (!tracking.ok()) return fail(tracking.status());
  LocalExecutor executor(ExecutorOptions{dir, "", 5000, *tracking, options.max_log_bytes,
                                         static_cast<int>(WholeSeconds(o.queue.stop_grace))});
  if (Status s = CheckSupervisor(executor); !s.ok()) return fail(s);
  auto queue = LiveQueue::Create(*cluster, *policy, **store, executor, o.queue);
  if (!queue.ok()) return fail(queue.status());
  auto slurm_executors = StartSlurmExecutors(*cluster, dir, options, **queue);
  if (Status s = (*queue)->CountWaitingInStore(); !s.ok()) return fail(s);
  (*queue)->HoldCallsUntilRecovered();
  Say("data in " + dir + "; " + Describe(*cluster) + "; policy " + policy->name);
  Say(std::string(admin->second ? "wrote a new admin token to " : "admin token in ") +
      admin->first);
  Say("jobs: " + o.queue.run_as.Describe());
  Say("processes: " + tracking->description);
  Say("CPU priority: " + priority);
  Say("job limits: " + limits->Describe());
  Waker waker;
  (*queue)->SetWake([&] { waker.Wake(); });
  QueueService service(dir, **store, **queue, Now, [&] { waker.Wake(); }, samples->get(),
                       *limits);
  LocalUsers local_users(**tokens, options.admin_group, o.queue.run_as, geteuid());
  ApiServer api(service, **tokens, api_options, &local_users, Say);
  if (Status s = api.Start(); !s.ok()) {
    return fail(s.message().rfind("--socket", 0) == 0 ? s : s.WithContext("--listen"));
  }
  const std::string url = "http://" + api_options.host + ":" + std::to_string(api.port());
  WritePublicFile(dir + "/serve.url", url);
  Say("listening on " + url + " (the URL is also in " + dir + "/serve.url)");
  WritePublicFile(dir + "/serve.socket", api_options.socket_path);
  Say("local users: unix:" + api_options.socket_path + " (no token needed; the path is also in " +
      dir + "/serve.socket)" +
      (options.admin_group.empty() ? "" : "; admins: root and group '" + options.admin_group + "'"));
  Say("API limits: " + api_options.limits.Describe());
  Say(WebDirBuilt(api_options.web_dir)
          ? "dashboard at " + url + "/ (files in " + api_options.web_dir + ")"
          : "no dashboard: " + api_options.web_dir + " has no index.html (see --web-dir)");
  // The API answers while the queue is taken back: reads come from the store, submissions wait
  // in the queue's inbox, and calls on the queue (cancel, why, nodes) wait for the recovery.
  if (Status s = RecoverQueue(**queue); !s.ok()) {
    api.Stop();
    return fail(s);
  }
  // The executors' polls (their runs' ends, checkpoints; a Slurm pool's scontrol) never hold
  // up the scheduling thread.
  (*queue)->PollInBackground(Now);
  // Its commits never hold up the scheduling thread either.
  (*queue)->CarryOutInBackground();
  std::unique_ptr<GpuSampler> sampler = StartSampler(*cluster, options, service);
  StorePurger purger = MakePurger(**store, limits->purge_job_details_after, service);
  purger.Start();
  std::thread signals([&] { WaitForStopSignal(stop_signals, waker); });
  RunLoop(**queue, **samples, waker);
  StopDispatch(**queue);
  purger.Stop();
  if (sampler) sampler->Stop();
  api.Stop();
  signals.join();
  close(*lock);
  return 0;
}

}  // namespace squeeze
