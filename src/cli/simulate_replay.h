// What a replay of `squeeze simulate` does, shared by a plain run (--trace, --cluster) and the
// variants of a scenario (--scenario): loading the trace and the cluster, naming the policies,
// running each policy's simulation. Messages of what is skipped or rejected go to stderr;
// errors are returned. Not thread-safe (stderr).
#ifndef SQUEEZE_CLI_SIMULATE_REPLAY_H_
#define SQUEEZE_CLI_SIMULATE_REPLAY_H_

#include <string>
#include <vector>

#include "config/policy_settings.h"
#include "core/cluster_spec.h"
#include "core/policy.h"
#include "core/status.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/trace.h"

namespace squeeze {

// The policies to run and how to change them (--policy, --borrow, --defrag, --slice, --set).
struct PolicyChoice {
  std::vector<std::string> names;
  bool borrow = false;  // also NAME+borrow for every name
  bool defrag = false;  // also NAME+defrag for every name (and +borrow one)
  std::string slice;    // a duration; "" = the policy's own
  bool slice_inherited = false;  // --slice given for every variant of a scenario
  std::vector<PolicySetting> settings;  // --set KEY=VALUE or POLICY.KEY=VALUE, after --slice
};

// The policies in run order; errors start with the option they come from (--policy, --set).
// Notes on settings some of the policies do not read go to stderr, after `label` (a scenario's
// variant). The inherited settings none of them reads go to `unread` (shown, why) if given.
Result<std::vector<Policy>> ResolvePolicies(
    const PolicyChoice& choice, const std::string& label = "",
    std::vector<std::pair<std::string, std::string>>* unread = nullptr);

// The trace; skipped rows are reported on stderr.
Result<Trace> LoadReplayTrace(const std::string& path, const ReadOptions& read);
// The cluster, which must list its nodes.
Result<ClusterSpec> LoadReplayCluster(const std::string& path);

// Progress on stderr (cli/sim_progress.h): none with -q; on a terminal one line in place, else
// a plain line every `every_s` seconds.
struct ReplayProgress {
  bool show = false;
  bool terminal = false;
  double every_s = 5;
};

struct ReplayInput {
  const Trace* trace = nullptr;
  const ClusterSpec* cluster = nullptr;
  std::string cluster_name;  // the cluster file, for messages
  std::vector<Policy> policies;
  SimOptions options;        // seed, pools, inference load; progress is set here per policy
  std::string label;         // before the policy name in progress lines ("" = none)
  ReplayProgress progress;
};

// Unless the options ignore the trace's pools, before anything runs (sim/trace_pools.h): an
// error when no job of the trace finds its pool in the cluster; a note on stderr when only
// some jobs do not (they will be rejected).
Status CheckReplayPools(const ReplayInput& input);

// Runs every policy in order (the caller checks the pools first). Rejected jobs are reported on
// stderr as a count per policy and the first few reasons.
Result<std::vector<PolicyRun>> RunReplay(const ReplayInput& input);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_SIMULATE_REPLAY_H_
