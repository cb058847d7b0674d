// `squeeze simulate --scenario FILE`: runs every variant of a scenario file
// (config/scenario_file.h) through the replay a plain `squeeze simulate` does, and reports them
// in one table and one JSON document (docs/simulate.md, "Scenarios").
#ifndef SQUEEZE_CLI_SCENARIO_COMMAND_H_
#define SQUEEZE_CLI_SCENARIO_COMMAND_H_

#include <string>

#include "cli/simulate_replay.h"

namespace squeeze {

// The command-line options that apply to a scenario's every variant.
struct ScenarioFlags {
  std::string scenario;
  std::string json_out;
  std::string svg_out;
  std::string jobs_out;
  bool skip_bad_rows = false;
  bool ignore_pools = false;
  bool measure_fragmentation = true;
  bool borrow = false;
  bool defrag = false;
  std::string slice;
  bool in_seconds = false;  // --seconds: the table's times in whole seconds
  ReplayProgress progress;  // none with -q
};

// The exit status: 0, or 1 after a message on stderr.
int RunScenario(const ScenarioFlags& flags);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_SCENARIO_COMMAND_H_
