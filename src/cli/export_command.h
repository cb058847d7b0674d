// `squeeze export`: a cluster file, and the policy squeeze serve would run, as the objects of a
// Kubernetes queue manager (docs/kubernetes.md).
//   squeeze export kueue --cluster FILE [-o FILE] [--policy NAME] [--set KEY=VALUE]...
//                        [--history TRACE | --store DIR] [--namespace NS]
//   squeeze export volcano --cluster FILE [-o FILE] [--policy NAME] [--set KEY=VALUE]...
//                          [--history TRACE | --store DIR]
#ifndef SQUEEZE_CLI_EXPORT_COMMAND_H_
#define SQUEEZE_CLI_EXPORT_COMMAND_H_

#include <CLI/CLI.hpp>
#include <utility>
#include <vector>

#include "cli/commands.h"

namespace squeeze {

void RegisterExportCommand(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_EXPORT_COMMAND_H_
