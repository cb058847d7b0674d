// `squeeze status [--data DIR]` and `squeeze stop [--data DIR] [--wait 30s]`: whether the
// daemon of a data directory runs (its pid, address, socket, GPUs), and stopping it as a
// service manager would (SIGTERM, then waiting for its lock to be let go); running jobs keep
// running and are taken back at its next start (docs/serve.md).
#ifndef SQUEEZE_CLI_DAEMON_CONTROL_COMMAND_H_
#define SQUEEZE_CLI_DAEMON_CONTROL_COMMAND_H_

#include <CLI/CLI.hpp>
#include <utility>
#include <vector>

#include "cli/commands.h"

namespace squeeze {

void RegisterDaemonControlCommands(CLI::App& app,
                                   std::vector<std::pair<CLI::App*, CommandRun>>& out);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_DAEMON_CONTROL_COMMAND_H_
