// Recurring idle windows from GPU utilization samples. Samples are bucketed into the 168 hours
// of the UTC week; a GPU is idle in one hour of one week when its mean utilization there is below
// a threshold and samples cover enough of the hour. For each GPU, each node (every GPU idle) and
// each pool (every GPU of its nodes idle), the idle probability of an hour of the week is idle
// weeks / observed weeks, and a window is a maximal run of hours (wrapping Sunday -> Monday) whose
// probability reaches a bound. Pure: the caller passes samples and gets values; thread-safe.
#ifndef SQUEEZE_CORE_IDLE_IDLE_ANALYSIS_H_
#define SQUEEZE_CORE_IDLE_IDLE_ANALYSIS_H_

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/idle/gpu_sample.h"
#include "core/idle/hour_of_week.h"
#include "core/status.h"

namespace squeeze {

struct IdleOptions {
  double threshold = 0.1;     // idle: mean utilization in the hour below this (0..1)
  double min_coverage = 0.5;  // share of the hour the samples must cover to count (0..1]
  double probability = 0.8;   // a window's hours have at least this idle probability
  int min_weeks = 2;          // ... and at least this many observed weeks
  Time sample_period = 0;     // how long one sample stands for; 0 = the median gap of the input
};

// Per hour of the week: in how many weeks it was observed, and idle.
struct HourProfile {
  std::array<int, kHoursPerWeek> idle_weeks{};
  std::array<int, kHoursPerWeek> observed_weeks{};
  // idle / observed; 0 when never observed.
  double Probability(int hour) const;
};

// A maximal run of hours of the week; it may wrap from Sunday to Monday.
struct IdleWindow {
  int start_hour = 0;    // hour of the week, 0..167
  int length_hours = 0;  // 1..168
  int idle_weeks = 0;    // the fewest idle weeks over the window's hours
  int observed_weeks = 0;  // the most observed weeks over the window's hours
  bool operator==(const IdleWindow&) const = default;
};

struct GpuIdle {
  int gpu = 0;
  HourProfile profile;
  std::vector<IdleWindow> windows;
};

struct NodeIdle {
  std::string name;
  std::string pool;
  std::vector<GpuIdle> gpus;      // ordered by GPU index
  HourProfile profile;            // every GPU of the node idle
  std::vector<IdleWindow> windows;
};

struct PoolIdle {
  std::string name;
  std::vector<std::string> nodes;
  int gpu_count = 0;
  HourProfile profile;  // every GPU of the pool idle
  std::vector<IdleWindow> windows;
  std::array<double, kHoursPerWeek> mean_gpu_probability{};  // the mean over its GPUs
};

struct IdleAnalysis {
  IdleOptions options;
  Time first_sample = 0;
  Time last_sample = 0;
  Time sample_period = 0;  // as used
  int weeks = 0;           // calendar weeks the samples touch
  std::vector<NodeIdle> nodes;  // ordered by name
  std::vector<PoolIdle> pools;  // ordered by name
};

// Analyses `samples` (any order). `pool_of_node` names each node's pool; empty = every node in
// pool "all"; a sampled node it does not name is an error. Errors for bad options or no samples.
Result<IdleAnalysis> AnalyseIdle(const std::vector<GpuSample>& samples, const IdleOptions& options,
                                 const std::map<std::string, std::string>& pool_of_node = {});

// The windows of a profile under `options` (probability and min_weeks).
std::vector<IdleWindow> FindWindows(const HourProfile& profile, const IdleOptions& options);

// If `t` falls in one of `windows`, the time that window ends; nullopt otherwise.
std::optional<Time> IdleWindowEnd(const std::vector<IdleWindow>& windows, Time t);
// The same for the node-wide windows of node `node`; nullopt also when the node is unknown.
std::optional<Time> NodeIdleUntil(const IdleAnalysis& analysis, const std::string& node, Time t);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_IDLE_IDLE_ANALYSIS_H_
