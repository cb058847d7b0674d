// squeeze dashboard [--open]: a URL that opens the dashboard logged in as the caller, with no
// token to paste: a login code minted over the daemon's Unix socket (serve/dashboard_login.h),
// good once and for 60 s.
#include <spawn.h>
#include <sys/wait.h>

#include <iostream>
#include <memory>
#include <string>

#include "cli/client_run.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "config/file_io.h"
#include "core/safe_text.h"
#include "serve/api_client.h"

extern char** environ;

namespace squeeze {
namespace {

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// xdg-open URL, left to run on its own; whether it could be started.
bool OpenInBrowser(const std::string& url) {
  const char* argv[] = {"xdg-open", url.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "xdg-open", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
    return false;
  }
  int status = 0;
  return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int RunDashboard(const std::string& given_socket, bool open) {
  const std::string socket = FindDaemonSocket(given_socket);
  if (socket.empty()) {
    std::cerr << "squeeze dashboard: no daemon socket found on this machine (it logs you in "
                 "through squeeze serve's Unix socket): give --socket PATH or $SQUEEZE_SOCKET, "
                 "or start squeeze serve\n";
    return ExitCodeOf(ErrorKind::kUnavailable);
  }
  ClientOptions options;
  options.socket = socket;
  auto client = ApiClient::Connect(options);
  Result<nlohmann::json> code = client.ok()
                                    ? (*client)->Post("/v1/dashboard-login", "", "application/json")
                                    : Result<nlohmann::json>(client.status());
  if (!code.ok()) {
    std::cerr << "squeeze dashboard: " << EscapeControls(code.status().message()) << "\n";
    return ExitCodeOf(code.status());
  }
  Result<std::string> served = ReadWholeFile(DirOf(socket) + "/serve.url");
  std::string url = served.ok() ? served->substr(0, served->find('\n')) : "";
  if (url.empty()) {
    std::cerr << "squeeze dashboard: no serve.url beside " << socket
              << ": the daemon's address is unknown\n";
    return ExitCodeOf(ErrorKind::kNotFound);
  }
  url += "/ui/#login=" + code->value("code", std::string());
  std::cout << "The dashboard, logged in as " << EscapeControls(code->value("user", std::string()))
            << " (the link works once, within " << code->value("expires_in_s", 60) << " s):\n  "
            << EscapeControls(url) << "\n";
  if (open && !OpenInBrowser(url)) {
    std::cerr << "squeeze dashboard: could not run xdg-open; open the link above yourself\n";
  }
  return 0;
}

}  // namespace

void RegisterDashboardCommand(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* sub = app.add_subcommand(
      "dashboard", "Print (or --open) a link that opens the web dashboard logged in as you, "
                   "with no token: made through the daemon's Unix socket, good once for 60 s");
  auto socket = std::make_shared<std::string>();
  auto open = std::make_shared<bool>(false);
  sub->add_option("--socket", *socket,
                  "squeeze serve's Unix socket (default $SQUEEZE_SOCKET, else squeeze.sock in "
                  "$SQUEEZE_DATA or ~/.squeeze, else /var/lib/squeeze/squeeze.sock)");
  sub->add_flag("--open", *open, "Open the link with xdg-open too");
  out.emplace_back(sub, [socket, open] { return RunDashboard(*socket, *open); });
}

}  // namespace squeeze
