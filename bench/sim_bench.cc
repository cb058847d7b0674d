// sim_bench: times whole simulations and prints one line per (case, policy) with the wall time
// of the simulation, jobs per second, peak resident memory and the machine's core count.
//   philly-one-pool  philly.csv (82,247 jobs) on examples/clusters/philly-one-pool.yaml
//                    (352 x 8 GPUs), trace pools ignored. Target (squeeze): under 1 s.
//   philly-96x8      philly_oct_nov.csv (68,503 jobs) on 96 x 8 GPUs of one pool, trace pools
//   philly-24x8      ignored: a cluster of the trace's size, and one so small that tens of
//                    thousands of jobs wait at once. Target (squeeze): 24x8 within 3x of 96x8
//                    (the ratio of each policy run on both is printed after the lines).
//   synthetic-1m     1,000,000 synthetic jobs (bench/synthetic_trace.h) at load 0.8 on
//                    1,250 x 8 GPUs. Target (squeeze): under 60 s and 2 GB peak.
// When more than one run is asked for, each runs in a child process of its own so that its
// peak RSS (getrusage ru_maxrss) is its own, not the largest so far.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/synthetic_trace.h"
#include "config/cluster_file.h"
#include "core/policy.h"
#include "sim/readers/trace_reader.h"
#include "sim/simulator.h"

namespace squeeze::bench {
namespace {

using Json = nlohmann::json;

const char kPhilly[] = "philly-one-pool";
const char kSynthetic[] = "synthetic-1m";
const char kPhilly96[] = "philly-96x8";
const char kPhilly24[] = "philly-24x8";
const char kKnownCases[] = "philly-one-pool, philly-96x8, philly-24x8, synthetic-1m";

struct Flags {
  std::vector<std::string> cases = {kPhilly, kSynthetic};
  std::vector<std::string> policies = {"squeeze", "fifo"};
  int64_t jobs = 1000000;
  double load = 0.8;
  uint64_t seed = 1;
  std::string json_out;
};

struct Run {
  std::string name;
  std::string policy;
};

double WallSecondsSince(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// CPU time of this process: on a shared machine, closer than wall time to what one free core
// would take.
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double PeakRssMib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// The trace and cluster of a case.
Status Prepare(const std::string& name, const Flags& flags, Trace* trace, ClusterSpec* cluster,
               SimOptions* options) {
  if (name == kPhilly) {
    auto t = ReadTrace(std::string(SQUEEZE_SHARED_DIR) + "/traces/philly/philly.csv", {});
    if (!t.ok()) return t.status();
    auto c = LoadClusterFile(std::string(SQUEEZE_SOURCE_DIR) +
                             "/examples/clusters/philly-one-pool.yaml");
    if (!c.ok()) return c.status();
    *trace = std::move(*t);
    *cluster = std::move(*c);
    options->ignore_trace_pools = true;
    return Status::Ok();
  }
  if (name == kPhilly96 || name == kPhilly24) {
    auto t = ReadTrace(std::string(SQUEEZE_SHARED_DIR) + "/traces/philly/philly_oct_nov.csv", {});
    if (!t.ok()) return t.status();
    *trace = std::move(*t);
    *cluster = MakeUniformCluster(name == kPhilly96 ? 96 : 24, 8);
    options->ignore_trace_pools = true;
    return Status::Ok();
  }
  if (name == kSynthetic) {
    SyntheticOptions o;
    o.jobs = flags.jobs;
    o.load = flags.load;
    o.seed = flags.seed;
    o.cluster_gpus = 1250 * 8;
    *trace = MakeSyntheticTrace(o);
    *cluster = MakeUniformCluster(1250, 8);
    return Status::Ok();
  }
  return Status::Error("unknown case '" + name + "' (known: " + kKnownCases + ")");
}

// GPU-seconds the trace asks for per GPU-second of the cluster over the arrival span.
double OfferedLoad(const Trace& trace, int gpus) {
  if (trace.jobs.size() < 2 || gpus <= 0) return 0;
  double gpu_s = 0;
  for (const TraceJob& j : trace.jobs) {
    gpu_s += ToSeconds(j.duration) * j.spec.TotalMilli() / kMilliPerGpu;
  }
  const double span =
      ToSeconds(trace.jobs.back().spec.submit_time - trace.jobs.front().spec.submit_time);
  return span > 0 ? gpu_s / (span * gpus) : 0;
}

// Runs one case with one policy in this process.
Json RunOne(const Run& run, const Flags& flags) {
  Json out = {{"case", run.name}, {"policy", run.policy},
              {"cores", std::thread::hardware_concurrency()}};
  auto policy = NamedPolicy(run.policy);
  if (!policy.ok()) {
    out["error"] = policy.status().message();
    return out;
  }
  Trace trace;
  ClusterSpec cluster;
  SimOptions options;
  options.seed = flags.seed;
  auto t0 = std::chrono::steady_clock::now();
  if (Status st = Prepare(run.name, flags, &trace, &cluster, &options); !st.ok()) {
    out["error"] = st.message();
    return out;
  }
  out["prepare_s"] = WallSecondsSince(t0);
  t0 = std::chrono::steady_clock::now();
  const double cpu0 = CpuSeconds();
  auto result = Simulate(trace, cluster, *policy, options);
  const double sim_s = WallSecondsSince(t0);
  const double cpu_s = CpuSeconds() - cpu0;
  if (!result.ok()) {
    out["error"] = result.status().message();
    return out;
  }
  out["jobs"] = trace.jobs.size();
  out["gpus"] = cluster.TotalGpus();
  out["finished"] = result->jobs.size();
  out["rejected"] = result->rejected.size();
  out["cycles"] = result->cycles;
  out["preemptions"] = result->preemptions;
  out["makespan_s"] = WholeSeconds(result->makespan);
  out["offered_load"] = OfferedLoad(trace, cluster.TotalGpus());
  out["sim_s"] = sim_s;
  out["cpu_s"] = cpu_s;
  out["jobs_per_s"] = sim_s > 0 ? static_cast<double>(trace.jobs.size()) / sim_s : 0.0;
  out["peak_rss_mib"] = PeakRssMib();
  return out;
}

// Runs one case in a child process and reads its result back through a pipe.
Json RunInChild(const Run& run, const Flags& flags) {
  std::fflush(nullptr);
  int fds[2];
  if (pipe(fds) != 0) return {{"case", run.name}, {"policy", run.policy}, {"error", "pipe"}};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string text = RunOne(run, flags).dump();
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) _exit(2);
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int wstatus = 0;
  if (pid < 0 || waitpid(pid, &wstatus, 0) != pid || !WIFEXITED(wstatus) ||
      WEXITSTATUS(wstatus) != 0 || text.empty()) {
    return {{"case", run.name}, {"policy", run.policy},
            {"error", "the child process running it failed (status " +
                          std::to_string(wstatus) + ")"}};
  }
  return Json::parse(text);
}

// "met"/"MISSED" against the targets, for the squeeze runs at full size; "" otherwise. Time is
// judged on the simulation's CPU time (the targets are for one core).
std::string Verdict(const Json& r, const Flags& flags) {
  if (r.contains("error") || r["policy"] != "squeeze") return "";
  if (r["case"] == kPhilly) return r["cpu_s"].get<double>() < 1.0 ? "met (<1 s)" : "MISSED (<1 s)";
  if (r["case"] == kSynthetic && flags.jobs == 1000000 && flags.load == 0.8) {
    const bool ok = r["cpu_s"].get<double>() < 60.0 && r["peak_rss_mib"].get<double>() < 2048.0;
    return ok ? "met (<60 s, <2 GB)" : "MISSED (<60 s, <2 GB)";
  }
  return "";
}

// For each policy run on both Philly cluster sizes: the small cluster's CPU time over the large
// one's, measured in this run; the squeeze line carries the verdict (target: within 3x).
void PrintRatios(const Json& all) {
  std::map<std::string, std::pair<double, double>> cpu;  // policy -> (96x8, 24x8); -1 = none
  for (const Json& r : all) {
    if (r.contains("error") || (r["case"] != kPhilly96 && r["case"] != kPhilly24)) continue;
    auto& [large, small] = cpu.try_emplace(r["policy"].get<std::string>(), -1, -1).first->second;
    (r["case"] == kPhilly96 ? large : small) = r["cpu_s"].get<double>();
  }
  for (const auto& [policy, times] : cpu) {
    const auto [large, small] = times;
    if (large <= 0 || small < 0) continue;
    const double ratio = small / large;
    std::printf("%s / %s, %s: %.1fx%s\n", kPhilly24, kPhilly96, policy.c_str(), ratio,
                policy != "squeeze" ? "" : ratio <= 3.0 ? "  met (<=3x)" : "  MISSED (<=3x)");
  }
}

void PrintLine(const Json& r, const Flags& flags) {
  if (r.contains("error")) {
    std::printf("%-16s %-9s ERROR: %s\n", r["case"].get<std::string>().c_str(),
                r["policy"].get<std::string>().c_str(), r["error"].get<std::string>().c_str());
    return;
  }
  std::printf("%-16s %-9s %9lld %9.3f %9.3f %9.3f %9.0f %9.1f %5u  %s\n",
              r["case"].get<std::string>().c_str(), r["policy"].get<std::string>().c_str(),
              static_cast<long long>(r["jobs"].get<int64_t>()), r["prepare_s"].get<double>(),
              r["sim_s"].get<double>(), r["cpu_s"].get<double>(), r["jobs_per_s"].get<double>(),
              r["peak_rss_mib"].get<double>(), r["cores"].get<unsigned>(),
              Verdict(r, flags).c_str());
  std::fflush(stdout);
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    const size_t end = comma == std::string::npos ? s.size() : comma;
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

const char kUsage[] =
    "usage: sim_bench [--case NAME[,NAME]] [--policy NAME[,NAME]] [--jobs N] [--load X]\n"
    "                 [--seed S] [--json OUT]\n"
    "  --case    philly-one-pool, philly-96x8, philly-24x8, synthetic-1m (default: the first\n"
    "            and the last)\n"
    "  --policy  any named policy (default: squeeze,fifo)\n"
    "  --jobs    jobs of the synthetic case (default 1000000)\n"
    "  --load    offered load of the synthetic case, share of its GPUs (default 0.8)\n"
    "  --seed    seed of the synthetic trace and the simulation (default 1)\n"
    "  --json    also write the results as JSON to OUT\n";

std::optional<Flags> ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return std::nullopt;
    if (i + 1 >= argc) {
      std::cerr << "sim_bench: " << arg << " needs a value (or is unknown)\n";
      return std::nullopt;
    }
    const std::string value = argv[++i];
    if (arg == "--case") f.cases = Split(value);
    else if (arg == "--policy") f.policies = Split(value);
    else if (arg == "--jobs") f.jobs = std::atoll(value.c_str());
    else if (arg == "--load") f.load = std::atof(value.c_str());
    else if (arg == "--seed") f.seed = std::strtoull(value.c_str(), nullptr, 10);
    else if (arg == "--json") f.json_out = value;
    else {
      std::cerr << "sim_bench: unknown flag " << arg << "\n";
      return std::nullopt;
    }
  }
  if (f.jobs <= 0 || f.load <= 0 || f.cases.empty() || f.policies.empty()) {
    std::cerr << "sim_bench: --jobs and --load must be positive; --case and --policy must name "
                 "something\n";
    return std::nullopt;
  }
  return f;
}

int Main(int argc, char** argv) {
  const std::optional<Flags> flags = ParseFlags(argc, argv);
  if (!flags) {
    std::cerr << kUsage;
    return 2;
  }
  std::vector<Run> runs;
  for (const auto& c : flags->cases) {
    for (const auto& p : flags->policies) runs.push_back({c, p});
  }
  std::printf("%-16s %-9s %9s %9s %9s %9s %9s %9s %5s  %s\n", "case", "policy", "jobs",
              "prepare_s", "sim_s", "cpu_s", "jobs/s", "peak_MiB", "cores", "target");
  Json all = Json::array();
  bool failed = false;
  for (const Run& run : runs) {
    Json r = runs.size() > 1 ? RunInChild(run, *flags) : RunOne(run, *flags);
    PrintLine(r, *flags);
    failed = failed || r.contains("error");
    all.push_back(std::move(r));
  }
  PrintRatios(all);
  if (!flags->json_out.empty()) {
    std::ofstream out(flags->json_out);
    out << all.dump(2) << "\n";
    if (!out) {
      std::cerr << "sim_bench: cannot write " << flags->json_out << "\n";
      return 1;
    }
  }
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace squeeze::bench

int main(int argc, char** argv) { return squeeze::bench::Main(argc, argv); }
