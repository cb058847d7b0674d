// The published views of `squeeze serve` (issue 35: the daemon's parts): what the API's reads
// (the queue's gauges, nodes, pools, held-idle jobs, wait reasons, `why`) answer from, so that
// a read never takes the scheduling lock. The scheduling state builds a ReadView under its lock
// at the end of each step and API change (LiveQueue::Publish) and hands it here; a read takes
// the latest, a shared pointer that stays valid however many publications follow.
// Thread-safe. Its lock is the last one taken: nothing is taken while it is held.
#ifndef SQUEEZE_SERVE_PUBLISHED_VIEWS_H_
#define SQUEEZE_SERVE_PUBLISHED_VIEWS_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/scheduler.h"
#include "core/thread_annotations.h"
#include "exec/executor.h"
#include "serve/why_forecasts.h"

namespace squeeze {

// Figures for /metrics, as of the last step.
struct LiveCounters {
  int64_t starts = 0;
  int64_t preemptions = 0;   // stops the scheduler asked for, other than slice ends
  int64_t slice_ends = 0;
  int64_t resizes = 0;  // elastic jobs stopped to restart at another width
  int64_t checkpoints = 0;
  int64_t retries = 0;
  int64_t failures = 0;      // failed runs
  int64_t finished_done = 0;
  int64_t finished_failed = 0;
  int64_t cancelled = 0;
  int64_t timed_out = 0;     // stopped at their time limit
  int64_t lost = 0;          // runs a backend lost (node failure, Slurm's requeue), queued again
  std::vector<uint64_t> wait_counts;  // histogram of queue waits at each start (kWaitBounds)
  double wait_sum = 0;                // seconds (ToSeconds of each wait), as Prometheus wants
};
// Upper bounds of the wait buckets, in seconds (not Time): compare ToSeconds(wait) with them.
extern const std::vector<double> kWaitBounds;

// The queue's gauges for /metrics and `squeeze status`.
struct QueueGauges {
  std::map<std::string, int64_t> pending_by_urgency;
  std::map<std::string, int64_t> running_by_urgency;
  int gpus_total = 0;
  int64_t gpu_milli_allocated = 0;
  int gpus_idle = 0;  // no job on them at all
  bool virtual_gpus = false;
  LiveCounters counters;
  int64_t reclaims = 0;             // spot nodes taken back (API notices, Slurm)
  int64_t inference_evictions = 0;  // runs asked to leave GPUs inference needed
  int held_idle_jobs = 0;           // running jobs whose GPUs are nearly unused for long
  struct Backend {
    std::string pool;
    bool reachable = true;
    int unknown_jobs = 0;
    int nodes_unavailable = 0;
  };
  std::vector<Backend> backends;  // one per pool whose executor reports (Slurm pools)
};

// What `why` reads: a copy of the scheduler and what the queue knows of its active jobs and
// those in a back-off. Made at a publication while whys are asked (PublishedViews::WantsWhy).
struct WhyView {
  SchedulerState state;
  struct JobInfo {
    std::string owner;
    std::optional<Time> retry_at;
    std::string placed_because;
    Executor* exec = nullptr;
    int attempts = 0;  // 0 with a retry_at: its begin time, not a back-off
    std::string dependency;  // what it waits for, when it waits on its dependencies
    // The clauses it still waits on (DependencyGraph::Awaited), and whether one is enough.
    std::vector<std::pair<DependencyKind, std::vector<JobId>>> awaited;
    bool awaited_any = false;
  };
  std::map<JobId, JobInfo> jobs;
  std::map<int, std::string> node_down;
};

// One publication.
struct ReadView {
  uint64_t generation = 0;  // PublishedViews::NextGeneration when it was built
  nlohmann::json nodes, pools, held_idle;
  QueueGauges gauges;
  std::shared_ptr<const WhyView> why;  // of this generation, or of an earlier one
  std::unordered_map<JobId, std::string_view> reasons;  // waiting jobs' REASON codes
};

class PublishedViews {
 public:
  // The number of the publication about to be built: the state a forecast was made of is
  // numbered by it. Called by the one publisher (under its lock), before it builds the view.
  uint64_t NextGeneration() { return ++generation_; }
  // Whether the publication being built should carry a WhyView: for kWhyInterestPublications
  // publications after a why was asked (AskedWhy), so that a burst of whys shares copies.
  bool WantsWhy();
  void AskedWhy() { why_interest_ = kWhyInterestPublications; }
  // Makes `view` the latest; a view without a WhyView keeps the one of the latest before it.
  void Publish(std::shared_ptr<ReadView> view) EXCLUDES(mu_);
  // The latest publication; null before the first.
  std::shared_ptr<const ReadView> Latest() const EXCLUDES(mu_);

  static constexpr int kWhyInterestPublications = 120;

 private:
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> why_interest_{0};
  mutable Mutex mu_;
  std::shared_ptr<const ReadView> latest_ GUARDED_BY(mu_);
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_PUBLISHED_VIEWS_H_
