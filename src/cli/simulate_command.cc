#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/fill_command.h"
#include "config/cluster_file.h"
#include "config/file_io.h"
#include "config/text_util.h"
#include "core/duration.h"
#include "core/policy.h"
#include "sim/metrics.h"
#include "sim/readers/trace_reader.h"
#include "sim/report.h"
#include "sim/simulator.h"

namespace squeeze {
namespace {

struct SimulateFlags {
  std::string trace;
  std::string cluster;
  std::string policies = "squeeze";
  uint64_t seed = 1;
  std::string json_out;
  std::string svg_out;
  std::string jobs_out;
  bool skip_bad_rows = false;
  bool ignore_pools = false;
  bool borrow = false;
  bool defrag = false;
  std::string slice;
  std::vector<std::string> settings;
  bool assume_preemptible = true;
  double assume_data_gb = 0;
  bool assume_checkpointable = true;
  bool quiet = false;
  // --protocol fill (the FGD experiment on openb traces)
  std::string protocol = "replay";
  std::string nodes;
  std::string placements = "random,dotprod,packing,clustering,bestfit,fgd,squeeze";
  std::string seeds = "42-51";
  double fill = 1.3;
};

bool WriteFile(const std::string& path, const std::string& text) {
  Status st = WriteWholeFile(path, text);
  if (!st.ok()) std::cerr << "squeeze simulate: " << st.message() << "\n";
  return st.ok();
}

Result<std::vector<Policy>> ResolvePolicies(const SimulateFlags& f) {
  std::vector<std::string> names = SplitList(f.policies, ',');
  if (names.empty()) return Status::Error("--policy: no policy named");
  if (f.borrow) {
    const size_t n = names.size();
    for (size_t i = 0; i < n; ++i) names.push_back(names[i] + "+borrow");
  }
  if (f.defrag) {
    const size_t n = names.size();
    for (size_t i = 0; i < n; ++i) names.push_back(names[i] + "+defrag");
  }
  std::vector<Policy> out;
  for (const auto& name : names) {
    auto p = NamedPolicy(name);
    if (!p.ok()) return p.status().WithContext("--policy");
    if (!f.slice.empty()) {
      auto slice = ParseDuration(f.slice);
      if (!slice.ok()) return slice.status().WithContext("--slice");
      p->slice = *slice;
    }
    for (const auto& setting : f.settings) {
      const size_t eq = setting.find('=');
      if (eq == std::string::npos) {
        return Status::Error("--set: '" + setting + "' is not KEY=VALUE");
      }
      std::string key = setting.substr(0, eq);
      const size_t dot = key.find('.');
      if (dot != std::string::npos) {
        if (key.substr(0, dot) != name) continue;  // for another policy
        key = key.substr(dot + 1);
      }
      Status st = SetPolicyOption(*p, key, setting.substr(eq + 1));
      if (!st.ok()) return st.WithContext("--set");
    }
    out.push_back(std::move(*p));
  }
  return out;
}

int RunFill(const SimulateFlags& f) {
  FillFlags fill;
  fill.trace = f.trace;
  fill.nodes = f.nodes;
  fill.placements = f.placements;
  fill.seeds = f.seeds;
  fill.fill = f.fill;
  fill.json_out = f.json_out;
  fill.svg_out = f.svg_out;
  fill.quiet = f.quiet;
  return RunFillProtocol(fill);
}

int RunSimulate(const SimulateFlags& f) {
  if (f.protocol == "fill") return RunFill(f);
  if (f.protocol != "replay") {
    std::cerr << "squeeze simulate: --protocol: '" << f.protocol
              << "' is not a protocol (replay, fill)\n";
    return 1;
  }
  if (f.cluster.empty()) {
    std::cerr << "squeeze simulate: --cluster is required (a cluster file)\n";
    return 1;
  }
  ReadOptions read;
  read.skip_bad_rows = f.skip_bad_rows;
  read.default_preemptible = f.assume_preemptible;
  read.default_checkpointable = f.assume_checkpointable;
  read.default_data_gb = f.assume_data_gb;
  auto trace = ReadTrace(f.trace, read);
  if (!trace.ok()) {
    std::cerr << "squeeze simulate: " << trace.status().message() << "\n";
    return 1;
  }
  if (trace->skipped_rows > 0) {
    std::cerr << "squeeze simulate: skipped " << trace->skipped_rows << " bad rows of "
              << f.trace << "\n";
    for (const auto& m : trace->skipped) std::cerr << "  " << m << "\n";
  }
  auto cluster = LoadClusterFile(f.cluster);
  if (!cluster.ok()) {
    std::cerr << "squeeze simulate: " << cluster.status().message() << "\n";
    return 1;
  }
  if (cluster->nodes.empty()) {
    std::cerr << "squeeze simulate: " << f.cluster
              << ": no nodes (squeeze serve asks a Slurm pool's cluster for its nodes; the "
                 "simulator needs them listed)\n";
    return 1;
  }
  auto policies = ResolvePolicies(f);
  if (!policies.ok()) {
    std::cerr << "squeeze simulate: " << policies.status().message() << "\n";
    return 1;
  }
  const bool show_progress = !f.quiet && isatty(STDERR_FILENO);
  std::vector<PolicyRun> runs;
  for (const Policy& policy : *policies) {
    SimOptions options;
    options.seed = f.seed;
    options.ignore_trace_pools = f.ignore_pools;
    if (show_progress) {
      options.progress = [&policy](double done) {
        std::fprintf(stderr, "\r%-16s %5.1f%%", policy.name.c_str(), 100 * done);
        if (done >= 1) std::fprintf(stderr, "\n");
      };
    }
    auto result = Simulate(*trace, *cluster, policy, options);
    if (!result.ok()) {
      std::cerr << "squeeze simulate: policy " << policy.name << ": "
                << result.status().message() << "\n";
      return 1;
    }
    for (const auto& r : result->rejected) std::cerr << "squeeze simulate: rejected " << r << "\n";
    Summary summary = Summarize(*result, *cluster);
    runs.push_back({std::move(*result), std::move(summary)});
  }
  std::cout << FormatTable(runs);
  if (!f.json_out.empty() && !WriteFile(f.json_out, FormatJson(runs, f.trace, f.cluster))) return 1;
  if (!f.jobs_out.empty() && !WriteFile(f.jobs_out, FormatJobsCsv(runs, *cluster))) return 1;
  if (!f.svg_out.empty() &&
      !WriteFile(f.svg_out, QueueCdfSvg(runs, "Queueing delay CDF: " + f.trace))) {
    return 1;
  }
  return 0;
}

}  // namespace

CommandRun RegisterSimulate(CLI::App& app) {
  auto f = std::make_shared<SimulateFlags>();
  app.add_option("--trace", f->trace,
                 "Job trace: Philly CSV (philly.csv, philly_oct_nov.csv), a job-profile CSV, "
                 "or with --protocol fill an openb pod list (openb_pod_list_*.csv)")
      ->required();
  app.add_option("--cluster", f->cluster,
                 "Cluster file (YAML) or pool,nodes,gpus_per_node CSV (required for a replay)");
  app.add_option("--protocol", f->protocol,
                 "replay: run the trace's jobs through time under each --policy; fill: the FGD "
                 "experiment (pods arrive in a seeded order up to --fill x capacity, never "
                 "leave, each --placement places them; see docs/fragmentation.md)")
      ->capture_default_str();
  app.add_option("--nodes", f->nodes, "fill: the openb node list (openb_node_list_gpu_node.csv)");
  app.add_option("--placement", f->placements,
                 "fill: node orders to compare, comma-separated (random, dotprod, packing, "
                 "clustering, bestfit, fgd, squeeze, best-fit, first-fit, consolidation)")
      ->capture_default_str();
  app.add_option("--seeds", f->seeds, "fill: seeds, FIRST-LAST or one; the columns are means")
      ->capture_default_str();
  app.add_option("--fill", f->fill, "fill: total GPU demand as a multiple of capacity")
      ->capture_default_str();
  app.add_option("--policy", f->policies,
                 "Policies to compare, comma-separated (fifo, sjf, srtf, las, backfill, sliced, "
                 "squeeze; NAME+borrow lets pools lend idle GPUs, NAME+defrag moves jobs to "
                 "consolidate free GPUs for a job blocked by fragmentation, as squeeze and "
                 "sliced do already)")
      ->capture_default_str();
  app.add_option("--seed", f->seed, "Seed for anything random in the run")->capture_default_str();
  app.add_option("--json", f->json_out, "Write the results as JSON to this file");
  app.add_option("--svg", f->svg_out,
                 "Write the queueing-delay CDF plot (fill: allocation ratio against arrived "
                 "load) to this file");
  app.add_option("--jobs-csv", f->jobs_out,
                 "Write every job's outcome under every policy as CSV to this file");
  app.add_flag("--skip-bad-rows", f->skip_bad_rows,
               "Skip and count malformed trace rows instead of failing");
  app.add_flag("--ignore-pools", f->ignore_pools,
               "Let every job run in any pool, whatever pool the trace names");
  app.add_flag("--borrow", f->borrow,
               "Also run each policy with borrowing between pools (reported as NAME+borrow)");
  app.add_flag("--defrag", f->defrag,
               "Also run each policy (and each +borrow variant) with defragmentation moves "
               "(reported as NAME+defrag)");
  app.add_option("--slice", f->slice, "Slice length for sliced policies (e.g. 30m)");
  app.add_option("--set", f->settings,
                 "Change a policy setting for a what-if run: KEY=VALUE for every policy, "
                 "POLICY.KEY=VALUE for one (repeatable; see docs/policies.md)");
  app.add_option("--assume-preemptible", f->assume_preemptible,
                 "Whether jobs a trace says nothing about may be preempted")
      ->capture_default_str();
  app.add_option("--assume-checkpointable", f->assume_checkpointable,
                 "Whether jobs a trace says nothing about checkpoint when asked")
      ->capture_default_str();
  app.add_option("--assume-data-gb", f->assume_data_gb,
                 "Size in GB of the data of jobs a trace gives none for: what running in "
                 "another region copies over the cluster file's region_links")
      ->check(CLI::Range(0.0, 1e12))
      ->capture_default_str();
  app.add_flag("-q,--quiet", f->quiet, "No progress on the terminal");
  return [f] { return RunSimulate(*f); };
}

}  // namespace squeeze
