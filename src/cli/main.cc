#include <CLI/CLI.hpp>
#include <iostream>
#include <vector>

#include "cli/daemon_control_command.h"
#include "cli/commands.h"
#include "cli/export_command.h"
#include "cli/profile_command.h"
#include "cli/token_command.h"
#include "config/text_util.h"

namespace {

using Commands = std::vector<std::pair<CLI::App*, squeeze::CommandRun>>;

// Every command of squeeze, in the order --help lists them.
Commands RegisterCommands(CLI::App& app) {
  Commands commands;
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
  squeeze::RegisterDaemonControlCommands(app, commands);
  auto* agent = app.add_subcommand(
      "gpu-agent",
      "Send this machine's GPU utilization (NVML, else nvidia-smi) to squeeze serve as "
      "telemetry, every minute: for nodes the daemon does not read itself (Slurm nodes)");
  commands.emplace_back(agent, squeeze::RegisterGpuAgent(*agent));
  squeeze::RegisterClientCommands(app, commands);
  squeeze::RegisterDashboardCommand(app, commands);
  squeeze::RegisterTokenCommand(app, commands);
  squeeze::RegisterProfileCommand(app, commands);
  squeeze::RegisterExportCommand(app, commands);
  return commands;
}

// A first word that is no command: say which, and the nearest (CLI11 would only say that a
// subcommand is required). Returns whether it was one.
bool IsCommand(CLI::App& app, const char* word) {
  std::vector<std::string_view> names;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
    known = known || sub->get_name() == word;
  }
  if (known) return true;
  const std::optional<std::string> near = squeeze::NearestName(word, names);
  std::cerr << "squeeze: '" << word << "' is not a command"
            << (near ? " (did you mean '" + *near + "'?)" : "") << "; squeeze --help lists them\n";
  return false;
}

// A flag the command does not take: name it and the nearest one it does. Nested commands
// (`export kueue`, `profile export`) are looked at too, named with their parents. Returns
// whether it found one to name.
bool NameUnknownFlag(CLI::App& app) {
  auto parsed = [](CLI::App* s) { return s->parsed(); };
  std::vector<CLI::App*> subs = app.get_subcommands(parsed);
  for (size_t i = 0; i < subs.size(); ++i) {
    for (CLI::App* nested : subs[i]->get_subcommands(parsed)) subs.push_back(nested);
  }
  for (auto it = subs.rbegin(); it != subs.rend(); ++it) {
    CLI::App* sub = *it;
    std::string command = sub->get_name();
    for (CLI::App* p = sub->get_parent(); p != nullptr && p != &app; p = p->get_parent()) {
      command = p->get_name() + " " + command;
    }
    std::vector<std::string> flags;
    for (const CLI::Option* opt : sub->get_options()) {
      for (const std::string& n : opt->get_lnames()) flags.push_back("--" + n);
    }
    std::vector<std::string_view> names(flags.begin(), flags.end());
    for (const std::string& word : sub->remaining()) {
      if (word.size() < 3 || word.rfind("--", 0) != 0) continue;
      const std::string flag = word.substr(0, word.find('='));
      const std::optional<std::string> near = squeeze::NearestName(flag, names);
      std::cerr << "squeeze " << command << ": " << flag << " is not a flag of this "
                << "command" << (near ? " (did you mean " + *near + "?)" : "")
                << "; squeeze " << command << " --help lists them\n";
      return true;
    }
  }
  return false;
}

// CLI11's complaint as a sentence that names the command and says where its flags are:
// "squeeze submit: --gpus needs a value; squeeze submit --help says how to write it".
std::string UsageError(CLI::App& app, std::string message) {
  std::string command = "squeeze";
  for (CLI::App* sub = &app;;) {
    // (an option group is a subcommand without a name)
    std::vector<CLI::App*> parsed = sub->get_subcommands(
        [](CLI::App* s) { return s->parsed() && !s->get_name().empty(); });
    if (parsed.empty()) break;
    sub = parsed.front();
    command += " " + sub->get_name();
  }
  for (const auto& [ending, becomes] : {std::pair<std::string, std::string>{
                                            ": 1 required TEXT missing", " needs a value"},
                                        {" is required", " is required: give it"}}) {
    if (message.size() > ending.size() &&
        message.compare(message.size() - ending.size(), ending.size(), ending) == 0) {
      message = message.substr(0, message.size() - ending.size()) + becomes;
    }
  }
  if (message.size() > 1 && std::islower(static_cast<unsigned char>(message[1]))) {
    message[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(message[0])));
  }
  return command + ": " + message + "; " + command + " --help says how to write it";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "squeeze: a queue manager and scheduler for GPU training jobs.\n"
      "It squeezes idle capacity out of the GPUs a team already has (priorities, backfill,\n"
      "slicing, preemption, packing) and proves it by replaying real cluster traces."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "squeeze 0.1.0");
  Commands commands = RegisterCommands(app);
  if (argc > 1 && argv[1][0] != '-' && !IsCommand(app, argv[1])) return 2;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    if (NameUnknownFlag(app)) return 2;
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << UsageError(app, e.what()) << "\n";
    return 2;
  }
  for (auto& [sub, run] : commands) {
    if (sub->parsed()) return run();
  }
  return 2;
}
