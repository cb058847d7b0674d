// squeeze status and squeeze stop: the daemon of a data directory, found by the lock it holds
// on DIR/serve.lock (serve/daemon.cc), asked through its Unix socket, stopped with SIGTERM as
// a service manager would (its running jobs keep running and are taken back at its next
// start).
#include "cli/daemon_control_command.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "cli/client_format.h"
#include "cli/exit_codes.h"
#include "config/text_util.h"
#include "core/duration.h"
#include "core/safe_text.h"
#include "serve/api_client.h"
#include "serve/daemon.h"

namespace squeeze {
namespace {

// As `systemctl status` and LSB init scripts say "not running"; squeeze's "not found" too.
constexpr int kNotRunning = 3;

bool HasLock(const std::string& dir) { return access((dir + "/serve.lock").c_str(), F_OK) == 0; }

// --data, else the default data directory when a daemon ever ran there, else a root daemon's
// /var/lib/squeeze when one did, else the default.
std::string DataDirOf(const std::string& given) {
  if (!given.empty()) return given;
  const std::string own = DefaultDataDir();
  if (HasLock(own)) return own;
  if (HasLock("/var/lib/squeeze")) return "/var/lib/squeeze";
  return own;
}

struct DaemonState {
  bool running = false;
  std::optional<pid_t> pid;  // from the lock file, when it can be read
  std::string unreadable;    // why the lock file could not be read (another user's daemon)
};

// Whether a daemon holds DIR/serve.lock: a shared lock taken without waiting fails while the
// daemon's exclusive one is held, and a lock file nobody holds is a daemon that ended.
DaemonState StateOf(const std::string& dir) {
  DaemonState s;
  const std::string path = dir + "/serve.lock";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return s;
    s.unreadable = path + ": " + std::strerror(errno);
    // Another user's daemon (root's, mode 0600): its socket still says whether it answers.
    s.running = access((dir + "/squeeze.sock").c_str(), F_OK) == 0;
    return s;
  }
  s.running = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  char text[32] = {};
  const ssize_t n = read(fd, text, sizeof(text) - 1);
  close(fd);
  if (n > 0) {
    std::string line(text, static_cast<size_t>(n));
    line = line.substr(0, line.find('\n'));
    if (std::optional<int64_t> pid = ParseInt64(Trim(line));
        pid && *pid > 0) {
      s.pid = static_cast<pid_t>(*pid);
    }
  }
  return s;
}

// How long the process `pid` has run, from /proc (its start in clock ticks since boot).
std::optional<int64_t> UptimeSeconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close_paren = text.rfind(')');
  if (close_paren == std::string::npos) return std::nullopt;
  std::istringstream rest(text.substr(close_paren + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i != 22) continue;
    std::ifstream up("/proc/uptime");
    double boot_seconds = 0;
    if (!(up >> boot_seconds)) return std::nullopt;
    const std::optional<int64_t> ticks = ParseInt64(field);
    if (!ticks) return std::nullopt;
    return static_cast<int64_t>(boot_seconds) - *ticks / sysconf(_SC_CLK_TCK);
  }
  return std::nullopt;
}

std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(Trim(line));
}

int RunStatus(const std::string& given) {
  const std::string dir = DataDirOf(given);
  const DaemonState state = StateOf(dir);
  if (!state.running) {
    std::cout << "squeeze serve is not running in " << dir << "\n"
              << "start it with: squeeze serve --data " << dir << " &\n";
    return kNotRunning;
  }
  std::cout << "squeeze serve is running in " << dir;
  if (state.pid) {
    std::cout << " (pid " << *state.pid;
    if (std::optional<int64_t> up = UptimeSeconds(*state.pid)) {
      std::cout << ", up " << ShortDuration(*up);
    }
    std::cout << ")";
  }
  std::cout << "\n";
  if (const std::string url = ReadLine(dir + "/serve.url"); !url.empty()) {
    std::cout << "  address: " << EscapeControls(url) << "\n";
  }
  ClientOptions options;
  options.socket = dir + "/squeeze.sock";
  std::cout << "  socket:  " << options.socket << " (no token needed)\n";
  auto client = ApiClient::Connect(options);
  Result<nlohmann::json> who =
      client.ok() ? (*client)->Get("/v1/whoami") : Result<nlohmann::json>(client.status());
  if (!who.ok()) {
    std::cout << "  it does not answer on its socket: " << EscapeControls(who.status().message())
              << "\n";
    return 1;
  }
  std::cout << "  you are: " << EscapeControls(who->value("user", std::string("?")))
            << (who->value("admin", false) ? " (admin)" : "") << "\n";
  if (Result<nlohmann::json> pools = (*client)->Get("/v1/pools"); pools.ok()) {
    for (const auto& p : (*pools)["pools"]) {
      std::cout << "  pool " << EscapeControls(p.value("name", std::string("?"))) << ": "
                << p.value("free_gpus", 0) << " of " << p.value("gpus", 0) << " GPUs free\n";
    }
  }
  return 0;
}

int RunStop(const std::string& given, const std::string& wait_text) {
  const std::string dir = DataDirOf(given);
  Result<Time> wait = ParseDuration(wait_text);
  if (!wait.ok() || *wait < 0) {
    std::cerr << "squeeze stop: --wait: '" << EscapeControls(wait_text)
              << "' is not a duration (like 30s or 2m)\n";
    return ExitCodeOf(ErrorKind::kInvalid);
  }
  const DaemonState state = StateOf(dir);
  if (!state.running) {
    std::cout << "squeeze serve is not running in " << dir << "\n";
    return 0;
  }
  if (!state.pid) {
    std::cerr << "squeeze stop: cannot read which process runs squeeze serve in " << dir
              << (state.unreadable.empty() ? "" : " (" + state.unreadable + ")")
              << "; only the user it runs as (root for a shared server) may stop it\n";
    return ExitCodeOf(ErrorKind::kPermission);
  }
  if (kill(*state.pid, SIGTERM) != 0) {
    std::cerr << "squeeze stop: cannot signal squeeze serve (pid " << *state.pid << ") in " << dir
              << ": " << std::strerror(errno)
              << (errno == EPERM ? "; only the user it runs as may stop it" : "") << "\n";
    return errno == EPERM ? ExitCodeOf(ErrorKind::kPermission) : 1;
  }
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(WholeMilliseconds(*wait));
  while (StateOf(dir).running) {
    if (std::chrono::steady_clock::now() >= until) {
      std::cerr << "squeeze stop: squeeze serve (pid " << *state.pid << ") in " << dir
                << " got SIGTERM but still runs after " << wait_text
                << "; its log says why, or wait longer (--wait 2m)\n";
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::cout << "stopped squeeze serve (pid " << *state.pid << ") in " << dir
            << "; running jobs keep running and are taken back at its next start\n";
  return 0;
}

}  // namespace

void RegisterDaemonControlCommands(CLI::App& app,
                                   std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  const std::string data_help = "squeeze serve's data directory (default " + DefaultDataDir() +
                                " when a daemon ran there, else /var/lib/squeeze when one ran "
                                "there; $SQUEEZE_DATA, else ~/.squeeze)";
  auto* status = app.add_subcommand(
      "status", "Whether squeeze serve runs in a data directory: its pid, address, socket, GPUs "
                "(exit 3 when it does not)");
  auto status_dir = std::make_shared<std::string>();
  status->add_option("--data", *status_dir, data_help);
  out.emplace_back(status, [status_dir] { return RunStatus(*status_dir); });

  auto* stop = app.add_subcommand(
      "stop", "Stop squeeze serve of a data directory (SIGTERM) and wait for it to end; running "
              "jobs keep running and are taken back at its next start");
  auto stop_dir = std::make_shared<std::string>();
  auto wait = std::make_shared<std::string>("30s");
  stop->add_option("--data", *stop_dir, data_help);
  stop->add_option("--wait", *wait, "How long to wait for it to end")->capture_default_str();
  out.emplace_back(stop, [stop_dir, wait] { return RunStop(*stop_dir, *wait); });
}

}  // namespace squeeze
