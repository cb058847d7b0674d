#include "exec/supervisor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <climits>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "exec/marker_relay.h"
#include "exec/run_files.h"
#include "exec/run_tracking.h"
#include "exec/run_watch.h"
#include "exec/unix_account.h"

extern char** environ;

namespace squeeze {
namespace {

constexpr int kCannotRun = 127;

void Note(int log_fd, const std::string& line) {
  const std::string text = "squeeze-supervisor: " + line + "\n";
  if (write(log_fd, text.data(), text.size()) < 0) {
  }
}

// Standard input, whole, up to kMaxSpecBytes (one byte more says it was over).
std::string ReadInput() {
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(0, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxSpecBytes) break;
  }
  return text;
}

// Failure steps of ExecJob, written to the supervisor with errno.
enum Step : int { kEnterWorkdir = 1, kRedirect, kExec, kBecome, kOpenOutput, kOpenError };

// The job's own file for stdout or stderr, opened as the job's account: emptied at the first
// attempt, appended to at later ones. -1 with errno on failure.
int OpenOutput(const std::string& path, bool append) {
  return open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY |
                                (append ? 0 : O_TRUNC),
              0644);
}

// What ExecJob needs, made before the fork.
struct JobLaunch {
  const RunSpec& spec;
  const UnixAccount* owner;
  std::string cgroup;            // "" = none
  std::vector<std::string> env;  // the job's environment, HOME/USER/LOGNAME of the owner set
  int log_fd;                    // the write end of the pipe into the run's log
  int err_fd;                    // where a failure is reported
};

// In the forked job process: its own group and cgroup, default signal handling, its owner's
// account (for good), the workdir, its output files (opened as that account) or the log, its
// own environment, then exec. On failure writes the step and errno to `err_fd`, exits 127.
[[noreturn]] void ExecJob(JobLaunch& job) {
  setpgid(0, 0);
  if (!job.cgroup.empty()) (void)JoinCgroup(job.cgroup);  // else the subreaper still tracks it
  // Default handling first, then unblock: a stop (SIGTERM) sent to the group while the
  // supervisor's SIG_IGN was still inherited was held blocked (StartJob), and ends the job now.
  for (int sig : {SIGHUP, SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE}) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);  // dup2 below gives fd 0 without it
  const RunSpec& spec = job.spec;
  int err[2] = {0, 0};
  errno = 0;
  int out_fd = job.log_fd, error_fd = job.log_fd;
  if (job.owner != nullptr && !BecomeAccount(*job.owner).ok()) {
    err[0] = kBecome;
  } else if (chdir(spec.workdir.c_str()) != 0) {
    err[0] = kEnterWorkdir;
  } else if (!spec.output.empty() && (out_fd = OpenOutput(spec.output, spec.append)) < 0) {
    err[0] = kOpenOutput;
  } else if (error_fd = spec.error.empty() || spec.error == spec.output
                            ? out_fd
                            : OpenOutput(spec.error, spec.append);
             error_fd < 0) {
    err[0] = kOpenError;
  } else if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 ||
             dup2(error_fd, 2) < 0) {
    err[0] = kRedirect;
  } else {
    std::vector<char*> argv, envp;
    for (const std::string& a : spec.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (std::string& e : job.env) envp.push_back(e.data());
    envp.push_back(nullptr);
    environ = envp.data();  // execvp searches the job's PATH, as the job's account
    execvp(argv[0], argv.data());
    err[0] = kExec;
  }
  err[1] = errno;
  if (write(job.err_fd, err, sizeof(err)) < 0) {
  }
  _exit(kCannotRun);
}

const char* StepName(int step) {
  switch (step) {
    case kBecome: return "become";
    case kEnterWorkdir: return "workdir";
    case kOpenOutput: return "output";
    case kOpenError: return "error";
    case kRedirect: return "redirect";
    default: return "exec";
  }
}

std::string DescribeFailure(const RunSpec& spec, int step, int err) {
  std::string why = std::strerror(err);
  const std::string as = spec.user.empty() ? "" : " as user '" + spec.user + "'";
  if (step == kBecome) return "cannot run as user '" + spec.user + "': " + why;
  if (step == kEnterWorkdir) return "cannot enter workdir '" + spec.workdir + "'" + as + ": " + why;
  if (step == kOpenOutput) return "cannot open the output file '" + spec.output + "'" + as + ": " + why;
  if (step == kOpenError) return "cannot open the error file '" + spec.error + "'" + as + ": " + why;
  if (step == kRedirect) return "cannot redirect the job's output: " + why;
  return "cannot run '" + spec.command[0] + "'" + as + ": " + why;
}

// The job's environment as given, with the owner's HOME, USER and LOGNAME.
std::vector<std::string> JobEnvironment(const RunSpec& spec, const UnixAccount* owner) {
  std::vector<std::string> env;
  for (const std::string& e : spec.env) {
    if (owner && (e.rfind("HOME=", 0) == 0 || e.rfind("USER=", 0) == 0 ||
                  e.rfind("LOGNAME=", 0) == 0)) {
      continue;
    }
    env.push_back(e);
  }
  if (owner) {
    env.push_back("HOME=" + owner->home);
    env.push_back("USER=" + owner->name);
    env.push_back("LOGNAME=" + owner->name);
  }
  return env;
}

// The run's log, the supervisor's own (a job cannot rewrite what squeeze wrote there).
int OpenLog(const std::string& path) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  return fd;
}

// The run's cgroup, made with its limits; "" when the run is tracked as a subreaper only.
std::string MakeCgroup(const RunSpec& spec, int log_fd) {
  if (spec.cgroup_parent.empty()) return "";
  const std::string path = RunCgroupPath(spec.cgroup_parent, spec.id, spec.attempt);
  const bool limits = spec.cpu_milli > 0 || spec.memory_bytes > 0;
  if (Status s = MakeRunCgroup(path, limits, spec.cpu_milli, spec.memory_bytes); !s.ok()) {
    Note(log_fd, s.message() + "; the run's processes are tracked by the supervisor instead");
    RemoveRunCgroup(path);
    return "";
  }
  return path;
}

void RecordExit(const RunPaths& paths, const ExitStatus& exit, int log_fd) {
  if (Status s = WriteFileAtomically(paths.exit, FormatExitStatus(exit)); !s.ok()) {
    Note(log_fd, s.message());
  }
}

// The detached part: runs the job to its end and records how it ended.
int Supervise(const RunSpec& spec) {
  for (int sig : {SIGHUP, SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE}) signal(sig, SIG_IGN);
  prctl(PR_SET_CHILD_SUBREAPER, 1);  // a process that leaves its parent stays in the run
  const RunPaths paths = PathsOf(spec.data_dir, spec.id, spec.attempt);
  std::optional<UnixAccount> owner;
  if (!spec.user.empty()) {
    Result<UnixAccount> account = AccountNamed(spec.user);
    if (!account.ok()) {
      (void)WriteFileAtomically(
          paths.exit, FormatExitStatus({false, kCannotRun, account.status().message(), false, "account"}));
      return 1;
    }
    owner = std::move(*account);
  }
  const int log_fd = OpenLog(paths.log);
  if (!spec.output.empty() || !spec.error.empty()) {
    const std::string out = spec.output.empty() ? "this log" : spec.output;
    Note(log_fd, "job " + std::to_string(spec.id) + " attempt " + std::to_string(spec.attempt) +
                     ": stdout goes to " + out +
                     (spec.error.empty() || spec.error == spec.output ? ", stderr with it"
                                                                      : ", stderr to " + spec.error) +
                     (spec.append ? " (appended to)" : ""));
  }
  MarkerRelay marker(owner, paths.checkpoint_dir, paths.marker, log_fd);
  marker.Check();  // the marker as the run begins: only a newer one is a checkpoint of this run
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    RecordExit(paths, {false, kCannotRun, "cannot make pipes"}, log_fd);
    return 1;
  }
  JobLaunch launch{spec, owner ? &*owner : nullptr, MakeCgroup(spec, log_fd),
                   JobEnvironment(spec, owner ? &*owner : nullptr), out_pipe[1], err_pipe[1]};

  // The stop signals stay blocked from the fork until the job resets their handling
  // (ExecJob): one sent as soon as the run is known is kept pending, not dropped as ignored.
  sigset_t stops, before;
  sigemptyset(&stops);
  for (int sig : {SIGHUP, SIGINT, SIGTERM}) sigaddset(&stops, sig);
  sigprocmask(SIG_BLOCK, &stops, &before);
  const pid_t pid = fork();
  if (pid != 0) sigprocmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) {
    RecordExit(paths, {false, kCannotRun, "cannot fork"}, log_fd);
    return 1;
  }
  if (pid == 0) ExecJob(launch);
  setpgid(pid, pid);
  close(out_pipe[1]);
  close(err_pipe[1]);
  RunRecord record{getpid(), ProcessStartTime(getpid()).value_or(0), pid, launch.cgroup};
  if (Status written = WriteFileAtomically(paths.run, FormatRunRecord(record)); !written.ok()) {
    Note(log_fd, written.message());
  }

  RunWatch watch({pid, out_pipe[0], err_pipe[0], log_fd, spec.max_log_bytes,
                  spec.leftover_grace_s, RunProcesses{launch.cgroup, getpid()}},
                 marker);
  ExitStatus exit = watch.Run();
  RemoveRunCgroup(launch.cgroup);
  if (watch.failure()) {
    exit.error = DescribeFailure(spec, watch.failure()->first, watch.failure()->second);
    exit.step = StepName(watch.failure()->first);
  }
  if (!exit.error.empty()) Note(log_fd, exit.error);
  const std::string ended = FormatExitStatus(exit);
  Note(log_fd, "job " + std::to_string(spec.id) + " attempt " + std::to_string(spec.attempt) +
                   " ended: " + ended.substr(0, ended.find('\n')));
  marker.Check();  // a checkpoint the job made as it ended is relayed before its exit
  RecordExit(paths, exit, log_fd);
  return 0;
}

}  // namespace

std::string SupervisorBesideSelf() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "squeeze-supervisor";
  std::string path(self, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/') + 1) + "squeeze-supervisor";
}

std::vector<std::string> SupervisorEnvironment() {
  return {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C"};
}

int RunSupervisor(const RunSpec& spec) {
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid > 0) return 0;
  setsid();
  int null_fd = open("/dev/null", O_RDWR);
  if (null_fd >= 0) {
    dup2(null_fd, 0);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
    if (null_fd > 2) close(null_fd);
  }
  _exit(Supervise(spec));
}

int SupervisorMain(int argc, char** argv) {
  const std::string mode = argc == 2 ? argv[1] : "";
  if (mode == "--run" || mode == "--check" || mode == "--read") {
    const std::string input = ReadInput();
    if (mode == "--run") {
      Result<RunSpec> spec = DecodeRunSpec(input);
      if (spec.ok()) return RunSupervisor(*spec);
      std::fprintf(stderr, "squeeze-supervisor: %s\n", spec.status().message().c_str());
    } else if (mode == "--check") {
      Result<CheckSpec> spec = DecodeCheckSpec(input);
      if (spec.ok()) return RunCheck(*spec);
      std::printf("%s\n", spec.status().message().c_str());
    } else {
      Result<ReadSpec> spec = DecodeReadSpec(input);
      if (spec.ok()) return RunRead(*spec);
      std::printf("error %s\n", spec.status().message().c_str());
    }
    return 2;
  }
  std::fprintf(stderr,
               "usage: squeeze-supervisor --run|--check|--read < SPEC\n"
               "(started by squeeze serve, which writes what to do on its standard input; not "
               "meant to be run by hand)\n");
  return 2;
}

}  // namespace squeeze
