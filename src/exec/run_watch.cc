#include "exec/run_watch.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>

namespace squeeze {
namespace {

constexpr int kMarkerEveryMs = 1000;
constexpr int kKillWaitMs = 10000;   // after SIGKILL, how long the last processes may take
constexpr int kDrainMs = 2000;       // after the run, how long its output may still come
constexpr size_t kCopyPerWake = 1 << 20;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void Note(int log_fd, const std::string& line) {
  const std::string text = "squeeze-supervisor: " + line + "\n";
  WriteAll(log_fd, text.data(), text.size());
}

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

void RunWatch::CopyOutput() {
  char buf[65536];
  for (size_t copied = 0; run_.output_fd >= 0 && copied < kCopyPerWake;) {
    const ssize_t n = read(run_.output_fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) return CloseFd(run_.output_fd);  // every writer is gone
    copied += static_cast<size_t>(n);
    size_t keep = static_cast<size_t>(n);
    if (run_.max_log_bytes > 0 && logged_ + n > run_.max_log_bytes) {
      keep = static_cast<size_t>(std::max<int64_t>(0, run_.max_log_bytes - logged_));
    }
    WriteAll(run_.log_fd, buf, keep);
    logged_ += static_cast<int64_t>(keep);
    if (keep < static_cast<size_t>(n) && !log_full_) {
      log_full_ = true;
      Note(run_.log_fd, "\nthe log reached its limit of " + std::to_string(run_.max_log_bytes) +
                            " bytes (squeeze serve --max-log-size); the rest of this run's output "
                            "is dropped");
    }
  }
}

void RunWatch::ReadFailure() {
  int err[2] = {0, 0};
  const ssize_t n = read(run_.failure_fd, err, sizeof(err));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n == static_cast<ssize_t>(sizeof(err))) failure_ = std::make_pair(err[0], err[1]);
  CloseFd(run_.failure_fd);
}

void RunWatch::Reap() {
  int status = 0;
  for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;) {
    if (pid != run_.job_pid) continue;  // an adopted process, or a marker reader
    main_exit_ = WIFSIGNALED(status) ? ExitStatus{true, WTERMSIG(status), ""}
                                     : ExitStatus{false, WEXITSTATUS(status), ""};
  }
}

void RunWatch::Serve(int timeout_ms) {
  pollfd fds[2] = {{run_.output_fd, POLLIN, 0}, {run_.failure_fd, POLLIN, 0}};
  if (poll(fds, 2, std::max(0, timeout_ms)) > 0) {
    if (fds[0].revents != 0) CopyOutput();
    if (fds[1].revents != 0) ReadFailure();
  }
  Reap();
}

void RunWatch::EndLeftovers() {
  const size_t left = SignalRun(run_.processes, SIGTERM);
  if (left == 0) return;
  SignalRun(run_.processes, SIGCONT);  // a stopped process takes its SIGTERM too
  Note(run_.log_fd, std::to_string(left) + " process(es) of the run outlived its main process: "
                        "SIGTERM, and SIGKILL in " + std::to_string(run_.leftover_grace_s) + " s");
  const int64_t term_until = NowMs() + int64_t{run_.leftover_grace_s} * 1000;
  while (NowMs() < term_until && !ProcessesOf(run_.processes).empty()) Serve(100);
  if (ProcessesOf(run_.processes).empty()) return;
  const int64_t kill_until = NowMs() + kKillWaitMs;
  while (SignalRun(run_.processes, SIGKILL) > 0 && NowMs() < kill_until) Serve(100);
}

ExitStatus RunWatch::Run() {
  for (int fd : {run_.output_fd, run_.failure_fd}) {
    if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  // A descriptor that becomes readable when the main process ends wakes the wait at once.
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, run_.job_pid, 0));
  int64_t next_marker = NowMs() + kMarkerEveryMs;
  while (!main_exit_) {
    pollfd fds[3] = {{run_.output_fd, POLLIN, 0}, {run_.failure_fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
    const int64_t wait = std::min<int64_t>(next_marker - NowMs(), pidfd >= 0 ? kMarkerEveryMs : 100);
    if (poll(fds, 3, static_cast<int>(std::max<int64_t>(0, wait))) > 0) {
      if (fds[0].revents != 0) CopyOutput();
      if (fds[1].revents != 0) ReadFailure();
    }
    Reap();
    if (!main_exit_ && NowMs() >= next_marker) {
      marker_.Check();
      next_marker = NowMs() + kMarkerEveryMs;
    }
  }
  if (pidfd >= 0) close(pidfd);
  if (run_.failure_fd >= 0) ReadFailure();
  EndLeftovers();
  for (const int64_t until = NowMs() + kDrainMs; run_.output_fd >= 0 && NowMs() < until;) {
    Serve(100);
  }
  CloseFd(run_.output_fd);
  CloseFd(run_.failure_fd);
  return *main_exit_;
}

}  // namespace squeeze
