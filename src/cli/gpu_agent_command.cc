// `squeeze gpu-agent --node NAME`: reads this machine's GPUs (NVML, else nvidia-smi) every
// interval and sends their utilization and memory to squeeze serve as telemetry, for the nodes
// the daemon does not read itself (Slurm nodes, other machines). Readings taken while the
// daemon cannot be reached are kept (up to --backlog) and sent later with their own times.
#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/commands.h"
#include "cli/gpu_agent.h"
#include "core/duration.h"
#include "exec/gpu_utilization.h"
#include "serve/api_client.h"

namespace squeeze {
namespace {

struct AgentFlags {
  ClientOptions connect;
  std::string node;
  int gpu_offset = 0;
  std::string every = "60s";
  bool once = false;
  std::string nvidia_smi = "nvidia-smi";
  size_t backlog = 1440;
};

// The reports carry whole seconds (AgentReport), so the clock is read in them.
Time Now() {
  return Seconds(std::chrono::duration_cast<std::chrono::seconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count());
}

int RunAgent(const AgentFlags& f) {
  auto every = ParseDuration(f.every);
  if (!every.ok() || *every <= 0) {
    std::cerr << "squeeze gpu-agent: --every: '" << f.every << "' is not a duration like 30s\n";
    return 2;
  }
  auto client = ApiClient::Connect(f.connect);
  if (!client.ok()) {
    std::cerr << "squeeze gpu-agent: " << client.status().message() << "\n";
    return 1;
  }
  // The source that answers first stays the source.
  std::string source = SampleWithNvml().ok() ? "nvml" : "nvidia-smi";
  std::cerr << "squeeze gpu-agent: reading the GPUs through " << source << " for node " << f.node
            << (f.once ? "" : " every " + FormatDuration(*every)) << "\n";
  AgentBacklog backlog(f.backlog);
  std::string last_error;
  int refused = 0;
  auto say_once = [&](const std::string& e) {
    if (e != last_error) std::cerr << "squeeze gpu-agent: " << e << "\n";
    last_error = e;
  };
  for (;;) {
    const Time at = Now();
    auto readings = SampleGpus(source, f.nvidia_smi);
    if (!readings.ok()) {
      say_once(readings.status().message());
      if (f.once) return 1;
    } else if (nlohmann::json report = AgentReport(f.node, f.gpu_offset, *readings, at);
               !report.is_null()) {
      backlog.Add(std::move(report));
    }
    Status unreachable = Status::Ok();
    const size_t sent = backlog.Send(
        [&](const nlohmann::json& r) -> Status {
          auto posted = (*client)->Post("/v1/telemetry", r.dump(), "application/json");
          if (posted.ok()) return Status::Ok();
          const std::string m = posted.status().message();
          if (m.rfind("cannot reach", 0) == 0) return posted.status();  // kept for later
          ++refused;  // the daemon said no: sending it again would not change that
          std::cerr << "squeeze gpu-agent: the report of " << r["gpus"].size()
                    << " GPUs was refused: " << m << "\n";
          return Status::Ok();
        },
        &unreachable);
    if (!unreachable.ok()) {
      say_once(unreachable.message() + " (" + std::to_string(backlog.size()) +
               " reports kept to send later)");
    } else if (sent > 0 && !last_error.empty()) {
      std::cerr << "squeeze gpu-agent: sent " << sent << " reports\n";
      last_error.clear();
    }
    if (f.once) {
      if (!unreachable.ok() || refused > 0) return 1;
      std::cout << "sent " << sent << " report" << (sent == 1 ? "" : "s") << " of node "
                << f.node << "\n";
      return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(WholeMilliseconds(*every)));
  }
}

}  // namespace

CommandRun RegisterGpuAgent(CLI::App& app) {
  auto f = std::make_shared<AgentFlags>();
  app.add_option("--node", f->node, "The node these GPUs are, as the cluster file names it")
      ->required();
  app.add_option("--gpu-offset", f->gpu_offset,
                 "Added to each CUDA index to give the GPU's index on the node (default 0)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--every", f->every, "How often to read and send (default 60s)");
  app.add_flag("--once", f->once, "Read and send once, then exit (0 when it was accepted)");
  app.add_option("--nvidia-smi", f->nvidia_smi, "The nvidia-smi to run when NVML is missing")
      ->capture_default_str();
  app.add_option("--backlog", f->backlog,
                 "How many reports to keep while the daemon cannot be reached (default 1440)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--url", f->connect.url,
                 "squeeze serve's address (default $SQUEEZE_URL, else http://127.0.0.1:8642)");
  app.add_option("--token", f->connect.token, "An admin API token (default $SQUEEZE_TOKEN)");
  return [f] { return RunAgent(*f); };
}

}  // namespace squeeze
