// When a waiting job is expected to start, for `squeeze why`: the current queue is simulated
// forward with the jobs' estimates through the same scheduling core. The running jobs are
// given the GPUs first (submitted at the snapshot's start, their remaining estimated time as
// their duration), then the waiting jobs in their queue order. Stateless; thread-safe.
#ifndef SQUEEZE_SIM_EXPECTED_START_H_
#define SQUEEZE_SIM_EXPECTED_START_H_

#include <optional>
#include <vector>

#include "core/cluster_spec.h"
#include "core/job.h"
#include "core/policy.h"
#include "core/status.h"

namespace squeeze {

struct SnapshotJob {
  JobSpec spec;                    // spec.estimate: the whole run's estimate
  bool running = false;
  Time elapsed = 0;                // of the current run, for a running job
};

struct ExpectedStart {
  // Seconds from now until `target` starts; nullopt when a job it depends on has no estimate
  // (then `missing_estimate` names one) or it never starts in the simulated horizon.
  std::optional<Time> in_s;
  std::optional<JobId> missing_estimate;
};

// `jobs` in queue order (running first is not required). Errors: `target` is not among the
// waiting jobs, or the cluster refuses a job.
Result<ExpectedStart> EstimateStart(const std::vector<SnapshotJob>& jobs, JobId target,
                                    const ClusterSpec& cluster, const Policy& policy);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_EXPECTED_START_H_
