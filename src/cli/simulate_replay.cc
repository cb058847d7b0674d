#include "cli/simulate_replay.h"

#include <iostream>

#include "cli/sim_progress.h"
#include "config/cluster_file.h"
#include "sim/metrics.h"
#include "sim/readers/trace_reader.h"
#include "sim/trace_pools.h"

namespace squeeze {
namespace {

// Reasons shown for a run's rejected jobs; the rest are counted.
constexpr size_t kRejectionsShown = 5;

void ReportRejected(const std::string& name, const std::vector<std::string>& rejected) {
  if (rejected.empty()) return;
  std::cerr << "squeeze simulate: " << name << ": " << rejected.size()
            << (rejected.size() == 1 ? " job" : " jobs")
            << " rejected (the cluster can never run them; they are in no figure)"
            << (rejected.size() > kRejectionsShown ? "; the first " +
                                                         std::to_string(kRejectionsShown) + ":"
                                                   : ":")
            << "\n";
  for (size_t i = 0; i < rejected.size() && i < kRejectionsShown; ++i) {
    std::cerr << "  " << rejected[i] << "\n";
  }
}

std::vector<std::string> RunNames(const PolicyChoice& choice) {
  std::vector<std::string> names = choice.names;
  if (choice.borrow) {
    const size_t n = names.size();
    for (size_t i = 0; i < n; ++i) names.push_back(names[i] + "+borrow");
  }
  if (choice.defrag) {
    const size_t n = names.size();
    for (size_t i = 0; i < n; ++i) names.push_back(names[i] + "+defrag");
  }
  return names;
}

}  // namespace

Result<std::vector<Policy>> ResolvePolicies(
    const PolicyChoice& choice, const std::string& label,
    std::vector<std::pair<std::string, std::string>>* unread) {
  if (choice.names.empty()) return Status::Error("--policy: no policy named");
  std::vector<Policy> out;
  for (const auto& name : RunNames(choice)) {
    auto p = NamedPolicy(name);
    if (!p.ok()) return p.status().WithContext("--policy");
    out.push_back(std::move(*p));
  }
  std::vector<PolicySetting> settings;
  if (!choice.slice.empty()) {
    settings.push_back({"slice=" + choice.slice, "--slice " + choice.slice, choice.slice_inherited});
  }
  settings.insert(settings.end(), choice.settings.begin(), choice.settings.end());
  auto outcome = ApplyPolicySettings(settings, out, PolicyDriver::kSimulator);
  if (!outcome.ok()) return outcome.status();
  const std::string prefix = "squeeze simulate: " + (label.empty() ? "" : label + ": ") + "note: ";
  for (const std::string& note : outcome->notes) std::cerr << prefix << note << "\n";
  if (unread) unread->insert(unread->end(), outcome->unread.begin(), outcome->unread.end());
  return out;
}

Result<Trace> LoadReplayTrace(const std::string& path, const ReadOptions& read) {
  auto trace = ReadTrace(path, read);
  if (trace.ok() && trace->skipped_rows > 0) {
    std::cerr << "squeeze simulate: skipped " << trace->skipped_rows << " bad rows of " << path
              << "\n";
    for (const auto& m : trace->skipped) std::cerr << "  " << m << "\n";
  }
  return trace;
}

Result<ClusterSpec> LoadReplayCluster(const std::string& path) {
  auto cluster = LoadClusterFile(path);
  if (cluster.ok() && cluster->nodes.empty()) {
    return Status::Error(path +
                         ": no nodes (squeeze serve asks a Slurm pool's cluster for its nodes; "
                         "the simulator needs them listed)");
  }
  return cluster;
}

Status CheckReplayPools(const ReplayInput& input) {
  if (input.options.ignore_trace_pools) return Status::Ok();
  if (Status st = CheckTracePools(*input.trace, *input.cluster, input.cluster_name); !st.ok()) {
    return st;
  }
  const std::string note = MissingPoolsNote(*input.trace, *input.cluster, input.cluster_name);
  if (!note.empty()) {
    std::cerr << "squeeze simulate: "
              << (input.label.empty() ? "" : "variant '" + input.label + "': ") << "note: "
              << note << "\n";
  }
  return Status::Ok();
}

Result<std::vector<PolicyRun>> RunReplay(const ReplayInput& input) {
  std::vector<PolicyRun> runs;
  for (const Policy& policy : input.policies) {
    SimOptions options = input.options;
    const std::string name = input.label.empty() ? policy.name : input.label + " " + policy.name;
    if (input.progress.show) {
      ProgressStyle style;
      style.prefix = "squeeze simulate: ";
      style.name = name;
      style.terminal = input.progress.terminal;
      style.every_s = input.progress.every_s;
      options.progress = MakeProgressPrinter(std::move(style), &std::cerr);
    }
    auto result = Simulate(*input.trace, *input.cluster, policy, options);
    if (!result.ok()) return result.status().WithContext("policy " + name);
    ReportRejected(name, result->rejected);
    Summary summary = Summarize(*result, *input.cluster);
    runs.push_back({std::move(*result), std::move(summary)});
  }
  return runs;
}

}  // namespace squeeze
