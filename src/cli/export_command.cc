#include "cli/export_command.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <string>

#include "cli/store_history.h"
#include "cli/submit_request.h"
#include "config/cluster_file.h"
#include "config/policy_settings.h"
#include "core/safe_text.h"
#include "export/job_export.h"
#include "export/kueue_export.h"
#include "export/volcano_export.h"
#include "sim/readers/trace_reader.h"

namespace squeeze {
namespace {

struct ExportFlags {
  std::string cluster;
  std::string out;
  std::string policy = "sliced";
  std::vector<std::string> settings;
  std::string history;
  std::string store;
  std::string pool_namespace = "default";
  std::vector<std::string> jobs;  // job files or batch scripts (--job)
  std::string image;
};

// The --job files, read as `squeeze submit FILE` reads them but without the submitter's
// environment (sbatch's --export=ALL): a manifest is no place for it.
Result<std::vector<JobToExport>> ReadJobs(const ExportFlags& f) {
  std::error_code ec;
  const std::string cwd = std::filesystem::current_path(ec).string();
  if (ec) return Status::Error("cannot read the current directory: " + ec.message());
  const Time now = Seconds(std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count());
  std::vector<JobToExport> out;
  for (const std::string& file : f.jobs) {
    std::vector<std::string> warnings;
    auto request = BuildSubmitRequest(file, SubmitFlags{}, cwd, now, &warnings);
    if (!request.ok()) return request.status().WithContext("--job");
    for (const auto& w : warnings) std::cerr << "squeeze export: warning: " << EscapeControls(w) << "\n";
    JobToExport job;
    job.workdir_given = request->workdir != cwd;
    job.request = std::move(*request);
    job.source = file;
    out.push_back(std::move(job));
  }
  return out;
}

// The teams a job history names (jobs without a team are left out), sorted.
Result<std::vector<std::string>> HistoryTeams(const ExportFlags& f) {
  Trace trace;
  if (!f.store.empty()) {
    auto s = ReadStoreHistory(f.store);
    if (!s.ok()) return s.status();
    trace = std::move(s->trace);
  } else {
    auto t = ReadTrace(f.history, ReadOptions{});
    if (!t.ok()) return t.status().WithContext("--history");
    trace = std::move(*t);
  }
  std::set<std::string> teams;
  for (const TraceJob& job : trace.jobs) {
    if (!job.spec.team.empty()) teams.insert(job.spec.team);
  }
  return std::vector<std::string>(teams.begin(), teams.end());
}

Result<ExportOptions> Options(const ExportFlags& f) {
  ExportOptions o;
  o.cluster_source = f.cluster;
  o.pool_namespace = f.pool_namespace;
  auto policy = NamedPolicy(f.policy);
  if (!policy.ok()) return policy.status().WithContext("--policy");
  std::vector<Policy> policies = {*policy};
  std::vector<PolicySetting> settings;
  for (const std::string& s : f.settings) settings.push_back(SetFlag(s));
  auto outcome = ApplyPolicySettings(settings, policies, PolicyDriver::kLive);
  if (!outcome.ok()) return outcome.status();
  o.policy = policies[0];
  if (!f.history.empty() && !f.store.empty()) {
    return Status::Error("give one job history: --history TRACE or --store DIR");
  }
  if (!f.history.empty() || !f.store.empty()) {
    auto teams = HistoryTeams(f);
    if (!teams.ok()) return teams.status();
    o.history_teams = std::move(*teams);
    o.history_source = f.history.empty() ? f.store : f.history;
  }
  return o;
}

int Run(const ExportFlags& f, const std::string& target) {
  const std::string me = "squeeze export " + target + ": ";
  auto cluster = LoadClusterFile(f.cluster);
  if (!cluster.ok()) {
    std::cerr << me << EscapeControls(cluster.status().message()) << "\n";
    return 1;
  }
  auto options = Options(f);
  if (!options.ok()) {
    std::cerr << me << EscapeControls(options.status().message()) << "\n";
    return 2;
  }
  if (f.jobs.empty() && !f.image.empty()) {
    std::cerr << me << "--image: only with --job (the container image of the jobs exported)\n";
    return 2;
  }
  if (f.jobs.empty() && target == "volcano" && f.pool_namespace != "default") {
    std::cerr << me << "--namespace: only with --job for volcano (Volcano's queues have none)\n";
    return 2;
  }
  Result<std::string> text = Status::Error("unset");
  if (!f.jobs.empty()) {
    auto jobs = ReadJobs(f);
    if (!jobs.ok()) {
      std::cerr << me << EscapeControls(jobs.status().message()) << "\n";
      return 1;
    }
    text = ExportJobs(*cluster, *options, *jobs, f.image,
                      target == "kueue" ? ExportTarget::kKueue : ExportTarget::kVolcano);
  } else {
    text = target == "kueue" ? ExportKueue(*cluster, *options) : ExportVolcano(*cluster, *options);
  }
  if (!text.ok()) {
    std::cerr << me
              << EscapeControls((f.jobs.empty() ? f.cluster + ": " : "") +
                                text.status().message())
              << "\n";
    return 1;
  }
  if (f.out.empty() || f.out == "-") {
    std::cout << *text;
    return 0;
  }
  std::ofstream file(f.out, std::ios::binary | std::ios::trunc);
  file << *text;
  file.close();
  if (!file) {
    std::cerr << me << "-o " << f.out << ": cannot be written\n";
    return 1;
  }
  size_t objects = 0;
  for (size_t at = text->find("\n---\n"); at != std::string::npos;
       at = text->find("\n---\n", at + 1)) {
    ++objects;
  }
  std::cerr << me << "wrote " << objects << (objects == 1 ? " object" : " objects") << " to "
            << f.out << "\n";
  return 0;
}

void AddFlags(CLI::App* cmd, ExportFlags* f, bool kueue) {
  cmd->add_option("--cluster", f->cluster,
                  "The cluster file (YAML or CSV, docs/cluster-file.md): pools, nodes, teams' "
                  "guarantees (team_quota_gpus), topology")
      ->required();
  cmd->add_option("-o,--output", f->out, "Write here instead of standard output");
  cmd->add_option("--policy", f->policy,
                  "The squeeze policy the objects reflect (preemption, reclaim, queueing, "
                  "plugins; docs/policies.md)")
      ->capture_default_str();
  cmd->add_option("--set", f->settings,
                  "Change a policy setting, KEY=VALUE, as squeeze serve --set does (e.g. "
                  "actions=allocate|backfill takes preemption out)");
  cmd->add_option("--history", f->history,
                  "A job history (any trace simulate reads; a job-profile CSV names teams): a "
                  "queue for each team it names, with no guarantee where the cluster gives none");
  cmd->add_option("--store", f->store,
                  "A squeeze serve data directory: the teams of its finished jobs, as --history");
  cmd->add_option("--namespace", f->pool_namespace,
                  kueue ? "The namespace of the pools' LocalQueues and of jobs (--job) sent to "
                          "them (each team's go into the namespace named after the team)"
                        : "With --job: the namespace of jobs sent to a pool's queue (a team's "
                          "go into the namespace named after the team)")
      ->capture_default_str();
  cmd->add_option("--job", f->jobs,
                  std::string("A job file or batch script, as squeeze submit takes it "
                              "(repeatable): write it as ") +
                      (kueue ? "a batch/v1 Job for Kueue" : "a Volcano Job") +
                      ", on the queues of --cluster, instead of the cluster's objects");
  cmd->add_option("--image", f->image, "With --job: the container image the jobs run in");
}

}  // namespace

void RegisterExportCommand(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* exp = app.add_subcommand(
      "export", "Write a cluster file and a policy as Kubernetes queue objects: Kueue's or "
                "Volcano's, with what they cannot express listed as comments; or job files as "
                "the Jobs they run (docs/kubernetes.md)");
  exp->require_subcommand(1);
  auto kueue_flags = std::make_shared<ExportFlags>();
  auto* kueue = exp->add_subcommand(
      "kueue", "Kueue (kueue.x-k8s.io/v1beta2): a ResourceFlavor per GPU model, pool kind and "
               "region; a ClusterQueue per pool and per team with the teams' guarantees as "
               "nominal quotas, one cohort per region; LocalQueues; WorkloadPriorityClasses "
               "for the urgency classes; with a topology in the cluster file, a Topology that "
               "the flavors of its nodes name (topology-aware scheduling). With --job, job "
               "files as the batch/v1 Jobs Kueue runs on those queues");
  AddFlags(kueue, kueue_flags.get(), true);
  out.emplace_back(kueue, [kueue_flags] { return Run(*kueue_flags, "kueue"); });
  auto volcano_flags = std::make_shared<ExportFlags>();
  auto* volcano = exp->add_subcommand(
      "volcano", "Volcano: a Queue per pool and per team (weight, deserved = the guarantees, "
                 "capability, reclaimable), PriorityClasses for the urgency classes, the "
                 "scheduler's ConfigMap with the policy's actions and plugins, and with a "
                 "topology in the cluster file a HyperNode per domain (block, rack). With --job, "
                 "job files as Volcano Jobs on those queues");
  AddFlags(volcano, volcano_flags.get(), false);
  out.emplace_back(volcano, [volcano_flags] { return Run(*volcano_flags, "volcano"); });
}

}  // namespace squeeze
