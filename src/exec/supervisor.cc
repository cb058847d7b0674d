#include "exec/supervisor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "exec/run_files.h"
#include "exec/unix_account.h"

namespace squeeze {
namespace {

constexpr int kCannotRun = 127;

void AppendToLog(int log_fd, const std::string& line) {
  std::string text = "squeeze-supervisor: " + line + "\n";
  if (write(log_fd, text.data(), text.size()) < 0) {
  }
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

// In the forked job process: its own group, its owner's account (for good), the workdir, its
// output files (opened as that account) or the log, default signal handling, then exec. On
// failure writes the step and errno to `err_fd` and exits 127.
[[noreturn]] void ExecJob(const SupervisorArgs& args, const UnixAccount* owner, char** argv,
                          int log_fd, int err_fd) {
  setpgid(0, 0);
  // Default handling first, then unblock: a stop (SIGTERM) sent to the group while the
  // supervisor's SIG_IGN was still inherited was held blocked (RunJob), and ends the job now.
  for (int sig : {SIGHUP, SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE}) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);  // dup2 below gives fd 0 without it
  int err[2] = {0, 0};
  errno = 0;
  int out_fd = log_fd, error_fd = log_fd;
  if (owner != nullptr && !BecomeAccount(*owner).ok()) {
    err[0] = kBecome;
  } else if (chdir(args.workdir.c_str()) != 0) {
    err[0] = kEnterWorkdir;
  } else if (!args.output.empty() && (out_fd = OpenOutput(args.output, args.append)) < 0) {
    err[0] = kOpenOutput;
  } else if (error_fd = args.error.empty() || args.error == args.output
                            ? out_fd
                            : OpenOutput(args.error, args.append);
             error_fd < 0) {
    err[0] = kOpenError;
  } else if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 ||
             dup2(error_fd, 2) < 0) {
    err[0] = kRedirect;
  } else {
    execvp(argv[0], argv);
    err[0] = kExec;
  }
  err[1] = errno;
  if (write(err_fd, err, sizeof(err)) < 0) {
  }
  _exit(kCannotRun);
}

std::string DescribeFailure(const SupervisorArgs& args, int step, int err) {
  std::string why = std::strerror(err);
  const std::string as = args.user.empty() ? "" : " as user '" + args.user + "'";
  if (step == kBecome) return "cannot run as user '" + args.user + "': " + why;
  if (step == kEnterWorkdir) return "cannot enter workdir '" + args.workdir + "'" + as + ": " + why;
  if (step == kOpenOutput) return "cannot open the output file '" + args.output + "'" + as + ": " + why;
  if (step == kOpenError) return "cannot open the error file '" + args.error + "'" + as + ": " + why;
  if (step == kRedirect) return "cannot redirect the job's output: " + why;
  return "cannot run '" + args.command[0] + "'" + as + ": " + why;
}

ExitStatus WaitForJob(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return ExitStatus{false, -1, std::string("lost the job: ") + std::strerror(errno)};
    }
  }
  if (WIFSIGNALED(status)) return ExitStatus{true, WTERMSIG(status), ""};
  return ExitStatus{false, WEXITSTATUS(status), ""};
}

// The detached part: runs the job to its end and records how it ended.
int Supervise(const SupervisorArgs& args) {
  for (int sig : {SIGHUP, SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE}) signal(sig, SIG_IGN);
  RunPaths paths = PathsOf(args.data_dir, args.id, args.attempt);
  std::optional<UnixAccount> owner;
  if (!args.user.empty()) {
    Result<UnixAccount> account = AccountNamed(args.user);
    if (!account.ok()) {
      (void)WriteFileAtomically(paths.exit,
                                FormatExitStatus({false, kCannotRun, account.status().message()}));
      return 1;
    }
    owner = std::move(*account);
  }
  // The log is the owner's alone (the daemon, root, reads it for the API).
  int log_fd = open(paths.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                    owner ? 0600 : 0644);
  if (log_fd >= 0 && owner && fchown(log_fd, owner->uid, owner->gid) != 0) {
    AppendToLog(log_fd, "cannot give the log to user '" + owner->name + "': " +
                            std::strerror(errno));
  }
  if (log_fd < 0) log_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (!args.output.empty() || !args.error.empty()) {
    const std::string out = args.output.empty() ? "this log" : args.output;
    AppendToLog(log_fd, "job " + std::to_string(args.id) + " attempt " +
                            std::to_string(args.attempt) + ": stdout goes to " + out +
                            (args.error.empty() || args.error == args.output
                                 ? ", stderr with it"
                                 : ", stderr to " + args.error) +
                            (args.append ? " (appended to)" : ""));
  }
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) return 1;
  std::vector<char*> argv;
  for (const std::string& a : args.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  // The stop signals stay blocked from the fork until the job resets their handling
  // (ExecJob): one sent as soon as the run is known is kept pending, not dropped as ignored.
  sigset_t stops, before;
  sigemptyset(&stops);
  for (int sig : {SIGHUP, SIGINT, SIGTERM}) sigaddset(&stops, sig);
  sigprocmask(SIG_BLOCK, &stops, &before);
  pid_t pid = fork();
  if (pid != 0) sigprocmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) {
    (void)WriteFileAtomically(paths.exit, FormatExitStatus({false, kCannotRun, "cannot fork"}));
    return 1;
  }
  if (pid == 0) ExecJob(args, owner ? &*owner : nullptr, argv.data(), log_fd, err_pipe[1]);
  setpgid(pid, pid);
  close(err_pipe[1]);
  RunRecord record{getpid(), ProcessStartTime(getpid()).value_or(0), pid};
  Status written = WriteFileAtomically(paths.run, FormatRunRecord(record));
  if (!written.ok()) AppendToLog(log_fd, written.message());

  int err[2] = {0, 0};
  ssize_t n;
  while ((n = read(err_pipe[0], err, sizeof(err))) < 0 && errno == EINTR) {
  }
  close(err_pipe[0]);
  ExitStatus exit = WaitForJob(pid);
  if (n == static_cast<ssize_t>(sizeof(err))) exit.error = DescribeFailure(args, err[0], err[1]);
  if (!exit.error.empty()) AppendToLog(log_fd, exit.error);
  std::string ended = FormatExitStatus(exit);
  AppendToLog(log_fd, "job " + std::to_string(args.id) + " attempt " +
                          std::to_string(args.attempt) + " ended: " +
                          ended.substr(0, ended.find('\n')));
  Status recorded = WriteFileAtomically(paths.exit, FormatExitStatus(exit));
  if (!recorded.ok()) AppendToLog(log_fd, recorded.message());
  return recorded.ok() ? 0 : 1;
}

}  // namespace

std::vector<std::string> SupervisorCommandLine(const std::string& supervisor_path,
                                               const SupervisorArgs& args) {
  std::vector<std::string> line = {supervisor_path};
  if (!args.output.empty()) line.push_back("--output=" + args.output);
  if (!args.error.empty()) line.push_back("--error=" + args.error);
  if (args.append) line.push_back("--append");
  line.insert(line.end(), {args.data_dir, std::to_string(args.id), std::to_string(args.attempt),
                           args.workdir, args.user.empty() ? "-" : args.user, "--"});
  line.insert(line.end(), args.command.begin(), args.command.end());
  return line;
}

std::optional<SupervisorArgs> ParseSupervisorArgs(int argc, char** argv) {
  SupervisorArgs args;
  int options = 0;  // the --output=, --error= and --append before DATA_DIR
  for (; 1 + options < argc; ++options) {
    const std::string_view word = argv[1 + options];
    if (word.starts_with("--output=")) {
      args.output = word.substr(9);
    } else if (word.starts_with("--error=")) {
      args.error = word.substr(8);
    } else if (word == "--append") {
      args.append = true;
    } else {
      break;
    }
  }
  argc -= options;
  argv += options;
  if (argc < 8 || std::string(argv[6]) != "--") return std::nullopt;
  args.data_dir = argv[1];
  char* end = nullptr;
  args.id = std::strtoll(argv[2], &end, 10);
  if (*end != '\0') return std::nullopt;
  args.attempt = static_cast<int>(std::strtol(argv[3], &end, 10));
  if (*end != '\0') return std::nullopt;
  args.workdir = argv[4];
  if (std::string(argv[5]) != "-") args.user = argv[5];
  for (int i = 7; i < argc; ++i) args.command.push_back(argv[i]);
  return args;
}

int RunSupervisor(const SupervisorArgs& args) {
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
  _exit(Supervise(args));
}

}  // namespace squeeze
