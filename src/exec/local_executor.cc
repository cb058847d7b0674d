#include "exec/local_executor.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <tuple>

#include "core/output_path.h"
#include "exec/command_runner.h"
#include "exec/local_run_env.h"
#include "exec/process_priority.h"
#include "exec/supervisor.h"
#include "exec/unix_account.h"
#include "exec/vm_spawn.h"


namespace squeeze {
namespace {

// What the supervisor's child needs, set up before it is made (it may not allocate).
struct SupervisorChild {
  int spec_fd;
  const char* supervisor;
  char** argv;
  char** envp;
  sigset_t mask;
};

// The child that becomes a run's supervisor, in the daemon's memory until it execs
// (exec/vm_spawn.h): async-signal-safe calls only.
int ExecSupervisor(void* arg) {
  const SupervisorChild& c = *static_cast<const SupervisorChild*>(arg);
  // The spec on stdin; nothing of the daemon's (API sockets, the store) reaches the
  // supervisor or the job: descriptors opened without O_CLOEXEC by libraries would otherwise
  // leak into the job and outlive the daemon.
  dup2(c.spec_fd, 0);
  ChildPriority();  // the job runs at the nice the daemon was started with, not the daemon's
  if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0) {
    for (int fd = 3; fd < 65536; ++fd) close(fd);
  }
  sigprocmask(SIG_SETMASK, &c.mask, nullptr);
  execve(c.supervisor, c.argv, c.envp);
  return 127;
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::optional<ExitStatus> ReadExit(const std::string& path) {
  std::optional<std::string> text = ReadFileIfPresent(path);
  return text ? ParseExitStatus(*text) : std::nullopt;
}

// DIR/runs/ID.ATTEMPT.starting: a start between its fork and its supervisor's run file.
std::string StartingPath(const RunPaths& paths) {
  return paths.run.substr(0, paths.run.size() - 4) + ".starting";
}

// The job's own output files for this run (core/output_path.h), opened by the supervisor as
// the job's account: emptied at the first attempt, appended to at later ones.
Status SetOutputFiles(JobId id, int attempt, const JobRequest& request,
                      const std::optional<UnixAccount>& owner, RunSpec& args) {
  if (request.output_path.empty() && request.error_path.empty()) return Status::Ok();
  OutputRun run{id, request.spec.array_id, request.spec.array_task, request.spec.name, "",
                args.workdir};
  if (owner) {
    run.user = owner->name;
  } else if (Result<UnixAccount> self = CurrentAccount(); self.ok()) {
    run.user = self->name;
  }
  for (auto [pattern, into, field] :
       {std::tuple(&request.output_path, &args.output, "output"),
        std::tuple(&request.error_path, &args.error, "error")}) {
    if (pattern->empty()) continue;
    Result<std::string> path = ExpandOutputPath(*pattern, run);
    if (!path.ok()) return path.status().WithContext(std::string(field) + " '" + *pattern + "'");
    *into = *path;
  }
  args.append = attempt > 1;
  return Status::Ok();
}

// The run's spec in an anonymous file (memfd), whole and at its start before the fork: the
// supervisor has all of it from the moment it exists, so a daemon killed right after the fork
// leaves a run that starts, never one that waits for the rest of its spec. -1 on failure.
int SpecFile(const std::string& spec) {
  const int fd = memfd_create("squeeze-run-spec", MFD_CLOEXEC);
  if (fd < 0) return -1;
  for (size_t done = 0; done < spec.size();) {
    const ssize_t n = write(fd, spec.data() + done, spec.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      return -1;
    }
    done += static_cast<size_t>(n);
  }
  if (lseek(fd, 0, SEEK_SET) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

ExitStatus LostExit() {
  return ExitStatus{false, -1, "the supervisor died without recording the exit status"};
}

}  // namespace

LocalExecutor::LocalExecutor(ExecutorOptions options) : options_(std::move(options)) {
  if (options_.supervisor_path.empty()) options_.supervisor_path = SupervisorBesideSelf();
}

Result<RunInfo> LocalExecutor::Start(JobId id, int attempt, const JobRequest& request,
                                     const RunPlace& place, bool resume) {
  std::string what = "job " + std::to_string(id) + " attempt " + std::to_string(attempt);
  if (request.command.empty()) return Status::Error(what + ": the job has no command");
  {
    std::lock_guard lock(mu_);
    if (runs_.count(id) || starting_.count(id)) {
      return Status::Error(what + ": the job is already running");
    }
    starting_.insert(id);
  }
  Result<Run> started = StartRun(id, attempt, request, place.cuda_gpus, resume, what);
  std::lock_guard lock(mu_);
  starting_.erase(id);
  if (!started.ok()) return started.status();
  runs_[id] = *started;
  return started->info;
}

// Start without the lock: the supervisor forked and its run file read.
Result<LocalExecutor::Run> LocalExecutor::StartRun(JobId id, int attempt, const JobRequest& request,
                                        const std::vector<int>& gpu_indices, bool resume,
                                        const std::string& what) {
  Status dirs = MakeRunDirs(options_.data_dir, id);
  if (!dirs.ok()) return dirs.WithContext(what);
  RunPaths paths = PathsOf(options_.data_dir, id, attempt);
  if (Exists(paths.run) || Exists(paths.exit)) {
    return Status::Error(what + " was already started (" + paths.run + " exists)");
  }
  RunSpec args{.data_dir = options_.data_dir, .id = id, .attempt = attempt};
  args.workdir = request.workdir;
  args.user = request.run_as;
  args.command = request.command;
  args.cgroup_parent = options_.tracking.cgroup_parent;
  if (options_.tracking.limits) {
    args.cpu_milli = request.spec.cpu_milli;
    args.memory_bytes = request.spec.memory_mib * (int64_t{1} << 20);
  }
  args.max_log_bytes = options_.max_log_bytes;
  args.leftover_grace_s = options_.leftover_grace_s;
  std::optional<UnixAccount> owner;
  if (!request.run_as.empty()) {
    Result<UnixAccount> account = AccountNamed(request.run_as);
    if (!account.ok()) return account.status().WithContext(what);
    owner = std::move(*account);
  }
  if (args.workdir.empty()) {
    args.workdir = options_.data_dir + "/jobs/" + std::to_string(id);
    const std::string jobs = options_.data_dir + "/jobs";
    mkdir(jobs.c_str(), 0711);
    chmod(jobs.c_str(), 0711);  // passed through by the owners of its folders; umask 077
    mkdir(args.workdir.c_str(), owner ? 0700 : 0755);
    if (owner) (void)GiveTo(args.workdir, *owner, 0700);
  }
  if (Status s = SetOutputFiles(id, attempt, request, owner, args); !s.ok()) {
    return s.WithContext(what);
  }
  // The checkpoint folder is the owner's alone (the supervisor reads its marker as the owner).
  if (owner) {
    if (Status s = GiveTo(paths.checkpoint_dir, *owner, 0700); !s.ok()) return s.WithContext(what);
  }
  args.env = LocalJobEnvironment(id, attempt, request, gpu_indices, resume, paths.checkpoint_dir,
                                 PlaceOfRun(options_.data_dir, id));
  const std::string spec = EncodeRunSpec(args);
  std::vector<std::string> argv_strings = {options_.supervisor_path, "--run"};
  std::vector<std::string> env_strings = SupervisorEnvironment();
  std::vector<char*> argv = ExecPointers(argv_strings);
  std::vector<char*> envp = ExecPointers(env_strings);
  const char* supervisor = options_.supervisor_path.c_str();

  // Until the run file is there: a daemon killed in between may have left a supervisor on its
  // way, which Reattach waits for (StartingPath).
  const std::string starting = StartingPath(paths);
  if (const int fd = open(starting.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600); fd >= 0) {
    close(fd);  // not fsynced: it is for a daemon killed, not for a power loss
  } else {
    return Status::Error(what + ": cannot create " + starting + ": " + std::strerror(errno));
  }
  const int spec_fd = SpecFile(spec);
  if (spec_fd < 0) {
    unlink(starting.c_str());
    return Status::Error(what + ": cannot hand the supervisor its spec: " + std::strerror(errno));
  }
  SupervisorChild child{spec_fd, supervisor, argv.data(), envp.data(), {}};
  pthread_sigmask(SIG_SETMASK, nullptr, &child.mask);  // the supervisor's, as a fork gives it
  const pid_t pid = SpawnSharingMemory(ExecSupervisor, &child);
  if (pid < 0) {
    const int e = errno;
    unlink(starting.c_str());
    close(spec_fd);
    return Status::Error(what + ": cannot start the supervisor: " + std::strerror(e));
  }
  close(spec_fd);
  Result<RunRecord> record = WaitForRunRecord(pid, paths);
  unlink(starting.c_str());
  if (!record.ok()) return record.status().WithContext(what);
  return RunFrom(id, attempt, *record);
}

LocalExecutor::Run LocalExecutor::RunFrom(JobId id, int attempt, const RunRecord& record) const {
  const RunPaths paths = PathsOf(options_.data_dir, id, attempt);
  Run run;
  run.info = RunInfo{id, attempt, record.supervisor_pid, record.job_pid, std::nullopt,
                     paths.log, TrimMarker(ReadFileIfPresent(paths.marker).value_or("")), ""};
  run.supervisor_start = record.supervisor_start;
  run.cgroup = record.cgroup;
  return run;
}

Status LocalExecutor::CheckRunnable(const JobRequest& request) const {
  if (request.command.empty()) return Status::Error("command: the job has no command");
  CheckSpec check{request.run_as, request.workdir, "", request.command};
  if (auto path = request.env.find("PATH"); path != request.env.end()) {
    check.path = path->second;
  } else if (request.run_as.empty()) {
    check.path = std::getenv("PATH") ? std::getenv("PATH") : "";
  }
  auto out = RunCommandWithInput({options_.supervisor_path, "--check"}, SupervisorEnvironment(),
                                 EncodeCheckSpec(check), 10000);
  if (!out.ok()) return Status::Error("cannot check the job: " + out.status().message());
  if (out->exit_code == 0) return Status::Ok();
  std::string problem = out->out.empty() ? out->err : out->out;
  while (!problem.empty() && problem.back() == '\n') problem.pop_back();
  if (out->timed_out) problem = "the check of its workdir and command took over 10 s";
  if (problem.empty()) problem = "the check exited " + std::to_string(out->exit_code);
  return Status::Error(problem);
}

// Reaps the process Start forked (it exits as soon as the supervisor has detached), then
// waits for the detached supervisor to record the job's pid.
Result<RunRecord> LocalExecutor::WaitForRunRecord(pid_t intermediate, const RunPaths& paths) {
  int status = 0;
  while (waitpid(intermediate, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Status::Error("cannot start the supervisor " + options_.supervisor_path +
                         " (exit status " + std::to_string(status) + ")");
  }
  for (int waited = 0; waited <= options_.start_timeout_ms; waited += 2) {
    std::optional<std::string> text = ReadFileIfPresent(paths.run);
    if (text) {
      std::optional<RunRecord> record = ParseRunRecord(*text);
      if (record) return *record;
      return Status::Error("unreadable run file " + paths.run);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return Status::Error("the supervisor wrote no run file " + paths.run + " in " +
                       std::to_string(options_.start_timeout_ms) + " ms");
}

Status LocalExecutor::Signal(JobId id, bool group, int sig) {
  auto it = runs_.find(id);
  if (it == runs_.end()) return Status::Error("job " + std::to_string(id) + " is not running");
  const Run& run = it->second;
  // While the supervisor lives and no exit is recorded, the job's pid is not reused.
  if (Exists(PathsOf(options_.data_dir, id, run.info.attempt).exit) ||
      !ProcessIsAlive(run.info.supervisor_pid, run.supervisor_start)) {
    return Status::Error("job " + std::to_string(id) + " has already ended");
  }
  if (!group) {
    if (kill(run.info.pgid, sig) != 0 && errno != ESRCH) {
      return Status::Error("cannot signal job " + std::to_string(id) + ": " + std::strerror(errno));
    }
    return Status::Ok();
  }
  // The group first (the job's own processes, at once), then every process of the run that
  // left it (setsid, a double fork): its cgroup, or its supervisor's descendants.
  kill(-run.info.pgid, sig);
  SignalRun(RunProcesses{run.cgroup, run.info.supervisor_pid}, sig);
  return Status::Ok();
}

Status LocalExecutor::RequestCheckpoint(JobId id) {
  std::lock_guard lock(mu_);
  return Signal(id, false, SIGUSR1);
}

Status LocalExecutor::Stop(JobId id, Time now, Time grace) {
  std::lock_guard lock(mu_);
  Status sent = Signal(id, true, SIGTERM);
  if (!sent.ok()) return sent;
  Run& run = runs_[id];
  if (!run.kill_at || *run.kill_at > now + grace) run.kill_at = now + grace;
  return Status::Ok();
}

std::optional<std::string> LocalExecutor::NewCheckpoint(Run& run) const {
  const std::string marker = TrimMarker(
      ReadFileIfPresent(PathsOf(options_.data_dir, run.info.id, run.info.attempt).marker).value_or(""));
  if (marker.empty() || marker == run.info.last_checkpoint) return std::nullopt;
  run.info.last_checkpoint = marker;
  return marker;
}

std::vector<ExecEvent> LocalExecutor::Poll(Time now) {
  std::lock_guard lock(mu_);
  std::vector<ExecEvent> events;
  for (auto it = runs_.begin(); it != runs_.end();) {
    Run& run = it->second;
    const RunInfo& info = run.info;
    bool alive = ProcessIsAlive(info.supervisor_pid, run.supervisor_start);
    // The exit first: the supervisor relays the marker's last word before it records the exit,
    // so a marker read after an exit was seen is the run's last.
    std::optional<ExitStatus> exit =
        ReadExit(PathsOf(options_.data_dir, info.id, info.attempt).exit);
    if (std::optional<std::string> marker = NewCheckpoint(run)) {
      ExecEvent& e = events.emplace_back();
      e.kind = ExecEvent::Kind::kCheckpoint;
      e.id = info.id;
      e.attempt = info.attempt;
      e.checkpoint = *marker;
    }
    if (!exit && !alive) exit = LostExit();
    if (exit) {
      ExecEvent& e = events.emplace_back();
      e.id = info.id;
      e.attempt = info.attempt;
      e.exit = *exit;
      it = runs_.erase(it);
      continue;
    }
    if (run.kill_at && now >= *run.kill_at) {
      kill(-info.pgid, SIGKILL);
      SignalRun(RunProcesses{run.cgroup, info.supervisor_pid}, SIGKILL);
      run.kill_at.reset();
    }
    ++it;
  }
  return events;
}

// A start the daemon was killed in (its .starting file, no run file yet) may still have a
// supervisor on its way: its run file is waited for (the start timeout), so that the run is
// taken back rather than the attempt taken for one that never began.
void LocalExecutor::WaitForInterruptedStarts(const std::string& runs_dir) {
  DIR* dir = opendir(runs_dir.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> starting;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.size() > 9 && name.compare(name.size() - 9, 9, ".starting") == 0) {
      starting.push_back(runs_dir + "/" + name);
    }
  }
  closedir(dir);
  for (const std::string& path : starting) {
    const std::string run = path.substr(0, path.size() - 9) + ".run";
    for (int waited = 0; waited < options_.start_timeout_ms && !Exists(run); waited += 5) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    unlink(path.c_str());
  }
}

Result<std::vector<RunInfo>> LocalExecutor::Reattach() {
  std::lock_guard lock(mu_);
  std::string runs_dir = options_.data_dir + "/runs";
  WaitForInterruptedStarts(runs_dir);
  DIR* dir = opendir(runs_dir.c_str());
  if (dir == nullptr) {
    if (errno == ENOENT) return std::vector<RunInfo>{};
    return Status::Error("cannot read " + runs_dir + ": " + std::strerror(errno));
  }
  std::map<JobId, int> latest;
  while (dirent* entry = readdir(dir)) {
    long long id = 0;
    int attempt = 0, used = 0;
    std::string name = entry->d_name;
    if (std::sscanf(name.c_str(), "%lld.%d.run%n", &id, &attempt, &used) == 2 &&
        used == static_cast<int>(name.size()) && attempt >= latest[id]) {
      latest[id] = attempt;
    }
  }
  closedir(dir);
  std::vector<RunInfo> out;
  for (const auto& [id, attempt] : latest) {
    RunPaths paths = PathsOf(options_.data_dir, id, attempt);
    std::optional<std::string> text = ReadFileIfPresent(paths.run);
    std::optional<RunRecord> record = text ? ParseRunRecord(*text) : std::nullopt;
    if (!record) return Status::Error("unreadable run file " + paths.run);
    Run run = RunFrom(id, attempt, *record);
    bool alive = ProcessIsAlive(record->supervisor_pid, record->supervisor_start);
    run.info.exit = ReadExit(paths.exit);
    if (!run.info.exit && !alive) {
      run.info.exit = LostExit();
    }
    if (!run.info.exit) runs_[id] = run;
    out.push_back(run.info);
  }
  return out;
}

}  // namespace squeeze
