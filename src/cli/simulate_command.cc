#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/fill_command.h"
#include "cli/scenario_command.h"
#include "cli/simulate_replay.h"
#include "config/file_io.h"
#include "config/text_util.h"
#include "core/duration.h"
#include "sim/readers/inference_load_reader.h"
#include "sim/readers/job_types_reader.h"
#include "sim/readers/reclaim_trace_reader.h"
#include "sim/report.h"

namespace squeeze {
namespace {

struct SimulateFlags {
  std::string scenario;
  std::string trace;
  std::string cluster;
  std::string policies = "squeeze";
  uint64_t seed = 1;
  std::string json_out;
  std::string svg_out;
  std::string jobs_out;
  bool skip_bad_rows = false;
  bool ignore_pools = false;
  bool no_fragmentation_meter = false;
  bool borrow = false;
  bool defrag = false;
  std::string slice;
  std::vector<std::string> settings;
  bool assume_preemptible = true;
  double assume_data_gb = 0;
  double assume_urgent_share = 0;
  bool assume_checkpointable = true;
  std::string assume_checkpoint_cost;
  double assume_time_limit = 0;
  std::string assume_checkpoint_stall;
  double assume_elastic = 0;
  double assume_elastic_max = 1;
  double assume_elastic_min = 0;
  std::string assume_scaling = "amdahl:0.95";
  std::string assume_resize_cost;
  std::string assume_job_types;
  std::string inference_load;
  std::string reclaim_trace;
  bool quiet = false;
  bool in_seconds = false;
  std::string progress_every = "5s";
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

int Fail(const Status& st) {
  std::cerr << "squeeze simulate: " << st.message() << "\n";
  return 1;
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

Result<ReplayProgress> ProgressOf(const SimulateFlags& f);

int RunScenarioFlags(const SimulateFlags& f) {
  auto progress = ProgressOf(f);
  if (!progress.ok()) return Fail(progress.status());
  ScenarioFlags s;
  s.scenario = f.scenario;
  s.json_out = f.json_out;
  s.svg_out = f.svg_out;
  s.jobs_out = f.jobs_out;
  s.skip_bad_rows = f.skip_bad_rows;
  s.ignore_pools = f.ignore_pools;
  s.measure_fragmentation = !f.no_fragmentation_meter;
  s.borrow = f.borrow;
  s.defrag = f.defrag;
  s.slice = f.slice;
  s.in_seconds = f.in_seconds;
  s.progress = *progress;
  return RunScenario(s);
}

Result<ReadOptions> ReadOptionsOf(const SimulateFlags& f) {
  ReadOptions read;
  read.skip_bad_rows = f.skip_bad_rows;
  read.default_preemptible = f.assume_preemptible;
  read.default_checkpointable = f.assume_checkpointable;
  read.default_data_gb = f.assume_data_gb;
  read.urgent_share = f.assume_urgent_share;
  read.time_limit_factor = f.assume_time_limit;
  if (!f.assume_checkpoint_cost.empty()) {
    Result<Time> cost = ParseDuration(f.assume_checkpoint_cost);
    if (!cost.ok()) return cost.status().WithContext("--assume-checkpoint-cost");
    read.default_checkpoint_cost = *cost;
  }
  if (!f.assume_checkpoint_stall.empty()) {
    Result<Time> stall = ParseDuration(f.assume_checkpoint_stall);
    if (!stall.ok()) return stall.status().WithContext("--assume-checkpoint-stall");
    read.default_checkpoint_stall = *stall;
  }
  read.elastic_share = f.assume_elastic;
  read.elastic_max_factor = f.assume_elastic_max;
  read.elastic_min_factor = f.assume_elastic_min;
  Result<Scaling> scaling = ParseScaling(f.assume_scaling);
  if (!scaling.ok()) return scaling.status().WithContext("--assume-scaling");
  read.elastic_scaling = *scaling;
  if (!f.assume_resize_cost.empty()) {
    Result<Time> cost = ParseDuration(f.assume_resize_cost);
    if (!cost.ok()) return cost.status().WithContext("--assume-resize-cost");
    if (*cost < 0) return Status::Error("--assume-resize-cost: '" + f.assume_resize_cost + "' is negative");
    read.elastic_resize_cost = *cost;
  }
  if (!f.assume_job_types.empty()) {
    auto types = ReadJobTypes(f.assume_job_types);
    if (!types.ok()) return types.status().WithContext("--assume-job-types");
    read.job_types = std::move(*types);
  }
  return read;
}

Result<ReplayProgress> ProgressOf(const SimulateFlags& f) {
  ReplayProgress p;
  p.show = !f.quiet;
  p.terminal = isatty(STDERR_FILENO);
  Result<Time> every = ParseDuration(f.progress_every);
  if (!every.ok()) return every.status().WithContext("--progress-every");
  if (*every < 0) return Status::Error("--progress-every: '" + f.progress_every + "' is negative");
  p.every_s = ToSeconds(*every);
  return p;
}

// The inference load and the reclaim trace, when given, into `input`'s options; `load` and
// `reclaims` hold them.
Status LoadTakeable(const SimulateFlags& f, std::optional<InferenceLoad>& load,
                    std::optional<ReclaimTrace>& reclaims, ReplayInput& input) {
  if (!f.inference_load.empty()) {
    auto read_load = ReadInferenceLoad(f.inference_load);
    if (!read_load.ok()) return read_load.status();
    load = std::move(*read_load);
    input.options.inference_load = &*load;
  }
  if (!f.reclaim_trace.empty()) {
    auto read_reclaims = ReadReclaimTrace(f.reclaim_trace);
    if (!read_reclaims.ok()) return read_reclaims.status();
    reclaims = std::move(*read_reclaims);
    input.options.reclaim_trace = &*reclaims;
  }
  return Status::Ok();
}

int RunSimulate(const SimulateFlags& f) {
  if (!f.scenario.empty()) return RunScenarioFlags(f);
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
  std::vector<PolicySetting> settings;
  for (const std::string& text : f.settings) settings.push_back(SetFlag(text));
  // The policies first: a wrong --set is told before a long trace is read.
  PolicyChoice choice;
  choice.names = SplitList(f.policies, ',');
  choice.borrow = f.borrow;
  choice.defrag = f.defrag;
  choice.slice = f.slice;
  choice.settings = std::move(settings);
  auto policies = ResolvePolicies(choice);
  if (!policies.ok()) return Fail(policies.status());
  auto read = ReadOptionsOf(f);
  if (!read.ok()) return Fail(read.status());
  auto progress = ProgressOf(f);
  if (!progress.ok()) return Fail(progress.status());
  auto trace = LoadReplayTrace(f.trace, *read);
  if (!trace.ok()) return Fail(trace.status());
  auto cluster = LoadReplayCluster(f.cluster);
  if (!cluster.ok()) return Fail(cluster.status());
  ReplayInput input;
  input.trace = &*trace;
  input.cluster = &*cluster;
  input.cluster_name = f.cluster;
  input.options.ignore_trace_pools = f.ignore_pools;
  // Refused before the inference load is read, which can take a while.
  if (Status st = CheckReplayPools(input); !st.ok()) return Fail(st);
  std::optional<InferenceLoad> load;
  std::optional<ReclaimTrace> reclaims;
  if (Status st = LoadTakeable(f, load, reclaims, input); !st.ok()) return Fail(st);
  input.policies = std::move(*policies);
  input.options.seed = f.seed;
  input.options.measure_fragmentation = !f.no_fragmentation_meter;
  input.progress = *progress;
  auto runs = RunReplay(input);
  if (!runs.ok()) return Fail(runs.status());
  std::cout << FormatTable(*runs, f.in_seconds);
  if (!f.json_out.empty() && !WriteFile(f.json_out, FormatJson(*runs, f.trace, f.cluster))) {
    return 1;
  }
  if (!f.jobs_out.empty() && !WriteFile(f.jobs_out, FormatJobsCsv(*runs, *cluster))) return 1;
  if (!f.svg_out.empty() &&
      !WriteFile(f.svg_out, QueueCdfSvg(*runs, "Queueing delay CDF: " + f.trace))) {
    return 1;
  }
  return 0;
}

}  // namespace

namespace {

// What to take for what a trace does not say (preemptible, checkpoints, urgency, data):
// stated by a scenario file instead.
void AddAssumeOptions(CLI::App& app, SimulateFlags& flags,
                      std::vector<CLI::Option*>& in_scenario) {
  SimulateFlags* f = &flags;
  in_scenario.push_back(app.add_option("--assume-preemptible", f->assume_preemptible,
                                       "Whether jobs a trace says nothing about may be preempted")
                            ->capture_default_str());
  in_scenario.push_back(
      app.add_option("--assume-checkpointable", f->assume_checkpointable,
                     "Whether jobs a trace says nothing about checkpoint when asked")
          ->capture_default_str());
  in_scenario.push_back(
      app.add_option("--assume-checkpoint-cost", f->assume_checkpoint_cost,
                     "Seconds a checkpoint takes for jobs a trace gives no checkpoint_cost for "
                     "(a duration such as 60 or 1m; default 0)"));
  in_scenario.push_back(
      app.add_option("--assume-checkpoint-stall", f->assume_checkpoint_stall,
                     "Asynchronous checkpoints for jobs a trace gives no checkpoint_stall for: "
                     "seconds a periodic checkpoint pauses training, its save going on in the "
                     "background (default: none, the whole checkpoint_cost pauses it)"));
  in_scenario.push_back(
      app.add_option("--assume-urgent-share", f->assume_urgent_share,
                     "For traces that give no urgency (Philly, openb): this share of the jobs, "
                     "picked by a hash of their ids, is high and the rest low (0: all normal)")
          ->check(CLI::Range(0.0, 1.0))
          ->capture_default_str());
  in_scenario.push_back(
      app.add_option("--assume-time-limit", f->assume_time_limit,
                     "Time limits (sbatch --time) for traces that give none: each job's true "
                     "duration times this factor, rounded up to a whole hour; at 1 or more no "
                     "job reaches its limit, and backfill counts on the limits (0: no limits)")
          ->check(CLI::Range(0.0, 1000.0))
          ->capture_default_str());
  in_scenario.push_back(
      app.add_option("--assume-data-gb", f->assume_data_gb,
                     "Size in GB of the data of jobs a trace gives none for: what running in "
                     "another region copies over the cluster file's region_links")
          ->check(CLI::Range(0.0, 1e12))
          ->capture_default_str());
}

// Elastic jobs for traces that give none (docs/simulate.md), stated by a scenario file instead.
void AddElasticOptions(CLI::App& app, SimulateFlags& flags,
                       std::vector<CLI::Option*>& in_scenario) {
  SimulateFlags* f = &flags;
  in_scenario.push_back(
      app.add_option("--assume-elastic", f->assume_elastic,
                     "Elastic jobs for traces that give none: this share of the checkpointable "
                     "jobs, picked by a hash of their ids, runs on 1 GPU up to its trace width "
                     "(times --assume-elastic-max) and is resized by the shrink and grow "
                     "actions (0: none, 1: all)")
          ->check(CLI::Range(0.0, 1.0))
          ->capture_default_str());
  in_scenario.push_back(
      app.add_option("--assume-elastic-max", f->assume_elastic_max,
                     "The widest an elastic job may run, as a multiple of its trace width (its "
                     "duration stays that of its trace width)")
          ->check(CLI::Range(1.0, 64.0))
          ->capture_default_str());
  in_scenario.push_back(
      app.add_option("--assume-elastic-min", f->assume_elastic_min,
                     "The narrowest an elastic job may run, as a share of its trace width "
                     "(rounded up; 0: 1 GPU)")
          ->check(CLI::Range(0.0, 1.0))
          ->capture_default_str());
  in_scenario.push_back(
      app.add_option("--assume-scaling", f->assume_scaling,
                     "How elastic jobs' throughput grows with their width: linear, amdahl:P "
                     "(P the parallel fraction) or WIDTH:THROUGHPUT pairs (1:1,2:1.9,4:3.4)")
          ->capture_default_str());
  in_scenario.push_back(
      app.add_option("--assume-resize-cost", f->assume_resize_cost,
                     "What each resize of an elastic job costs it on restart (a duration such "
                     "as 60 or 1m; default: its restart overhead, 7 s on 1 GPU, 30 s on 2-8, "
                     "60 s above), besides its checkpoint (--assume-checkpoint-cost)"));
  in_scenario.push_back(
      app.add_option("--assume-job-types", f->assume_job_types,
                     "Heterogeneous GPUs, for traces that give no speeds: a CSV of job types "
                     "(job_type,multi_gpu,gpu_speeds; examples/hardware/gavel-job-types.csv); "
                     "each job gets one type's speed per GPU model, picked by a hash of its id, "
                     "a job of several GPUs among the multi_gpu types"));
}

// Where the results and the progress go.
void AddOutputOptions(CLI::App& app, SimulateFlags& f) {
  app.add_option("--json", f.json_out, "Write the results as JSON to this file");
  app.add_option("--svg", f.svg_out,
                 "Write the queueing-delay CDF plot (fill: allocation ratio against arrived "
                 "load) to this file");
  app.add_option("--jobs-csv", f.jobs_out,
                 "Write every job's outcome under every policy as CSV to this file");
  app.add_flag("--seconds", f.in_seconds,
               "The table's times (avg_queue, p50, p95, p99, avg_jct, per pool) in whole "
               "seconds, as papers give them, instead of 24m57s, 4h36m, 1d23h");
  app.add_flag("-q,--quiet", f.quiet,
               "No progress on stderr (on a terminal a line rewritten in place; else, once a "
               "run has lasted --progress-every, a plain line that often)");
  app.add_option("--progress-every", f.progress_every,
                 "When stderr is not a terminal (a pipe, a log file): a progress line this "
                 "often while a run goes on (simulated day, jobs done, waiting, running); "
                 "0 = at every report")
      ->capture_default_str();
}

// The options of --protocol fill (the FGD experiment) alone.
void AddFillOptions(CLI::App& app, SimulateFlags& f) {
  app.add_option("--nodes", f.nodes, "fill: the openb node list (openb_node_list_gpu_node.csv)");
  app.add_option("--placement", f.placements,
                 "fill: node orders to compare, comma-separated (random, dotprod, packing, "
                 "clustering, bestfit, fgd, squeeze, best-fit, first-fit, consolidation)")
      ->capture_default_str();
  app.add_option("--seeds", f.seeds, "fill: seeds, FIRST-LAST or one; the columns are means")
      ->capture_default_str();
  app.add_option("--fill", f.fill, "fill: total GPU demand as a multiple of capacity")
      ->capture_default_str();
}

}  // namespace

CommandRun RegisterSimulate(CLI::App& app) {
  auto f = std::make_shared<SimulateFlags>();
  CLI::Option* trace = app.add_option(
      "--trace", f->trace,
      "Job trace: Philly CSV (philly.csv, philly_oct_nov.csv), a job-profile CSV, or with "
      "--protocol fill an openb pod list (openb_pod_list_*.csv); required unless --scenario");
  CLI::Option* scenario = app.add_option(
      "--scenario", f->scenario,
      "Run the variants of a scenario file (YAML: trace, policy, seed, assume, set, "
      "inference_load, reclaim_trace, and variants each naming a cluster; see docs/simulate.md, Scenarios) and "
      "report them in one table; --json writes {scenario, variants: [{name, cluster, results}]}");
  app.parse_complete_callback([trace, scenario] {
    if (trace->count() == 0 && scenario->count() == 0) throw CLI::RequiredError("--trace");
  });
  std::vector<CLI::Option*> in_scenario;  // what a scenario file states instead
  in_scenario.push_back(app.add_option(
      "--cluster", f->cluster,
      "Cluster file (YAML) or pool,nodes,gpus_per_node CSV (required for a replay)"));
  in_scenario.push_back(trace);
  in_scenario.push_back(app.add_option("--protocol", f->protocol,
                 "replay: run the trace's jobs through time under each --policy; fill: the FGD "
                 "experiment (pods arrive in a seeded order up to --fill x capacity, never "
                 "leave, each --placement places them; see docs/fragmentation.md)")
      ->capture_default_str());
  AddFillOptions(app, *f);
  in_scenario.push_back(app.add_option("--policy", f->policies,
                 "Policies to compare, comma-separated (fifo, sjf, srtf, las, backfill, sliced, "
                 "squeeze; NAME+borrow lets pools lend idle GPUs, NAME+defrag moves jobs to "
                 "consolidate free GPUs for a job blocked by fragmentation, NAME+region, "
                 "NAME+spot and NAME+colocate add those actions; squeeze and sliced have "
                 "defrag, region, spot and colocate already)")
      ->capture_default_str());
  in_scenario.push_back(
      app.add_option("--seed", f->seed, "Seed for anything random in the run (the reclaims of spot pools with a "
                     "mean_reclaim_interval)")
          ->capture_default_str());
  AddOutputOptions(app, *f);
  app.add_flag("--skip-bad-rows", f->skip_bad_rows,
               "Skip and count malformed trace rows instead of failing");
  app.add_flag("--ignore-pools", f->ignore_pools,
               "Let every job run in any pool, whatever pool the trace names");
  app.add_flag("--no-fragmentation-meter", f->no_fragmentation_meter,
               "Do not measure the demand blocked by fragmentation (frag_gpuh shows -, null in "
               "JSON); faster, and the same decisions");
  app.add_flag("--borrow", f->borrow,
               "Also run each policy with borrowing between pools (reported as NAME+borrow)");
  app.add_flag("--defrag", f->defrag,
               "Also run each policy (and each +borrow variant) with defragmentation moves "
               "(reported as NAME+defrag)");
  app.add_option("--slice", f->slice, "Slice length for policies with the slice action (sliced; e.g. 30m); refused "
                 "when no policy run has it");
  in_scenario.push_back(app.add_option(
      "--set", f->settings,
      "Change a policy setting for a what-if run: KEY=VALUE for every policy, "
      "POLICY.KEY=VALUE for one (repeatable; see docs/policies.md). A setting no policy it "
      "is for reads is refused"));
  AddAssumeOptions(app, *f, in_scenario);
  AddElasticOptions(app, *f, in_scenario);
  in_scenario.push_back(app.add_option(
      "--inference-load", f->inference_load,
      "Inference load on the colocated pools' GPUs: the per-pod GPU duty cycle trace "
      "(value,timestamp_anon,container_ip; CSV, .csv.gz or .tar.gz)"));
  in_scenario.push_back(app.add_option(
      "--reclaim-trace", f->reclaim_trace,
      "Reclaims of spot nodes to replay instead of the seeded process: a CSV time,node[,warning] "
      "(docs/spot-and-colocation.md)"));
  for (CLI::Option* option : in_scenario) scenario->excludes(option);
  return [f] { return RunSimulate(*f); };
}

}  // namespace squeeze
