#include "cli/export_command.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <string>

#include "cli/store_history.h"
#include "config/cluster_file.h"
#include "config/policy_settings.h"
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
};

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
    std::cerr << me << cluster.status().message() << "\n";
    return 1;
  }
  auto options = Options(f);
  if (!options.ok()) {
    std::cerr << me << options.status().message() << "\n";
    return 2;
  }
  auto text = target == "kueue" ? ExportKueue(*cluster, *options)
                                : ExportVolcano(*cluster, *options);
  if (!text.ok()) {
    std::cerr << me << f.cluster << ": " << text.status().message() << "\n";
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
  std::cerr << me << "wrote " << objects << " objects to " << f.out << "\n";
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
  if (kueue) {
    cmd->add_option("--namespace", f->pool_namespace,
                    "The namespace of the pools' LocalQueues (each team's go into the "
                    "namespace named after the team)")
        ->capture_default_str();
  }
}

}  // namespace

void RegisterExportCommand(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRun>>& out) {
  auto* exp = app.add_subcommand(
      "export", "Write a cluster file and a policy as Kubernetes queue objects: Kueue's or "
                "Volcano's, with what they cannot express listed as comments "
                "(docs/kubernetes.md)");
  exp->require_subcommand(1);
  auto kueue_flags = std::make_shared<ExportFlags>();
  auto* kueue = exp->add_subcommand(
      "kueue", "Kueue (kueue.x-k8s.io/v1beta2): a ResourceFlavor per GPU model, pool kind and "
               "region; a ClusterQueue per pool and per team with the teams' guarantees as "
               "nominal quotas, one cohort per region; LocalQueues; WorkloadPriorityClasses "
               "for the urgency classes; with a topology in the cluster file, a Topology that "
               "the flavors of its nodes name (topology-aware scheduling)");
  AddFlags(kueue, kueue_flags.get(), true);
  out.emplace_back(kueue, [kueue_flags] { return Run(*kueue_flags, "kueue"); });
  auto volcano_flags = std::make_shared<ExportFlags>();
  auto* volcano = exp->add_subcommand(
      "volcano", "Volcano: a Queue per pool and per team (weight, deserved = the guarantees, "
                 "capability, reclaimable), PriorityClasses for the urgency classes, the "
                 "scheduler's ConfigMap with the policy's actions and plugins, and with a "
                 "topology in the cluster file a HyperNode per domain (block, rack)");
  AddFlags(volcano, volcano_flags.get(), false);
  out.emplace_back(volcano, [volcano_flags] { return Run(*volcano_flags, "volcano"); });
}

}  // namespace squeeze
