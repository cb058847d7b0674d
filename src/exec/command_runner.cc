#include "exec/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "exec/process_priority.h"
#include "exec/vm_spawn.h"

extern char** environ;

namespace squeeze {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::vector<std::string> EnvironmentWith(const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [k, v] : extra) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> ExecPointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + a;
  if (out.size() > 200) out = out.substr(0, 197) + "...";
  return out;
}

void LowerThisThreadsPriority(int nicer) {
  const id_t tid = static_cast<id_t>(syscall(SYS_gettid));
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, tid);
  if (errno == 0) (void)setpriority(PRIO_PROCESS, tid, std::min(19, now + nicer));
}

namespace {

// Reads the command's stdout and stderr, and writes `input` to its stdin, until both outputs
// end or the deadline passes (the command is then killed).
void Exchange(pid_t pid, int out_fd, int err_fd, int in_fd, const std::string& input,
              int timeout_ms, CommandOutput& result) {
  const int64_t deadline = timeout_ms > 0 ? NowMs() + timeout_ms : 0;
  pollfd fds[3] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}, {in_fd, POLLOUT, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  size_t written = 0;
  if (in_fd >= 0 && input.empty()) {
    close(in_fd);
    fds[2].fd = -1;
  }
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    int wait_ms = -1;
    if (deadline > 0) {
      wait_ms = static_cast<int>(std::max<int64_t>(0, deadline - NowMs()));
      if (wait_ms == 0) {
        kill(pid, SIGKILL);
        result.timed_out = true;
        break;
      }
    }
    if (poll(fds, 3, wait_ms) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
      }
    }
    if (fds[2].fd >= 0 && fds[2].revents != 0) {
      const ssize_t n = (fds[2].revents & POLLOUT)
                            ? send(fds[2].fd, input.data() + written, input.size() - written,
                                   MSG_NOSIGNAL | MSG_DONTWAIT)
                            : -1;
      if (n > 0) written += static_cast<size_t>(n);
      if ((n < 0 && errno != EINTR && errno != EAGAIN) || written == input.size()) {
        close(fds[2].fd);
        fds[2].fd = -1;
      }
    }
  }
  for (pollfd& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
}

// What the child of Run needs, set up before it is made (it may not allocate).
struct ChildFds {
  int in;  // -1: /dev/null
  int out, err, exec_failed;
  int nicer;
  char** argv;
  char** envp;
};

// The child of Run, in the daemon's memory until it execs (exec/vm_spawn.h): async-signal-safe
// calls only.
int ExecTool(void* arg) {
  const ChildFds& c = *static_cast<const ChildFds*>(arg);
  dup2(c.in >= 0 ? c.in : open("/dev/null", O_RDONLY), 0);
  dup2(c.out, 1);
  dup2(c.err, 2);
  // Nothing else of the daemon's reaches the tool (4 = CLOSE_RANGE_CLOEXEC: closed at exec,
  // so the pipe that reports a failed exec stays usable until then).
  syscall(SYS_close_range, 3u, ~0u, 4u);
  signal(SIGPIPE, SIG_DFL);
  ChildPriority(c.nicer);  // the daemon's own priority is not the tool's
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execvpe(c.argv[0], c.argv, c.envp);
  const int e = errno;
  (void)!write(c.exec_failed, &e, sizeof(e));
  return 127;
}

Result<CommandOutput> Run(const std::vector<std::string>& argv, std::vector<std::string> envs,
                          const std::string* input, int timeout_ms, int nicer) {
  if (argv.empty()) return Status::Error("no command to run");
  std::vector<std::string> args = argv;
  std::vector<char*> argp = ExecPointers(args);
  std::vector<char*> envp = ExecPointers(envs);
  int out_pipe[2], err_pipe[2], exec_pipe[2], in_pair[2] = {-1, -1};
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
      pipe2(exec_pipe, O_CLOEXEC) != 0 ||
      (input != nullptr && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_pair) != 0)) {
    return Status::Error(CommandLine(argv) + ": cannot make pipes: " + std::strerror(errno));
  }
  ChildFds fds{input != nullptr ? in_pair[1] : -1, out_pipe[1], err_pipe[1], exec_pipe[1], nicer,
               argp.data(), envp.data()};
  const pid_t pid = SpawnSharingMemory(ExecTool, &fds);
  if (pid < 0) {
    const std::string why = std::strerror(errno);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], exec_pipe[0], exec_pipe[1],
                   in_pair[0], in_pair[1]}) {
      if (fd >= 0) close(fd);
    }
    return Status::Error(CommandLine(argv) + ": cannot start it: " + why);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(exec_pipe[1]);
  if (input != nullptr) close(in_pair[1]);
  int exec_errno = 0;
  const bool exec_failed = read(exec_pipe[0], &exec_errno, sizeof(exec_errno)) == sizeof(exec_errno);
  close(exec_pipe[0]);
  CommandOutput result;
  Exchange(pid, out_pipe[0], err_pipe[0], in_pair[0], input ? *input : std::string(), timeout_ms,
           result);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (exec_failed) {
    return Status::Error("cannot run " + argv[0] + ": " + std::strerror(exec_errno));
  }
  result.exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  return result;
}

}  // namespace

Result<CommandOutput> RunCommand(const std::vector<std::string>& argv,
                                 const std::map<std::string, std::string>& env, int timeout_ms,
                                 int nicer) {
  return Run(argv, EnvironmentWith(env), nullptr, timeout_ms, nicer);
}

Result<CommandOutput> RunCommandWithEnvironment(const std::vector<std::string>& argv,
                                                const std::vector<std::string>& env,
                                                int timeout_ms, int nicer) {
  return Run(argv, env, nullptr, timeout_ms, nicer);
}

Result<CommandOutput> RunCommandWithInput(const std::vector<std::string>& argv,
                                          const std::vector<std::string>& env,
                                          const std::string& input, int timeout_ms) {
  return Run(argv, env, &input, timeout_ms, 0);
}

}  // namespace squeeze
