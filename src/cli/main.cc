#include <CLI/CLI.hpp>
#include <iostream>
#include <vector>

#include "cli/commands.h"
#include "cli/profile_command.h"
#include "cli/token_command.h"

int main(int argc, char** argv) {
  CLI::App app{
      "squeeze: a queue manager and scheduler for GPU training jobs.\n"
      "It squeezes idle capacity out of the GPUs a team already has (priorities, backfill,\n"
      "slicing, preemption, packing) and proves it by replaying real cluster traces."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "squeeze 0.1.0");
  std::vector<std::pair<CLI::App*, squeeze::CommandRun>> commands;
  auto* simulate = app.add_subcommand(
      "simulate",
      "Replay a job trace on a cluster under one or more policies and compare them, or run "
      "the FGD fill experiment on an openb trace (--protocol fill)");
  commands.emplace_back(simulate, squeeze::RegisterSimulate(*simulate));
  auto* advise = app.add_subcommand(
      "advise",
      "From a job history and a cluster file with prices: how many GPUs to reserve rather than "
      "rent on demand, which jobs suit spot and at what checkpoint interval, the cheapest "
      "region, and simulated what-ifs (--what-if spot+16)");
  commands.emplace_back(advise, squeeze::RegisterAdvise(*advise));
  auto* idle = app.add_subcommand(
      "idle-report",
      "From GPU utilization samples: the hours of the week when GPUs, nodes and pools are "
      "reliably idle (text, --json, an --svg heatmap)");
  commands.emplace_back(idle, squeeze::RegisterIdleReport(*idle));
  auto* inventory = app.add_subcommand(
      "inventory",
      "List the GPUs a team has, from nvidia-smi (CSV or XML), kubectl and Slurm output: a "
      "table by model and memory, --json, or a cluster file (--pool-file)");
  commands.emplace_back(inventory, squeeze::RegisterInventory(*inventory));
  auto* serve = app.add_subcommand(
      "serve",
      "Run the queue: schedule and run jobs on this machine's GPUs (or --virtual-gpus) and on "
      "Slurm clusters (--config), with a durable store and an HTTP API the other commands "
      "talk to");
  commands.emplace_back(serve, squeeze::RegisterServe(*serve));
  auto* agent = app.add_subcommand(
      "gpu-agent",
      "Send this machine's GPU utilization (NVML, else nvidia-smi) to squeeze serve as "
      "telemetry, every minute: for nodes the daemon does not read itself (Slurm nodes)");
  commands.emplace_back(agent, squeeze::RegisterGpuAgent(*agent));
  squeeze::RegisterClientCommands(app, commands);
  squeeze::RegisterTokenCommand(app, commands);
  squeeze::RegisterProfileCommand(app, commands);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  for (auto& [sub, run] : commands) {
    if (sub->parsed()) return run();
  }
  return 2;
}
