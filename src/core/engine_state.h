// Everything the scheduler knows between cycles: the jobs, the free capacity and the indexes
// the actions use. Owned by one Scheduler; not thread-safe.
#ifndef SQUEEZE_CORE_ENGINE_STATE_H_
#define SQUEEZE_CORE_ENGINE_STATE_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/clone_ptr.h"
#include "core/cluster_state.h"
#include "core/job.h"
#include "core/job_shape.h"
#include "core/pending_queue.h"
#include "core/plugins/job_order.h"
#include "core/plugins/node_order.h"
#include "core/policy.h"

namespace squeeze {

struct SchedulerCounters {
  int64_t submitted = 0;
  int64_t starts = 0;
  int64_t preemptions = 0;      // stops asked by preempt and reclaim
  int64_t slice_yields = 0;     // stops at a slice end
  int64_t borrowed_starts = 0;
  int64_t defrag_moves = 0;     // jobs stopped by defrag to restart on other nodes
  int64_t resizes = 0;          // elastic jobs stopped to restart at another width
  int64_t shrinks = 0;          // of them, to fewer GPUs
  int64_t widened_starts = 0;   // elastic jobs started wider than their minimum
  int64_t region_moves = 0;     // starts in another region than the job's home
  double data_moved_gb = 0;     // copied between regions for those starts
  double data_transfer_cost = 0;  // what the copies cost, by the links' price per GB
  int64_t spot_starts = 0;      // starts on spot pools
  int64_t spot_long_bridges = 0;  // of them, long jobs bridging their wait at home
  int64_t spot_long_every = 0;    // of them, long jobs asked to checkpoint every spot_long_job_checkpoint
  int64_t colocated_starts = 0;  // starts on colocated pools' GPUs
  int64_t reclaims = 0;         // spot nodes taken back
  int64_t inference_evictions = 0;  // jobs asked to leave GPUs inference needed
  int64_t returned_home = 0;    // jobs moved from spot or colocated GPUs to their home pool
  int64_t hardware_moves = 0;   // jobs moved to faster cards (the upgrade action)
  // With a topology: runs started on several nodes, and of them those inside one domain of
  // the narrowest level (a block).
  int64_t multi_node_starts = 0;
  int64_t one_block_starts = 0;
  int64_t cycles = 0;
};

struct EngineState {
  EngineState(const ClusterSpec& spec, Policy p);

  Policy policy;
  ClonePtr<JobOrder> job_order;    // copied with the state (Scheduler::Clone)
  ClonePtr<NodeOrder> node_order;
  ClusterState cluster;
  std::vector<std::string> regions;  // every pool's region, once each, in pool order
  std::vector<int> pool_region;      // pool -> index into `regions`
  std::unordered_map<JobId, Job> jobs;  // pending and active jobs only
  PendingQueue pending;
  JobShapes shapes;  // of the jobs queued so far (QueuePosition::shape)
  std::set<std::pair<Time, JobId>> slice_ends;      // running, sliced
  std::set<std::pair<Time, JobId>> estimated_ends;  // running, with an estimate or a limit
  std::set<std::pair<Time, JobId>> boost_watch;  // pending, not yet boosted
  std::set<std::pair<Time, JobId>> back_watch;   // requeued, out of the queue until then
  // Job arrays with a limit on tasks at once (JobSpec::array_limit), by array id: how many of
  // its tasks are admitted (queued, backed off or active; never more than the limit once
  // adopted runs have ended) and those parked out of the queue until one of them ends, by
  // (task, id).
  struct ArrayTasks {
    int admitted = 0;
    std::set<std::pair<int, JobId>> parked;
  };
  std::map<JobId, ArrayTasks> arrays;
  std::vector<std::vector<JobId>> node_jobs;        // active jobs on each node
  std::map<std::string, int64_t> team_running_milli;
  std::map<std::pair<int, std::string>, int> team_pool_gpus;  // (pool, team) GPUs held
  std::map<JobId, int> awaiting_stops;  // job -> victims still checkpointing for it
  std::map<JobId, JobId> stop_for;      // victim -> the job it makes room for
  // Jobs whose victims have all stopped: the next allocate tries them first, so that the room
  // made for them is theirs (not taken by a job ahead of them in order, such as the borrower
  // that was just reclaimed, nor left idle behind a blocked head).
  std::set<JobId> claims;
  int elastic_jobs = 0;  // elastic jobs known (waiting or active): the shrink and grow actions
  // Moves in flight (defrag, return_home, and the resizes of elastic jobs): a job asked to stop
  // so that it restarts on `to`. `held` is the part of `to` taken in `cluster` (and nowhere
  // else) for it: all of `to` for a move; for a resize, what the job did not hold already until
  // it has stopped, then all of it, until the job restarts there.
  struct Move {
    Placement to;
    bool borrowed = false;
    Placement held;
    bool resize = false;
  };
  std::map<JobId, Move> moves;
  // Pipelined placements (Volcano's Pipeline): a waiting job whose victims are stopping for it
  // starts on `to` once they all have. `held` is the part of `to` taken in `cluster` for it so
  // far: what was free when its victims were chosen, then what each victim freed as it stopped,
  // so that no other job takes the room made for it in between.
  struct Pipelined {
    Placement to;
    bool borrowed = false;
    Placement held;
  };
  std::map<JobId, Pipelined> pipelined;
  // Nodes a blocked job will start on once the jobs moved off them have stopped: no other job
  // may take their free GPUs meanwhile (job -> nodes).
  std::map<JobId, std::vector<int>> defrag_holds;
  std::vector<int> running_preemptible_by_band;
  // The driver reports complete checkpoints (Scheduler::Checkpointed): among victims that would
  // lose as much, the one with the least work since its last checkpoint is stopped first.
  bool checkpoints_reported = false;
  // Nodes that take no new work (down, drained, or their controller unreachable) and the free
  // capacity held on each so that no placement finds it; jobs already there keep theirs.
  std::map<int, Placement> unavailable;
  // GPUs of colocated pools that inference needs now (node -> bit per GPU) and the free
  // capacity held on them, as for unavailable nodes but GPU by GPU.
  std::map<int, uint64_t> closed_gpus;
  // GPUs that work squeeze does not run holds (a Slurm job someone else submitted), node -> bit
  // per GPU: held like closed GPUs (in closed_hold), without stopping squeeze's jobs.
  std::map<int, uint64_t> foreign_gpus;
  std::map<int, Placement> closed_hold;
  // Running jobs whose GPUs are being taken away, to be stopped by the next cycle: why.
  std::map<JobId, std::string> withdrawn;
  // What the scheduler has seen of reclaims (spot) and evictions (colocated) by pool and by
  // pool and GPU model: node-seconds in service and how often the capacity was taken.
  struct TakeStats {
    double exposure_s = 0;  // closed periods: units (nodes or GPUs) x seconds in service
    int64_t taken = 0;
    int64_t in_service = 0;     // units in service now
    double in_service_since_sum = 0;  // sum of their since times, in seconds (ToSeconds)
    // Units x seconds in service up to `now`.
    double ExposureAt(Time now) const {
      return exposure_s + static_cast<double>(in_service) * ToSeconds(now) -
             in_service_since_sum;
    }
  };
  std::vector<TakeStats> pool_takes;
  std::map<std::pair<int, std::string>, TakeStats> model_takes;
  // Spot nodes, or colocated GPUs (node * 64 + gpu), in service since when (absent: not).
  std::map<int64_t, Time> in_service_since;
  bool takes_started = false;  // the units were put in service at the first cycle
  std::map<std::pair<int, int>, double> inference_load;  // (node, gpu) -> last reported
  // Colocated GPUs (node * 64 + gpu): when their load was first known, and their closed
  // periods open to training, oldest first (the last kIdleHistoryWeeks; core/idle_forecast.h).
  std::map<int64_t, Time> load_known_since;
  std::map<int64_t, std::vector<std::pair<Time, Time>>> open_history;
  std::map<int, std::vector<Time>> recent_takes;  // node -> its reclaims in the flaky window
  std::map<int, Time> banned_until;      // nodes not used again until then (reclaimed often)
  std::set<int> reported_down;  // nodes the driver reported unavailable (or reclaimed)
  // Whether a job's own speeds (JobSpec::gpu_speeds) count toward its progress: true in the
  // simulator, where they are the truth; false in the live queue, where they are a user's
  // claim and choose its cards only: its progress, expected end and the order's view of it
  // go at the cluster's speed of the cards (Scheduler::CountProgressAtClusterSpeeds).
  bool job_speeds_count = true;
  SchedulerCounters counters;
};

// The bit of `job`'s home region in Job::data_regions (0 without a home pool, or past 64 regions).
uint64_t HomeRegionBit(const EngineState& s, const Job& job);
int BaseBand(const Policy& policy, const Job& job);
// Adds a job that just started running to the running-job indexes, and removes it.
void IndexRunning(EngineState& s, const Job& job);
void UnindexRunning(EngineState& s, const Job& job);
// Accounts for the GPUs of a job that holds them (running or checkpointing), and releases them.
void HoldCapacity(EngineState& s, const Job& job);
void ReleaseCapacity(EngineState& s, const Job& job);
// What ReleaseCapacity does but for the capacity itself: the job leaves its nodes' job lists
// (its last entry on each) and its team's counts.
void UncountHold(EngineState& s, const Job& job);
// Gives back capacity (a job's, a move's destination); what lands on an unavailable node is
// held again at once.
void ReleasePlacement(EngineState& s, const Placement& placement);
// Holds every free GPU (and CPU and memory) of an unavailable node.
void HoldUnavailable(EngineState& s, int node);
// Holds the free capacity of a node's GPUs that inference needs (closed_gpus) or others use
// (foreign_gpus).
void HoldClosed(EngineState& s, int node);
// The GPUs of a node held that way: closed_gpus | foreign_gpus.
uint64_t HeldGpuMask(const EngineState& s, int node);
// Whether a pool's capacity may be taken away (kind spot or colocated): only the spot and
// colocate actions place jobs there, unless a job names the pool as its home.
bool Opportunistic(const EngineState& s, int pool);
// Starts counting the spot nodes' and open colocated GPUs' time in service (once, at the
// first time the scheduler is given).
void StartServiceClocks(EngineState& s, Time now);
// The learned mean time between takes of one unit of a pool (Scheduler::MeanTimeBetweenTakes),
// in seconds.
double MeanTimeBetweenTakes(const EngineState& s, int pool, const std::string& model, Time now);
// The same for a placement on the pool: a take of any of its nodes (spot) or GPUs (colocated)
// interrupts it, so the learned mean is divided by how many it spans. In seconds (as
// core/spot_math.h takes it).
double PlacementTimeBetweenTakes(const EngineState& s, int pool, const Placement& placement,
                                 Time now);
// A colocated GPU's key in in_service_since, load_known_since and open_history.
inline int64_t ColocatedGpuKey(int node, int gpu) { return int64_t{node} * 64 + gpu; }
// Makes a node unavailable (its free capacity held) when the driver reported it down or it is
// banned, and available again when neither holds.
void RefreshAvailability(EngineState& s, int node);
// Forgets a move in flight (the job finished or was cancelled) and frees its destination.
void DropMove(EngineState& s, JobId id);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_ENGINE_STATE_H_
