// fill_bench: times the FGD fill experiment (shared/traces/openb/PROTOCOL.md) the way
// `squeeze simulate --protocol fill` runs it: one seed of the default trace
// (openb_pod_list_default.csv, 8,152 pods tuned to 130% of 6,212 GPUs) on the 1,213 GPU nodes,
// for each placement, and in total. Target: all six reference placements plus squeeze's in
// under 2 s on one core (run it under `taskset -c 0`). Prints the CPU and wall time per
// placement, the pods placed per second, the peak RSS and the machine's core count.
//   fill_bench [--seed N] [--trace PODS.csv] [--nodes NODES.csv] [--placement a,b,...]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "config/text_util.h"
#include "sim/fill_experiment.h"
#include "sim/readers/openb_reader.h"

namespace {

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace squeeze;
  const std::string openb = std::string(SQUEEZE_SHARED_DIR) + "/traces/openb/";
  std::string trace = openb + "openb_pod_list_default.csv";
  std::string nodes = openb + "openb_node_list_gpu_node.csv";
  std::string placements = "random,dotprod,packing,clustering,bestfit,fgd,squeeze";
  uint64_t seed = 42;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--seed") {
      seed = std::stoull(value);
    } else if (flag == "--trace") {
      trace = value;
    } else if (flag == "--nodes") {
      nodes = value;
    } else if (flag == "--placement") {
      placements = value;
    } else {
      std::fprintf(stderr, "fill_bench: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  auto cluster = ReadOpenbNodes(nodes);
  if (!cluster.ok()) {
    std::fprintf(stderr, "fill_bench: %s\n", cluster.status().message().c_str());
    return 1;
  }
  auto pods = ReadOpenbPods(trace, ReadOptions{});
  if (!pods.ok()) {
    std::fprintf(stderr, "fill_bench: %s\n", pods.status().message().c_str());
    return 1;
  }
  std::printf("fill_bench: %s, %zu pods, %zu nodes, seed %llu, %u cores\n", trace.c_str(),
              pods->jobs.size(), cluster->nodes.size(), static_cast<unsigned long long>(seed),
              std::thread::hardware_concurrency());
  std::printf("%-12s %8s %8s %10s %8s\n", "placement", "cpu_s", "wall_s", "pods/s", "@130");
  double total_cpu = 0, total_wall = 0;
  for (const std::string& name : SplitList(placements, ',')) {
    FillExperimentOptions options;
    options.placements = {name};
    options.first_seed = options.last_seed = seed;
    const double cpu0 = CpuSeconds();
    const auto wall0 = std::chrono::steady_clock::now();
    auto out = RunFillExperiment(*pods, *cluster, options);
    const double cpu = CpuSeconds() - cpu0;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    if (!out.ok()) {
      std::fprintf(stderr, "fill_bench: %s\n", out.status().message().c_str());
      return 1;
    }
    const PlacementOutcome& o = out->front();
    const double tried = static_cast<double>(o.pods_tried);
    std::printf("%-12s %8.3f %8.3f %10.0f %8.2f\n", name.c_str(), cpu, wall, tried / cpu,
                o.alloc_at.count(130) ? o.alloc_at.at(130) : 0.0);
    total_cpu += cpu;
    total_wall += wall;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("%-12s %8.3f %8.3f   peak RSS %.0f MiB\n", "total", total_cpu, total_wall,
              static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}
