// The subcommands of the `squeeze` command: each registers its flags on the CLI11 app and
// returns the action to run when it is chosen.
#ifndef SQUEEZE_CLI_COMMANDS_H_
#define SQUEEZE_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <utility>
#include <vector>

namespace squeeze {

using CommandRun = std::function<int()>;

CommandRun RegisterSimulate(CLI::App& app);
// advise: reserve vs on-demand, spot, region and what-if advice from a job history.
CommandRun RegisterAdvise(CLI::App& app);
// idle-report: recurring idle windows of GPUs from utilization samples.
CommandRun RegisterIdleReport(CLI::App& app);
// inventory: the GPUs a team has, from nvidia-smi, kubectl and Slurm output.
CommandRun RegisterInventory(CLI::App& app);
// serve: the daemon.
CommandRun RegisterServe(CLI::App& app);
// `squeeze gpu-agent`: a node's GPU utilization sent to squeeze serve as telemetry.
CommandRun RegisterGpuAgent(CLI::App& app);
// submit, queue, show, cancel, why, nodes: clients of a running `squeeze serve`.
void RegisterClientCommands(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out);
// squeeze dashboard (cli/dashboard_command.cc).
void RegisterDashboardCommand(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out);
// queue, cancel, logs: the commands over several jobs, or that follow one.
void RegisterJobCommands(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_COMMANDS_H_
