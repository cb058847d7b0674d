// The subcommands of the `squeeze` command: each registers its flags on the CLI11 app and
// returns the action to run when it is chosen.
#ifndef SQUEEZE_CLI_COMMANDS_H_
#define SQUEEZE_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace squeeze {

using CommandRun = std::function<int()>;

CommandRun RegisterSimulate(CLI::App& app);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_COMMANDS_H_
