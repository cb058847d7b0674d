#include "cli/simulate_replay.h"

#include <cstdio>
#include <iostream>

#include "config/cluster_file.h"
#include "core/duration.h"
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

Status ApplySettings(const PolicyChoice& choice, const std::string& name, Policy& p) {
  if (!choice.slice.empty()) {
    auto slice = ParseDuration(choice.slice);
    if (!slice.ok()) return slice.status().WithContext("--slice");
    p.slice = *slice;
  }
  for (const auto& setting : choice.settings) {
    const size_t eq = setting.find('=');
    if (eq == std::string::npos) return Status::Error("--set: '" + setting + "' is not KEY=VALUE");
    std::string key = setting.substr(0, eq);
    const size_t dot = key.find('.');
    if (dot != std::string::npos) {
      if (key.substr(0, dot) != name) continue;  // for another policy
      key = key.substr(dot + 1);
    }
    Status st = SetPolicyOption(p, key, setting.substr(eq + 1));
    if (!st.ok()) return st.WithContext("--set");
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<Policy>> ResolvePolicies(const PolicyChoice& choice) {
  if (choice.names.empty()) return Status::Error("--policy: no policy named");
  std::vector<Policy> out;
  for (const auto& name : RunNames(choice)) {
    auto p = NamedPolicy(name);
    if (!p.ok()) return p.status().WithContext("--policy");
    Status st = ApplySettings(choice, name, *p);
    if (!st.ok()) return st;
    out.push_back(std::move(*p));
  }
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
