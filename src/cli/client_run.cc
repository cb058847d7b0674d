#include "cli/client_run.h"

#include "cli/job_show_format.h"

#include "cli/exit_codes.h"
#include "core/job_array.h"
#include "core/safe_text.h"

#include <iostream>

namespace squeeze {

void AddConnectionFlags(CLI::App& app, ClientFlags& f) {
  app.add_option("--url", f.connect.url,
                 "squeeze serve's address (default $SQUEEZE_URL, else its Unix socket when "
                 "there is one, else http://127.0.0.1:8642)");
  app.add_option("--socket", f.connect.socket,
                 "squeeze serve's Unix socket, where no token is needed (default "
                 "$SQUEEZE_SOCKET, else squeeze.sock in $SQUEEZE_DATA or ~/.squeeze, else "
                 "/var/lib/squeeze/squeeze.sock)");
  app.add_option("--token", f.connect.token,
                 "API token (default $SQUEEZE_TOKEN; none needed on the socket)");
  app.add_flag("--json", f.json, "Print the server's JSON as it is, for scripts");
  app.add_flag("--utc", f.utc,
               "Print times in UTC (default: the local time zone, as squeue and sacct do)");
}

int Run(const std::string& command, const ClientFlags& f,
        const std::function<Result<nlohmann::json>(ApiClient&)>& call,
        const std::function<std::string(const nlohmann::json&)>& format) {
  SetShownTimesUtc(f.utc);
  auto client = ApiClient::Connect(f.connect);
  if (!client.ok()) {
    std::cerr << "squeeze " << command << ": " << EscapeControls(client.status().message(), "\n")
              << "\n";
    return ExitCodeOf(client.status());
  }
  auto result = call(**client);
  if (!result.ok()) {
    // The daemon's message may quote a value some user chose.
    std::cerr << "squeeze " << command << ": " << EscapeControls(result.status().message(), "\n")
              << "\n";
    return ExitCodeOf(result.status());
  }
  std::cout << (f.json ? JsonForTerminal(result->dump(2)) + "\n" : format(*result));
  return 0;
}

std::string JobPath(int64_t id, const std::string& suffix) {
  return "/v1/jobs/" + std::to_string(id) + suffix;
}

std::string JobPath(const std::string& ref, const std::string& suffix) {
  return "/v1/jobs/" + ref + suffix;
}

std::string CheckJobRef(const std::string& text) {
  auto ref = ParseJobRef(text);
  return ref.ok() ? std::string() : ref.status().message();
}

}  // namespace squeeze
