// What the dashboard's history shows, computed from the store: the runs of jobs (from their
// submit, start, exit and end events), and from them and the GPU samples the queueing delay,
// GPUs busy and utilization per step, the GPU-hours and cost per pool, and the recurring idle
// windows. Pure functions of their inputs; thread-safe.
#ifndef SQUEEZE_SERVE_HISTORY_VIEWS_H_
#define SQUEEZE_SERVE_HISTORY_VIEWS_H_

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/idle/gpu_sample.h"
#include "core/idle/idle_analysis.h"
#include "core/status.h"
#include "store/stored_job.h"

namespace squeeze {

// One run of a job.
struct RunSpan {
  JobId job = 0;
  Time start = 0;
  Time end = 0;      // `now` for a run still going
  int gpus = 0;
  std::string pool;  // "" when the start event does not name it (a store written by an older squeeze)
  Time waited = 0;   // since the job was submitted or its previous run ended
  bool operator==(const RunSpan&) const = default;
};

// The runs in `events` (store order, as JobStore::RunEvents gives them). A run ends at the
// first exit or end event after its start; one with neither ends at `now`.
std::vector<RunSpan> RunSpansFromEvents(const std::vector<JobEvent>& events, Time now);

struct HistoryRange {
  Time from = 0;
  Time to = 0;
  Time step = kHour;
};

constexpr int kMaxHistoryPoints = 2000;

// The query's `since`: a positive duration back from now (default `default_since`). Errors name
// the field and the value.
Result<Time> ParseSince(const std::map<std::string, std::string>& query, Time default_since);
// [now + 1s - since, now + 1s) as one step: the range of a view that is not drawn over time (the cost,
// the idle windows).
HistoryRange RangeSince(Time now, Time since);

// From the query's `since` (a duration back from now, default `default_since`) and `step`
// (default 1h, at least 1 minute, at most kMaxHistoryPoints steps). `from` is rounded down to
// a whole step; `to` is now + 1s (the range is [from, to), so the current second counts).
// Errors name the field and the value.
Result<HistoryRange> ParseHistoryRange(const std::map<std::string, std::string>& query, Time now,
                                       Time default_since);

// {"from", "to", "step_s", "points": [{"time", "jobs_started", "mean_wait_s", "gpus",
// "gpus_busy", "utilization"}]}: runs started in each step and their mean wait (null when
// none), the mean GPUs running jobs over the step, and the mean sampled utilization in percent
// (null without samples).
nlohmann::json HistoryJson(const std::vector<RunSpan>& runs, const std::vector<GpuSample>& samples,
                           const HistoryRange& range, int total_gpus);

struct PoolPrice {
  std::string name;
  std::string kind;
  double price_per_gpu_hour = 0;  // the region's factor applied
  double monthly_cost = 0;
};

// {"from", "to", "pools": [{"pool", "kind", "price_per_gpu_hour", "gpu_hours", "cost"}],
// "total_cost"}: each pool's GPU-hours of runs within the range times its price, plus its
// monthly cost prorated over the range. Runs in a pool not in `pools` (renamed since) are
// listed with kind "unknown" and price 0.
nlohmann::json CostJson(const std::vector<RunSpan>& runs, const std::vector<PoolPrice>& pools,
                        const HistoryRange& range);

// {"from", "to", "threshold", "weeks", "gpus": [{"node", "index", "pool", "idle_share": [168
// values, null where the hour was never observed]}], "windows": [{"text"}], "windows_zone"}.
// `east_minutes`: the zone the windows' texts are in, minutes east of UTC (whole hours of it).
nlohmann::json IdleWindowsJson(const IdleAnalysis& analysis, Time from, Time to,
                               int east_minutes = 0);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_HISTORY_VIEWS_H_
