// The discrete-event simulator: replays a trace through the scheduling core with a simulated
// clock. Deterministic: the same trace, cluster, policy and options give the same result.
// Every run checks the invariants (no GPU given twice, every job's service adds up to its
// duration plus the overheads charged, time never goes back); a violation ends it in error.
#ifndef SQUEEZE_SIM_SIMULATOR_H_
#define SQUEEZE_SIM_SIMULATOR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "core/decision.h"
#include "core/policy.h"
#include "core/status.h"
#include "sim/inference_load.h"
#include "sim/readers/reclaim_trace_reader.h"
#include "sim/trace.h"

namespace squeeze {

// Where a run stands, for progress reports.
struct SimProgress {
  double done = 0;      // share of the trace's jobs finished (1 at the end)
  Time now = 0;         // simulated time since the first submit
  size_t finished = 0;  // jobs finished
  size_t jobs = 0;      // jobs in the trace
  size_t waiting = 0;   // jobs submitted and not running (queued, or held back)
  size_t running = 0;
  bool end = false;     // the run is over (the last report)
};

struct SimOptions {
  uint64_t seed = 1;
  // Send every job to any pool (for replaying a trace on a cluster whose pools it does not name).
  bool ignore_trace_pools = false;
  // The inference load on the colocated pools' GPUs (sim/inference_load.h); null = none, and
  // colocated pools then take no training.
  const InferenceLoad* inference_load = nullptr;
  // Reclaims of spot nodes to replay (sim/readers/reclaim_trace_reader.h) instead of the
  // seeded process; null = the process, for the spot pools with a mean_reclaim_interval.
  const ReclaimTrace* reclaim_trace = nullptr;
  // Measure the pending demand blocked by fragmentation after each cycle that changed
  // something (SimResult::frag_blocked_gpu_s). Off: those figures are NaN (null in JSON) and
  // the run is faster; the decisions are the same either way (the meter only asks the node
  // order, which a query never changes).
  bool measure_fragmentation = true;
  // Called with every decision of every cycle, in order, with the cycle's time (tests compare
  // runs by them; null: not called).
  std::function<void(Time, const Decision&)> on_decision;
  // Called now and then (every few dozen events, whatever the wall time) and once at the end.
  std::function<void(const SimProgress&)> progress;
};

// What happened to one job.
struct JobRecord {
  JobId id = 0;
  int pool = -1;  // home pool index, -1 = any
  int gpus = 0;
  Time submit = 0;
  Time first_start = 0;
  Time end = 0;
  Time queue = 0;          // time spent waiting, summed over all waits
  Time duration = 0;       // true run time
  Urgency urgency = Urgency::kNormal;
  int preemptions = 0;
  double lost_gpu_s = 0;   // GPU-seconds held beyond its duration (overheads, lost work)
  bool deadline_missed = false;
  bool had_deadline = false;
  bool timed_out = false;  // stopped at its time limit before its work was done
  // Elastic jobs (gpus is then the reference width): resizes, and seconds run at each width.
  bool elastic = false;
  int resizes = 0;
  std::map<int, Time> time_at_width;
};

struct SimResult {
  std::string policy;
  std::vector<JobRecord> jobs;  // in completion order
  std::vector<std::string> rejected;  // jobs the scheduler refused, with the reason
  // Jobs that never ran because their dependencies could no longer hold (Slurm's
  // DependencyNeverSatisfied), in the order that was found.
  std::vector<JobId> dependency_never;
  // The most tasks of one array with a limit (%N) that ran at once (0: no such array).
  int most_array_running = 0;
  Time makespan = 0;
  double busy_gpu_s = 0;       // GPU-seconds held by jobs
  std::vector<double> pool_gpu_s;  // the same, by the pool whose GPUs were held (pool index)
  int total_gpus = 0;
  int64_t preemptions = 0;
  int64_t slice_yields = 0;
  int64_t borrowed_starts = 0;
  int64_t defrag_moves = 0;
  int64_t resizes = 0;            // elastic jobs stopped to restart at another width
  int64_t shrinks = 0;            // of them, to fewer GPUs
  int64_t widened_starts = 0;     // elastic jobs started wider than their minimum
  int64_t region_moves = 0;       // starts outside the job's home region
  double data_moved_gb = 0;       // copied between regions for them
  double data_transfer_cost = 0;  // at the region links' price per GB
  int64_t spot_starts = 0;        // runs started on spot pools
  int64_t spot_long_bridges = 0;  // of them, long jobs bridging their wait at home
  int64_t spot_long_every = 0;    // of them, long jobs checkpointing as the rule asks
  int64_t colocated_starts = 0;   // runs started on colocated (inference) GPUs
  int64_t reclaims = 0;           // spot nodes taken back
  int64_t inference_evictions = 0;  // runs asked to leave GPUs inference needed
  int64_t returned_home = 0;      // runs moved from spot or inference GPUs to the home pool
  int64_t hardware_moves = 0;     // runs moved to faster cards (the upgrade action)
  int64_t multi_node_starts = 0;  // with a topology: runs started on several nodes
  int64_t one_block_starts = 0;   // of them, inside one block (the narrowest level)
  // Times training still held a colocated GPU longer than the pool's evict_within after the
  // inference load rose past 1 - cap (0 when squeeze works as it should).
  int64_t inference_violations = 0;
  int64_t cycles = 0;
  // GPU-seconds of pending demand blocked by fragmentation (core/fragmentation_blocked.h),
  // measured after each cycle that changed something and held until the next event; in all
  // and by the blocked jobs' home pool (index; the last entry: jobs of any pool). NaN when
  // SimOptions::measure_fragmentation is off.
  double frag_blocked_gpu_s = 0;
  std::vector<double> frag_blocked_gpu_s_by_scope;
  double wall_s = 0;
};

Result<SimResult> Simulate(const Trace& trace, const ClusterSpec& cluster, const Policy& policy,
                           const SimOptions& options);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_SIMULATOR_H_
