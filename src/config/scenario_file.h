// A scenario file: one simulator experiment with variants (docs/simulate.md, "Scenarios"). The
// top level names the trace and the settings every variant starts from; each variant names its
// cluster and may override the settings. Paths are taken relative to the scenario file and must
// name readable files. yaml-cpp stays inside the config layer; every error names the file, the
// line, the path in the document and the value. Plain data; the loader is stateless.
#ifndef SQUEEZE_CONFIG_SCENARIO_FILE_H_
#define SQUEEZE_CONFIG_SCENARIO_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

// What a trace that does not say is taken to be (the --assume-* options); unset = their default.
struct ScenarioAssume {
  std::optional<bool> preemptible;
  std::optional<bool> checkpointable;
  std::optional<Time> checkpoint_cost;
  std::optional<Time> checkpoint_stall;
  std::optional<double> data_gb;
  std::optional<double> urgent_share;
};

// The settings a variant inherits from the top level and may override.
struct ScenarioSettings {
  std::optional<std::vector<std::string>> policies;  // replaces the inherited list
  // --set entries as (KEY, VALUE), KEY maybe POLICY.KEY, in file order; a variant's entry
  // replaces the inherited one of the same key, others are added.
  std::vector<std::pair<std::string, std::string>> set;
  std::optional<uint64_t> seed;
  std::optional<std::string> inference_load;  // a path; "" in a variant = none
  std::optional<std::string> reclaim_trace;   // a path; "" in a variant = none
  ScenarioAssume assume;  // merged field by field
};

struct ScenarioVariant {
  std::string name;
  std::string cluster;  // a path
  ScenarioSettings settings;  // as written in the variant
};

struct Scenario {
  std::string name;    // `name:`, else the file name without its extension
  std::string source;  // the file, as given
  std::string trace;   // a path
  ScenarioSettings defaults;
  std::vector<ScenarioVariant> variants;
};

// What one variant runs with: the defaults overridden by the variant's own settings.
ScenarioSettings ResolveVariant(const Scenario& scenario, const ScenarioVariant& variant);

// Reads and checks the file at `path`; relative paths in it are resolved against its folder.
Result<Scenario> LoadScenarioFile(const std::string& path);

// Parses the YAML text; `source` names it in messages and `base_dir` is the folder relative
// paths start from. Referenced files must exist.
Result<Scenario> ParseScenarioYaml(std::string_view text, const std::string& source,
                                   const std::string& base_dir);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_SCENARIO_FILE_H_
