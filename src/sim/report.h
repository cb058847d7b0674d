// Reports of simulations: a side-by-side table for people, JSON for scripts, and an SVG plot
// of each policy's queueing-delay CDF.
#ifndef SQUEEZE_SIM_REPORT_H_
#define SQUEEZE_SIM_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/metrics.h"
#include "sim/simulator.h"

namespace squeeze {

struct PolicyRun {
  SimResult result;
  Summary summary;
};

// One row per policy; then, when there are several pools, mean queue and JCT per pool. Times
// as ShortDuration writes them, or in whole seconds (`in_seconds`, simulate --seconds).
std::string FormatTable(const std::vector<PolicyRun>& runs, bool in_seconds = false);
// A duration for a table: "0s", "3.8s", "45s", "24m57s", "4h36m", "1d23h" (two units at most,
// the smaller rounded); "-" for NaN.
std::string ShortDuration(double seconds);
// {"jobs": N, "trace": ..., "cluster": ..., "results": [...]} as docs/simulate.md describes.
std::string FormatJson(const std::vector<PolicyRun>& runs, const std::string& trace,
                       const std::string& cluster);
// One variant of a scenario (docs/simulate.md, "Scenarios"): its runs on its cluster.
struct VariantRuns {
  std::string name;
  std::string cluster;         // the cluster file
  int64_t gpus = 0;            // the cluster's GPUs
  std::string inference_load;  // the file; "" = none
  std::vector<PolicyRun> runs;
};

// {"scenario": NAME, "trace": ..., "variants": [{"name", "cluster", "gpus", "inference_load",
// "results": [the objects FormatJson writes]}]}.
std::string FormatScenarioJson(const std::string& scenario, const std::string& trace,
                               const std::vector<VariantRuns>& variants);
// One row per job and policy: policy,job_id,pool,gpus,submit_time_s,start_time_s,end_time_s,
// queue_s,jct_s,duration_s,preemptions (comparable with the Helios per-job reference files).
std::string FormatJobsCsv(const std::vector<PolicyRun>& runs, const ClusterSpec& cluster);
// The empirical CDF of queueing delay per policy (log time axis).
std::string QueueCdfSvg(const std::vector<PolicyRun>& runs, const std::string& title);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_REPORT_H_
