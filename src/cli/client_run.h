// What the client subcommands share: the connection flags (--url, --socket, --token, --json)
// and a call to squeeze serve whose JSON is printed as it is (--json) or formatted.
#ifndef SQUEEZE_CLI_CLIENT_RUN_H_
#define SQUEEZE_CLI_CLIENT_RUN_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "serve/api_client.h"

namespace squeeze {

struct ClientFlags {
  ClientOptions connect;
  bool json = false;
  bool utc = false;  // times in UTC rather than the local time zone
};

void AddConnectionFlags(CLI::App& app, ClientFlags& f);

// Connects, runs `call`, prints the JSON or `format` of it; on failure prints the reason and
// returns the exit code of its kind (cli/exit_codes.h).
int Run(const std::string& command, const ClientFlags& f,
        const std::function<Result<nlohmann::json>(ApiClient&)>& call,
        const std::function<std::string(const nlohmann::json&)>& format);

// "/v1/jobs/ID" and what follows it ("/cancel").
std::string JobPath(int64_t id, const std::string& suffix = "");
// A job named as ID or ARRAY_TASK (12_4): the API takes either in its paths.
std::string JobPath(const std::string& ref, const std::string& suffix = "");
// The check of an ID argument that may name an array's task (12_4).
std::string CheckJobRef(const std::string& text);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_CLIENT_RUN_H_
