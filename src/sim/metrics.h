// Summary figures of a simulation: queueing delay, JCT, slowdown, utilization, preemptions,
// lost work, waiting blocked by fragmentation, per pool.
#ifndef SQUEEZE_SIM_METRICS_H_
#define SQUEEZE_SIM_METRICS_H_

#include <map>
#include <string>

#include "core/cluster_spec.h"
#include "sim/simulator.h"

namespace squeeze {

struct PoolSummary {
  int64_t jobs = 0;
  double avg_queue_s = 0;
  double avg_jct_s = 0;
  double frag_blocked_gpu_hours = 0;  // demand of this pool's jobs blocked by fragmentation
};

// What a pool's GPUs were used for and what that cost: price_per_gpu_hour × the GPU-hours held
// (whichever pool's jobs held them), plus its monthly_cost for the time the run covers.
struct PoolUse {
  double gpu_hours = 0;
  double usage_cost = 0;  // gpu_hours × price_per_gpu_hour
  double fixed_cost = 0;  // monthly_cost prorated over the makespan (30-day months)
  double cost = 0;        // the two together
};

// Jobs of one range of true run time: how long they waited and took.
struct LengthClass {
  std::string name;  // "<1h", "1h-12h", ">=12h"
  int64_t jobs = 0;
  double avg_queue_s = 0;
  double avg_jct_s = 0;
  double lost_gpu_hours = 0;
};

struct Summary {
  std::string policy;
  int64_t jobs = 0;
  double avg_queue_s = 0;
  double p50_queue_s = 0;
  double p95_queue_s = 0;
  double p99_queue_s = 0;
  double avg_jct_s = 0;
  double avg_bounded_slowdown = 0;  // max(1, JCT / max(duration, 10 s))
  double gpu_utilization = 0;       // GPU-seconds held / (GPUs x makespan)
  int64_t preemptions = 0;          // stops of all kinds (preempt, reclaim, slice yields)
  int64_t slice_yields = 0;
  int64_t borrowed_starts = 0;
  int64_t defrag_moves = 0;         // jobs moved to consolidate free GPUs (not in preemptions)
  // Elastic jobs finished, their resizes (not in preemptions) and starts wider than their
  // minimum, and the GPU-hours they held at each width.
  int64_t elastic_jobs = 0;
  int64_t resizes = 0;
  int64_t shrinks = 0;
  int64_t widened_starts = 0;
  std::map<int, double> elastic_gpu_hours_by_width;
  int64_t region_moves = 0;         // starts in another region than the job's home
  double data_moved_gb = 0;         // copied between regions for those starts
  double data_transfer_cost = 0;    // what the copies cost (region links' price per GB)
  int64_t spot_starts = 0;          // runs started on spot pools
  int64_t spot_long_bridges = 0;    // of them, long jobs bridging their wait at home
  int64_t spot_long_every = 0;      // of them, long jobs checkpointing as the rule asks
  int64_t colocated_starts = 0;     // runs started on colocated (inference) GPUs
  int64_t reclaims = 0;             // spot nodes taken back
  int64_t inference_evictions = 0;  // runs asked to leave GPUs inference needed
  int64_t returned_home = 0;        // runs moved from spot or inference GPUs to the home pool
  int64_t hardware_moves = 0;       // runs moved to faster cards (the upgrade action)
  int64_t multi_node_starts = 0;    // with a topology: runs started on several nodes
  int64_t one_block_starts = 0;     // of them, inside one block (the narrowest level)
  int64_t inference_violations = 0;  // evictions that overran the pool's evict_within
  double lost_gpu_hours = 0;        // held beyond the jobs' durations
  int64_t timed_out = 0;            // jobs stopped at their time limit (JobSpec::time_limit)
  // By true run time: under 1 h, 1 h to 12 h, 12 h and more.
  std::vector<LengthClass> by_length;
  // By urgency class, most urgent first ("critical", "high", "normal", "low"), the classes
  // with jobs only (lost_gpu_hours as in by_length).
  std::vector<LengthClass> by_urgency;
  // GPU-hours of pending demand that the free GPUs could have held had they not been
  // scattered (core/fragmentation_blocked.h has the definition).
  double frag_blocked_gpu_hours = 0;
  int64_t makespan_s = 0;
  int64_t deadlines = 0;
  int64_t deadline_misses = 0;
  int64_t rejected = 0;
  int64_t dependency_never = 0;    // never ran: their dependencies could no longer hold
  int64_t most_array_running = 0;  // the most tasks of one limited array running at once
  double wall_s = 0;
  std::map<std::string, PoolSummary> per_pool;  // by home pool name ("*" = any pool)
  std::map<std::string, PoolUse> pool_use;      // by the pool whose GPUs were held
  double cost = 0;                              // the sum of pool_use's costs
};

Summary Summarize(const SimResult& result, const ClusterSpec& cluster);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_METRICS_H_
