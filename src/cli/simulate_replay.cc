#include "cli/simulate_replay.h"

#include <cstdio>
#include <iostream>

#include "config/cluster_file.h"
#include "sim/metrics.h"
#include "sim/readers/trace_reader.h"

namespace squeeze {
namespace {

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

Result<std::vector<PolicyRun>> RunReplay(const ReplayInput& input) {
  std::vector<PolicyRun> runs;
  for (const Policy& policy : input.policies) {
    SimOptions options = input.options;
    const std::string name = input.label.empty() ? policy.name : input.label + " " + policy.name;
    if (input.show_progress) {
      options.progress = [name](double done) {
        std::fprintf(stderr, "\r%-16s %5.1f%%", name.c_str(), 100 * done);
        if (done >= 1) std::fprintf(stderr, "\n");
      };
    }
    auto result = Simulate(*input.trace, *input.cluster, policy, options);
    if (!result.ok()) return result.status().WithContext("policy " + name);
    for (const auto& r : result->rejected) std::cerr << "squeeze simulate: rejected " << r << "\n";
    Summary summary = Summarize(*result, *input.cluster);
    runs.push_back({std::move(*result), std::move(summary)});
  }
  return runs;
}

}  // namespace squeeze
