// Heterogeneous GPUs: how fast a job trains on each kind of card, and the order in which a
// hardware-aware placement tries the cards a job may use (issue 38). Pure functions of the
// cluster and the job; no state of their own.
//
// The rule (docs/policies.md, `hardware_aware`): among the node groups a job may use, a card is
// good enough when the job would finish there no later than on the fastest card it may use
// but for a slack: its speed is at least the fastest's / (1 + hardware_slack), or the time the
// fastest would save it is under hardware_min_saving (its remaining work known: an estimate or
// what the order learned). Good-enough cards are tried smallest first (the least memory, then
// the slowest): small jobs take small cards and leave the large ones to the jobs that need
// them. The other cards follow, fastest first.
#ifndef SQUEEZE_CORE_HARDWARE_H_
#define SQUEEZE_CORE_HARDWARE_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cluster_state.h"
#include "core/job.h"
#include "core/status.h"

namespace squeeze {

// How fast `spec` trains on the cards of `group`, relative to the card its estimate is for:
// its own gpu_speeds entry for the model, else the cluster's speed for the model (else 1).
double JobSpeedOn(const JobSpec& spec, const NodeGroup& group);
// The slowest card of a placement sets a gang's pace: the least JobSpeedOn over its nodes
// (1 for an empty placement).
double JobSpeedOn(const JobSpec& spec, const ClusterState& cluster, const Placement& placement);

// The same by the cluster's speeds alone (ClusterSpec::gpu_models), whatever a job claims.
double CardSpeedOn(const ClusterState& cluster, const Placement& placement);

// Whether every group of `groups` has cards of one kind for `spec` (memory and speed).
bool OneCardKind(const ClusterState& cluster, const JobSpec& spec, const std::vector<int>& groups);

// A job's speed table (JobSpec::gpu_speeds) from text: MODEL:SPEED pairs separated by ',' or
// '|' (V100:1,P100:0.77,K80:0.24), each speed in (0, 1000], each model once, at most 64;
// the error names the text and the pair.
Result<std::map<std::string, double>> ParseGpuSpeeds(std::string_view text);
// The same table as text, pairs separated by `separator` (in model-name order).
std::string GpuSpeedsText(const std::map<std::string, double>& speeds, char separator = ',');

struct HardwareRule {
  double slack = 0.1;
  Time min_saving = 0;
};

// `groups` (those a job may use) as tiers to try one after the other, each a set of groups of
// one card kind (memory, speed for this job), by the rule above; `remaining` is the job's work
// still to do at speed 1, when known. One tier when the groups are all of one kind.
std::vector<std::vector<int>> HardwareTiers(const ClusterState& cluster, const JobSpec& spec,
                                            const std::vector<int>& groups,
                                            std::optional<Time> remaining,
                                            const HardwareRule& rule);
// The same, asking `remaining` only when the rule needs it (it may cost a model's lookup).
std::vector<std::vector<int>> HardwareTiers(
    const ClusterState& cluster, const JobSpec& spec, const std::vector<int>& groups,
    const std::function<std::optional<Time>()>& remaining, const HardwareRule& rule);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_HARDWARE_H_
