#include "sim/expected_start.h"

#include <algorithm>

#include "sim/simulator.h"

namespace squeeze {

Result<ExpectedStart> EstimateStart(const std::vector<SnapshotJob>& jobs, JobId target,
                                    const ClusterSpec& cluster, const Policy& policy) {
  const auto it = std::find_if(jobs.begin(), jobs.end(), [&](const SnapshotJob& j) {
    return j.spec.id == target;
  });
  if (it == jobs.end() || it->running) {
    return Status::Error("job " + std::to_string(target) + " is not waiting");
  }
  ExpectedStart out;
  Trace trace;
  trace.source = "queue snapshot";
  trace.format = "snapshot";
  // Running jobs at 0, waiting ones at 1 in queue order: the running keep their GPUs first.
  Time next_submit = 1;
  for (const SnapshotJob& j : jobs) {
    if (!j.spec.estimate) {
      // Every job ahead may matter; without an estimate nobody can say when it frees GPUs.
      if (j.running || j.spec.id != target) {
        out.missing_estimate = j.spec.id;
        return out;
      }
    }
    TraceJob t;
    t.spec = j.spec;
    t.spec.deadline.reset();  // deadlines reorder the queue; the snapshot's order stands
    if (j.running) {
      t.spec.submit_time = 0;
      t.duration = std::max<Time>(1, *j.spec.estimate - j.elapsed);
      t.spec.estimate = t.duration;
      t.spec.preemptible = false;  // what runs now is not displaced in the forecast
    } else {
      t.spec.submit_time = next_submit;
      t.duration = std::max<Time>(1, j.spec.estimate.value_or(1));
    }
    trace.jobs.push_back(std::move(t));
  }
  std::stable_sort(trace.jobs.begin(), trace.jobs.end(), [](const TraceJob& a, const TraceJob& b) {
    return a.spec.submit_time < b.spec.submit_time;
  });
  Policy forecast = policy;
  forecast.oracle_estimates = true;  // the estimates are all there is to know
  auto result = Simulate(trace, cluster, forecast, SimOptions{});
  if (!result.ok()) return result.status().WithContext("forecast");
  for (const JobRecord& r : result->jobs) {
    // Now is 0, when the running jobs' remaining time starts; a start at the waiting jobs'
    // submit (1) is a start now.
    if (r.id == target) out.in_s = r.first_start <= next_submit ? 0 : r.first_start;
  }
  return out;
}

}  // namespace squeeze
