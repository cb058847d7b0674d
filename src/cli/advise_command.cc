#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "advise/advice.h"
#include "advise/advise_report.h"
#include "advise/what_if.h"
#include "advise/what_if_runs.h"
#include "cli/commands.h"
#include "cli/sim_progress.h"
#include "cli/store_history.h"
#include "config/cluster_file.h"
#include "config/file_io.h"
#include "core/duration.h"
#include "core/policy.h"
#include "sim/readers/trace_reader.h"

namespace squeeze {
namespace {

struct AdviseFlags {
  std::string history;
  std::string store;
  std::string cluster;
  std::vector<std::string> what_ifs;
  std::string policy = "squeeze";
  std::string checkpoint_cost = "60s";
  std::string spot_max_length = "12h";
  std::string spot_long_checkpoint = "5m";
  bool fault_tolerant_only = true;
  bool assume_checkpointable = true;
  bool assume_preemptible = true;
  bool skip_bad_rows = false;
  std::string markdown_out;
  std::string html_out;
  std::string json_out;
  bool quiet = false;
};

int Fail(const std::string& message) {
  std::cerr << "squeeze advise: " << message << "\n";
  return 1;
}

Result<SpotRules> Rules(const AdviseFlags& f) {
  SpotRules r;
  r.fault_tolerant_only = f.fault_tolerant_only;
  for (auto [flag, text, out] : {std::tuple{"--checkpoint-cost", &f.checkpoint_cost,
                                            &r.default_checkpoint_cost},
                                 std::tuple{"--spot-max-length", &f.spot_max_length, &r.max_length},
                                 std::tuple{"--spot-long-checkpoint", &f.spot_long_checkpoint,
                                            &r.long_job_checkpoint}}) {
    auto d = ParseDuration(*text);
    if (!d.ok()) return d.status().WithContext(flag);
    if (*d < 0) return Status::Error(std::string(flag) + ": '" + *text + "' is negative");
    *out = *d;
  }
  return r;
}

// The history, and the trace the what-if runs replay.
Result<std::pair<History, Trace>> LoadHistory(const AdviseFlags& f) {
  if (f.history.empty() == f.store.empty()) {
    return Status::Error("give one history: --history FILE (a trace or job-profile CSV) or "
                         "--store PATH (a squeeze serve data directory)");
  }
  if (!f.store.empty()) {
    auto s = ReadStoreHistory(f.store);
    if (!s.ok()) return s.status();
    return std::pair{std::move(s->history), std::move(s->trace)};
  }
  ReadOptions read;
  read.skip_bad_rows = f.skip_bad_rows;
  read.default_checkpointable = f.assume_checkpointable;
  read.default_preemptible = f.assume_preemptible;
  auto trace = ReadTrace(f.history, read);
  if (!trace.ok()) return trace.status();
  if (trace->skipped_rows > 0) {
    std::cerr << "squeeze advise: skipped " << trace->skipped_rows << " bad rows of " << f.history
              << "\n";
  }
  History h = HistoryFromTrace(*trace);
  return std::pair{std::move(h), std::move(*trace)};
}

Status RunWhatIfsInto(const AdviseFlags& f, const Trace& trace, const ClusterSpec& cluster,
                      Advice& advice) {
  if (f.what_ifs.empty()) return Status::Ok();
  std::vector<WhatIf> what_ifs;
  for (const std::string& text : f.what_ifs) {
    auto w = ParseWhatIf(text, cluster);
    if (!w.ok()) return w.status();
    what_ifs.push_back(std::move(*w));
  }
  auto policy = NamedPolicy(f.policy);
  if (!policy.ok()) return policy.status().WithContext("--policy");
  SimOptions options;
  if (!f.quiet) {
    ProgressStyle style;
    style.prefix = "squeeze advise: ";
    style.name = "what-if runs";
    style.terminal = isatty(STDERR_FILENO);
    options.progress = MakeProgressPrinter(std::move(style), &std::cerr);
  }
  auto runs = RunWhatIfs(trace, cluster, advice.prices, what_ifs, *policy, options);
  if (!runs.ok()) return runs.status();
  advice.policy = policy->name;
  advice.what_ifs = std::move(*runs);
  return Status::Ok();
}

int RunAdvise(const AdviseFlags& f) {
  auto rules = Rules(f);
  if (!rules.ok()) return Fail(rules.status().message());
  auto loaded = LoadHistory(f);
  if (!loaded.ok()) return Fail(loaded.status().message());
  auto cluster = LoadClusterFile(f.cluster);
  if (!cluster.ok()) return Fail(cluster.status().message());
  Advice advice = BuildAdvice(loaded->first, f.cluster, *cluster, *rules);
  for (const std::string& m : advice.prices.skipped) std::cerr << "squeeze advise: " << m << "\n";
  for (const std::string& w : advice.warnings) std::cerr << "squeeze advise: warning: " << w << "\n";
  if (Status st = RunWhatIfsInto(f, loaded->second, *cluster, advice); !st.ok()) {
    return Fail(st.message());
  }
  std::cout << FormatAdviceText(advice);
  for (auto [path, text] : {std::pair{&f.markdown_out, &FormatAdviceMarkdown},
                            std::pair{&f.html_out, &FormatAdviceHtml},
                            std::pair{&f.json_out, &FormatAdviceJson}}) {
    if (path->empty()) continue;
    if (Status st = WriteWholeFile(*path, text(advice)); !st.ok()) return Fail(st.message());
  }
  return 0;
}

}  // namespace

CommandRun RegisterAdvise(CLI::App& app) {
  auto f = std::make_shared<AdviseFlags>();
  app.add_option("--history", f->history,
                 "Job history: a Philly CSV or a job-profile CSV (as simulate --trace reads)");
  app.add_option("--store", f->store,
                 "Instead of --history: a squeeze serve data directory (or its squeeze.db); its "
                 "finished jobs with their recorded start and end");
  app.add_option("--cluster", f->cluster,
                 "Cluster file with prices: owned pools, a reserved pool (monthly_cost), an "
                 "on-demand and a spot pool (price_per_gpu_hour, spot: ...)")
      ->required();
  app.add_option("--what-if", f->what_ifs,
                 "A cluster change to simulate against the cluster as it is: TARGET+N[@KIND], "
                 "TARGET a pool, a kind (its first pool) or new-KIND; several terms joined by ','; "
                 "repeatable (one simulation each). E.g. spot+16, 6214e9+16@reserved");
  app.add_option("--policy", f->policy, "Policy of the what-if simulations")->capture_default_str();
  app.add_option("--checkpoint-cost", f->checkpoint_cost,
                 "A checkpoint's cost for jobs whose history gives none")
      ->capture_default_str();
  app.add_option("--spot-max-length", f->spot_max_length,
                 "Rule: no job longer than this on spot unless it checkpoints at least every "
                 "--spot-long-checkpoint")
      ->capture_default_str();
  app.add_option("--spot-long-checkpoint", f->spot_long_checkpoint,
                 "Rule: the checkpoint interval a job longer than --spot-max-length needs on spot")
      ->capture_default_str();
  app.add_option("--spot-fault-tolerant-only", f->fault_tolerant_only,
                 "Rule: only jobs that checkpoint go to spot (false: the others too when, "
                 "restarting from zero at each reclaim, it is still cheaper)")
      ->capture_default_str();
  app.add_option("--assume-checkpointable", f->assume_checkpointable,
                 "Whether jobs a trace says nothing about checkpoint when asked")
      ->capture_default_str();
  app.add_option("--assume-preemptible", f->assume_preemptible,
                 "Whether jobs a trace says nothing about may be preempted (what-if runs)")
      ->capture_default_str();
  app.add_flag("--skip-bad-rows", f->skip_bad_rows,
               "Skip and count malformed history rows instead of failing");
  app.add_option("--markdown", f->markdown_out, "Write the report as Markdown to this file");
  app.add_option("--html", f->html_out,
                 "Write the report as one HTML page with its plots (inline SVG) to this file");
  app.add_option("--json", f->json_out, "Write every figure as JSON to this file");
  app.add_flag("-q,--quiet", f->quiet,
               "No progress of the what-if runs on stderr (on a terminal a line rewritten in "
               "place; else a plain line every 5 s once a run has lasted that long)");
  return [f] { return RunAdvise(*f); };
}

}  // namespace squeeze
