#include "cli/scenario_command.h"

#include <fmt/format.h>

#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "cli/simulate_replay.h"
#include "config/file_io.h"
#include "config/scenario_file.h"
#include "sim/readers/inference_load_reader.h"
#include "sim/readers/reclaim_trace_reader.h"

namespace squeeze {
namespace {

using TraceKey = std::tuple<bool, bool, Time, std::optional<Time>, double, double>;

// A variant ready to run: the inputs are owned by ScenarioInputs.
struct PreparedVariant {
  ReplayInput input;
  std::string name;
  std::string cluster_path;
  std::string load_path;
};

// The traces (one per distinct set of --assume-* values), clusters and inference loads the
// variants share, each read once.
class ScenarioInputs {
 public:
  explicit ScenarioInputs(bool skip_bad_rows) : skip_bad_rows_(skip_bad_rows) {}

  Result<const Trace*> GetTrace(const std::string& path, const ScenarioAssume& a) {
    ReadOptions read;
    read.skip_bad_rows = skip_bad_rows_;
    read.default_preemptible = a.preemptible.value_or(read.default_preemptible);
    read.default_checkpointable = a.checkpointable.value_or(read.default_checkpointable);
    read.default_checkpoint_cost = a.checkpoint_cost.value_or(read.default_checkpoint_cost);
    if (a.checkpoint_stall) read.default_checkpoint_stall = a.checkpoint_stall;
    read.default_data_gb = a.data_gb.value_or(read.default_data_gb);
    read.urgent_share = a.urgent_share.value_or(read.urgent_share);
    const TraceKey key{read.default_preemptible, read.default_checkpointable,
                       read.default_checkpoint_cost, read.default_checkpoint_stall,
                       read.default_data_gb, read.urgent_share};
    auto it = traces_.find(key);
    if (it == traces_.end()) {
      Result<Trace> trace = LoadReplayTrace(path, read);
      if (!trace.ok()) return trace.status();
      it = traces_.emplace(key, std::move(*trace)).first;
    }
    return &it->second;
  }

  Result<const ClusterSpec*> GetCluster(const std::string& path) {
    auto it = clusters_.find(path);
    if (it == clusters_.end()) {
      Result<ClusterSpec> cluster = LoadReplayCluster(path);
      if (!cluster.ok()) return cluster.status();
      it = clusters_.emplace(path, std::move(*cluster)).first;
    }
    return &it->second;
  }

  Result<const ReclaimTrace*> GetReclaims(const std::string& path) {
    auto it = reclaims_.find(path);
    if (it == reclaims_.end()) {
      Result<ReclaimTrace> trace = ReadReclaimTrace(path);
      if (!trace.ok()) return trace.status();
      it = reclaims_.emplace(path, std::move(*trace)).first;
    }
    return &it->second;
  }

  Result<const InferenceLoad*> GetLoad(const std::string& path) {
    auto it = loads_.find(path);
    if (it == loads_.end()) {
      Result<InferenceLoad> load = ReadInferenceLoad(path);
      if (!load.ok()) return load.status();
      it = loads_.emplace(path, std::move(*load)).first;
    }
    return &it->second;
  }

 private:
  bool skip_bad_rows_;
  std::map<TraceKey, Trace> traces_;
  std::map<std::string, ClusterSpec> clusters_;
  std::map<std::string, InferenceLoad> loads_;
  std::map<std::string, ReclaimTrace> reclaims_;
};

// The settings every variant inherits (the top-level set:, --slice): how many variants each
// reached, and how many of those read it not at all, with why. One no variant reads is refused.
struct InheritedSettings {
  std::map<std::string, int> given;
  std::map<std::string, std::pair<int, std::string>> unread;

  Status Check() const {
    for (const auto& [shown, n] : given) {
      const auto it = unread.find(shown);
      if (it != unread.end() && it->second.first == n) {
        return Status::Error(shown + " changes nothing in any variant (in the last: " +
                             it->second.second + ")");
      }
    }
    return Status::Ok();
  }
};

Result<PreparedVariant> Prepare(const Scenario& scenario, const ScenarioVariant& variant,
                                const ScenarioFlags& flags, ScenarioInputs& inputs,
                                InheritedSettings& inherited) {
  const ScenarioSettings s = ResolveVariant(scenario, variant);
  PreparedVariant out;
  out.name = variant.name;
  out.cluster_path = variant.cluster;
  out.load_path = s.inference_load.value_or("");
  auto trace = inputs.GetTrace(scenario.trace, s.assume);
  if (!trace.ok()) return trace.status();
  auto cluster = inputs.GetCluster(variant.cluster);
  if (!cluster.ok()) return cluster.status();
  if (!out.load_path.empty()) {
    auto load = inputs.GetLoad(out.load_path);
    if (!load.ok()) return load.status();
    out.input.options.inference_load = *load;
  }
  if (s.reclaim_trace && !s.reclaim_trace->empty()) {
    auto reclaims = inputs.GetReclaims(*s.reclaim_trace);
    if (!reclaims.ok()) return reclaims.status();
    out.input.options.reclaim_trace = *reclaims;
  }
  PolicyChoice choice;
  choice.names = s.policies.value_or(std::vector<std::string>{"squeeze"});
  choice.borrow = flags.borrow;
  choice.defrag = flags.defrag;
  choice.slice = flags.slice;
  choice.slice_inherited = true;
  if (!flags.slice.empty()) ++inherited.given["--slice " + flags.slice];
  for (const auto& [key, value] : s.set) {
    bool own = false;
    for (const auto& entry : variant.settings.set) own |= entry.first == key;
    const std::string shown = "set " + key + ": " + value + (own ? "" : " (top level)");
    choice.settings.push_back({key + "=" + value, shown, !own});
    if (!own) ++inherited.given[shown];
  }
  std::vector<std::pair<std::string, std::string>> unread;
  auto policies = ResolvePolicies(choice, "variant '" + variant.name + "'", &unread);
  if (!policies.ok()) return policies.status();
  for (const auto& [shown, why] : unread) {
    std::cerr << "squeeze simulate: variant '" << variant.name << "': note: " << why << "\n";
    auto& u = inherited.unread[shown];
    ++u.first;
    u.second = why;
  }
  out.input.trace = *trace;
  out.input.cluster = *cluster;
  out.input.cluster_name = variant.cluster;
  out.input.policies = std::move(*policies);
  out.input.options.seed = s.seed.value_or(1);
  out.input.options.ignore_trace_pools = flags.ignore_pools;
  out.input.options.measure_fragmentation = flags.measure_fragmentation;
  out.input.label = variant.name;
  out.input.progress = flags.progress;
  // Every variant's pools are checked before the first runs.
  if (Status st = CheckReplayPools(out.input); !st.ok()) return st;
  return out;
}

bool Write(const std::string& path, const std::string& text) {
  if (path.empty()) return true;
  Status st = WriteWholeFile(path, text);
  if (!st.ok()) std::cerr << "squeeze simulate: " << st.message() << "\n";
  return st.ok();
}

// The table and the SVG, every run labelled VARIANT/POLICY (the runs move out of `variants`).
bool WriteTableAndSvg(std::vector<VariantRuns>& variants, const ScenarioFlags& flags,
                      const std::string& trace) {
  std::vector<PolicyRun> all;
  for (VariantRuns& v : variants) {
    for (PolicyRun& r : v.runs) {
      r.summary.policy = v.name + "/" + r.summary.policy;
      all.push_back(std::move(r));
    }
  }
  std::cout << FormatTable(all, flags.in_seconds);
  return flags.svg_out.empty() ||
         Write(flags.svg_out, QueueCdfSvg(all, "Queueing delay CDF: " + trace));
}

}  // namespace

int RunScenario(const ScenarioFlags& flags) {
  Result<Scenario> scenario = LoadScenarioFile(flags.scenario);
  if (!scenario.ok()) {
    std::cerr << "squeeze simulate: " << scenario.status().message() << "\n";
    return 1;
  }
  ScenarioInputs inputs(flags.skip_bad_rows);
  InheritedSettings inherited;
  std::vector<PreparedVariant> prepared;
  for (const ScenarioVariant& variant : scenario->variants) {
    auto p = Prepare(*scenario, variant, flags, inputs, inherited);
    if (!p.ok()) {
      std::cerr << "squeeze simulate: " << flags.scenario << ": variant '" << variant.name
                << "': " << p.status().message() << "\n";
      return 1;
    }
    prepared.push_back(std::move(*p));
  }
  if (Status st = inherited.Check(); !st.ok()) {
    std::cerr << "squeeze simulate: " << flags.scenario << ": " << st.message() << "\n";
    return 1;
  }
  std::cout << fmt::format("scenario {}: trace {}\n", scenario->name, scenario->trace);
  std::vector<VariantRuns> variants;
  std::string jobs_csv;
  for (const PreparedVariant& p : prepared) {
    std::cout << fmt::format("  {}: {} ({} GPUs){}\n", p.name, p.cluster_path,
                             p.input.cluster->TotalGpus(),
                             p.load_path.empty() ? "" : ", inference load " + p.load_path);
    auto runs = RunReplay(p.input);
    if (!runs.ok()) {
      std::cerr << "squeeze simulate: variant '" << p.name << "': " << runs.status().message()
                << "\n";
      return 1;
    }
    VariantRuns v{p.name, p.cluster_path, p.input.cluster->TotalGpus(), p.load_path,
                  std::move(*runs)};
    if (!flags.jobs_out.empty()) {
      for (PolicyRun& r : v.runs) r.summary.policy = p.name + "/" + r.summary.policy;
      std::string csv = FormatJobsCsv(v.runs, *p.input.cluster);
      jobs_csv += jobs_csv.empty() ? csv : csv.substr(csv.find('\n') + 1);
      for (PolicyRun& r : v.runs) r.summary.policy.erase(0, p.name.size() + 1);
    }
    variants.push_back(std::move(v));
  }
  std::cout << "\n";
  const std::string json = FormatScenarioJson(scenario->name, scenario->trace, variants);
  if (!WriteTableAndSvg(variants, flags, scenario->trace)) return 1;
  return Write(flags.json_out, json) && Write(flags.jobs_out, jobs_csv) ? 0 : 1;
}

}  // namespace squeeze
