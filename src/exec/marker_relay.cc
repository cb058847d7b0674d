#include "exec/marker_relay.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "exec/run_files.h"

namespace squeeze {
namespace {

constexpr int kReadTimeoutMs = 1000;

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// In the forked reader: "M" + the marker, "N" (none), or "X" + why it is not taken.
[[noreturn]] void ReadMarker(const std::optional<UnixAccount>& owner, const std::string& path,
                             int out) {
  if (owner && !BecomeAccount(*owner).ok()) {
    WriteAll(out, "Xthe marker cannot be read as user '" + owner->name + "'");
    _exit(0);
  }
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    WriteAll(out, errno == ENOENT ? std::string("N")
                                  : "X" + path + " cannot be read: " + std::strerror(errno));
    _exit(0);
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    WriteAll(out, "X" + path + " is not a regular file");
    _exit(0);
  }
  std::string text(kMaxMarkerBytes + 1, '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got > kMaxMarkerBytes) {
    WriteAll(out, "X" + path + " is over " + std::to_string(kMaxMarkerBytes) + " bytes");
    _exit(0);
  }
  text.resize(got);
  WriteAll(out, "M" + text);
  _exit(0);
}

}  // namespace

MarkerRelay::MarkerRelay(std::optional<UnixAccount> owner, std::string checkpoint_dir,
                         std::string relay_path, int log_fd)
    : owner_(std::move(owner)),
      marker_path_(checkpoint_dir + "/" + kCheckpointMarker),
      relay_path_(std::move(relay_path)),
      log_fd_(log_fd) {}

std::string MarkerRelay::ReadAsOwner(std::string& why) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    why = std::string("cannot make a pipe: ") + std::strerror(errno);
    return "";
  }
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    ReadMarker(owner_, marker_path_, fds[1]);
  }
  close(fds[1]);
  std::string reply;
  if (pid < 0) {
    why = std::string("cannot fork: ") + std::strerror(errno);
  } else {
    pollfd p{fds[0], POLLIN, 0};
    char buf[8192];
    for (;;) {
      const int ready = poll(&p, 1, kReadTimeoutMs);
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) {
        kill(pid, SIGKILL);
        reply = "Xthe marker could not be read within " + std::to_string(kReadTimeoutMs) + " ms";
        break;
      }
      const ssize_t n = read(fds[0], buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || reply.size() > kMaxMarkerBytes + 512) break;
      reply.append(buf, static_cast<size_t>(n));
    }
    waitpid(pid, nullptr, WNOHANG);  // else the supervisor's reaping takes it
  }
  close(fds[0]);
  if (reply.empty() || reply[0] == 'N') return "";
  if (reply[0] == 'X') {
    why = reply.substr(1);
    return "";
  }
  return TrimMarker(reply.substr(1));
}

const std::string& MarkerRelay::Check() {
  std::string why;
  std::string text = ReadAsOwner(why);
  if (!why.empty() && why != last_problem_) {
    WriteAll(log_fd_, "squeeze-supervisor: checkpoint marker not taken: " + why + "\n");
  }
  last_problem_ = why;
  if (!why.empty() || text == last_) return last_;
  if (WriteFileAtomically(relay_path_, text).ok()) last_ = std::move(text);
  return last_;
}

}  // namespace squeeze
