// The scheduling core's entry point, shared by the simulator and the server. A driver tells
// it what happened (a job was submitted, finished, stopped, cancelled) with the time it
// happened, and asks it to run a cycle; the cycle returns decisions the driver carries out.
// Pure: no clock, I/O or randomness. Not thread-safe: one driver thread calls it.
#ifndef SQUEEZE_CORE_SCHEDULER_H_
#define SQUEEZE_CORE_SCHEDULER_H_

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/cluster_spec.h"
#include "core/decision.h"
#include "core/engine_state.h"
#include "core/cycle.h"
#include "core/fragmentation_blocked.h"
#include "core/job.h"
#include "core/policy.h"
#include "core/status.h"

namespace squeeze {

namespace testing {
class SchedulerPeer;
}  // namespace testing

class Scheduler {
 public:
  static Result<std::unique_ptr<Scheduler>> Create(const ClusterSpec& cluster,
                                                   const Policy& policy);
  // A copy of everything this scheduler knows (jobs, capacity, reservations, what its orders
  // learned): a forecast drives the copy forward and leaves this one as it is.
  std::unique_ptr<Scheduler> Clone() const {
    return std::unique_ptr<Scheduler>(new Scheduler(std::make_unique<EngineState>(*state_)));
  }

  // A live queue's rule (EngineState::job_speeds_count): a job's own gpu_speeds, a user's
  // claim, choose which cards it gets but count nothing toward its progress, expected end or
  // rank; those go at the cluster's speed of its cards. Call before the first job.
  void CountProgressAtClusterSpeeds() { state_->job_speeds_count = false; }
  // Queues a job. Fails, changing nothing, if the spec is invalid or no node could ever hold it.
  Status Submit(const JobSpec& spec, Time now);
  // The rule Submit applies, but for the id: whether the spec is valid and some node group the
  // job may use at home could ever hold it (what the API checks before it accepts a job, so
  // that no job accepted is refused by the cycle). The message does not name the job.
  Status CheckFeasible(const JobSpec& spec) const;
  // The nodes (by index, 1 = yes) a job may run on at home by the rule the cycle places it by:
  // its pool (or the firm pools for a job of none), regions, GPU models and GPU memory.
  std::vector<char> UsableNodes(const JobSpec& spec) const;
  // Runs the policy's actions once. The decisions are already applied to the scheduler's state.
  std::vector<Decision> Cycle(Time now);
  // Takes back a job that is already running on `placement` since `run_start` (after a
  // restart of the daemon, whose executor found it alive): it holds those GPUs and is
  // reported back through Finished or Stopped like any other. Errors: the spec is invalid,
  // the id is known, or the placement does not fit the free capacity.
  Status Adopt(const JobSpec& spec, const Placement& placement, Time run_start, Time now);
  // A running (or stopping) job exited by itself; returns its final record and forgets it.
  Result<Job> Finished(JobId id, Time now, bool success);
  // A job of an earlier life of the daemon ended done at `ended` after running `ran`: the
  // job order learns its run time as if it had just finished (a restart keeps what was
  // learned). Call in the order the jobs ended.
  void LearnEnded(const JobSpec& spec, Time ran, Time ended);
  // How much longer a running job is expected to run by what the job order learned (the
  // median of what jobs like it ran beyond what it has run), when the policy uses learned
  // estimates; nullopt otherwise, or when it knows too little.
  std::optional<Time> LearnedRemaining(const Job& job, Time now) const;
  // A job asked to stop has stopped (after its checkpoint); it waits again.
  Status Stopped(JobId id, Time now);
  // A run ended without finishing its job, and the job is to run again: the backend lost it
  // (a node failed, Slurm requeued it), it failed and is retried, or it was stopping when the
  // driver restarted. The job waits again with its history kept (attained service, starts,
  // preemptions, queue time so far); its work is what its last complete checkpoint of this
  // run saved (Checkpointed), else what it had before the run. The learned orders learn
  // nothing from it (only Finished with success teaches them). With `back_at` later than
  // `now` it stays out of the queue until then (a retry's back-off). An unknown or waiting
  // job is an error.
  Status Requeue(JobId id, Time now, Time back_at = 0);
  // The driver saw a complete checkpoint of a running job (the live queue's marker). From the
  // first call on, victim choice prefers, among equally costly victims, the job with the
  // least work since its last checkpoint. An unknown or waiting job is an error.
  Status Checkpointed(JobId id, Time now);
  // The driver saw a running job's GPUs stay nearly idle for long (held but idle), or busy
  // again. With Policy::held_idle_yields the job ranks one urgency class lower while so. An
  // unknown or waiting job is an error.
  Status SetHeldIdle(JobId id, bool held_idle);
  // A run just started whose process the backend starts later (a Slurm batch launch comes
  // seconds after the start decision, tens of seconds on a busy controller): until Launched,
  // its slice does not end. An unknown or waiting job is an error.
  Status AwaitLaunch(JobId id);
  // The backend started the current run's process at `now`: its slice and minimum runtime
  // count from now. Its expected end and work still count from the start decision (the run
  // held its GPUs meanwhile; backfill's reservations stay where they were). Once per run
  // (AwaitLaunch); otherwise nothing changes. An unknown job is an error.
  Status Launched(JobId id, Time now);
  // A job's time limit changed (squeeze update): what backfill counts on from now.
  Status SetTimeLimit(JobId id, std::optional<Time> limit);
  // Removes a job; a running one releases its GPUs at once (the driver kills it).
  Result<Job> Cancel(JobId id, Time now);
  // The earliest time a cycle has something to do although no event came (a slice ends, a
  // deadline becomes at risk); kNever if none.
  Time NextWakeup() const;
  // The pending jobs fragmentation blocks now and their demand, as the caller's meter
  // measures them (core/fragmentation_blocked.h); valid until the meter measures again.
  const FragmentationBlocked& BlockedByFragmentation(Time now, FragmentationMeter& meter) const;

  // The reservations that the waiting jobs ahead of `id` in the queue would be given now (as
  // backfilling gives them: where and from when a blocked job expects to start), at most
  // `max`, in queue order: for explaining why `id` waits.
  std::vector<Reservation> ReservationsAhead(JobId id, Time now, size_t max) const;

  // A node that may take no new work (down or drained in its backend, or its controller out
  // of reach) or may again. Its free GPUs are held while it is unavailable, and so are those
  // its jobs free later; the jobs on it keep running until the driver reports them ended.
  // An unknown node is an error.
  Status SetNodeAvailable(int node, bool available);
  bool NodeAvailable(int node) const { return !state_->unavailable.count(node); }
  // Whether the driver reported the node unavailable (SetNodeAvailable false, or Reclaimed and
  // not Returned); unlike NodeAvailable, a node banned by the scheduler itself is not.
  bool NodeReportedDown(int node) const { return state_->reported_down.count(node) > 0; }

  // Capacity that can be taken away (core/capacity_events.cc).
  // A node's provider takes it back (a spot reclaim) at now + warning: it takes no new work,
  // and the jobs on it are asked, by the next cycle, to checkpoint and leave by then (those
  // whose checkpoint cannot end in time lose the work since their last periodic one). Counts
  // toward the learned time between reclaims of its pool; a node taken too often (policy
  // spot_flaky_*) is not used again for a while.
  // `stop_jobs` false: the backend lost the node's runs itself (a Slurm node taken away) and
  // reports them ended; only the node and the learning change.
  Status Reclaimed(int node, Time now, Time warning, bool stop_jobs = true);
  // A reclaimed (or down) node is back in service.
  Status Returned(int node, Time now);
  // The share of one GPU of a colocated pool that inference uses now (0..1). Above 1 - the
  // pool's cap the GPU takes no training and the training on it leaves within the pool's
  // evict_within; at or below it the GPU is open again. Colocated GPUs start closed (their
  // load unknown) until their first report.
  Status SetInferenceLoad(int node, int gpu, double load, Time now);
  // The mean time between the pool's capacity being taken away, as learned, for one node (spot)
  // or one GPU (colocated), per GPU model when `model` is given and has been taken from before:
  // (seconds in service + the configured mean) / (times taken + 1), in seconds; 0 for other
  // pools.
  double MeanTimeBetweenTakes(int pool, const std::string& model, Time now) const;
  // The inference load last reported for a GPU of a colocated pool (-1: none yet).
  double InferenceLoad(int node, int gpu) const;
  // How long colocated GPU `gpu` of `node`, open now, is predicted to stay open
  // (core/idle_forecast.h); nullopt without two weeks of its load or when it is closed.
  std::optional<Time> PredictedIdleWindow(int node, int gpu, Time now) const;

  // A waiting job's prospects in other regions, in words (actions.h RegionOutlook); empty for
  // a job that does not wait.
  std::vector<std::string> RegionOutlook(JobId id, Time now) const;
  // A waiting job's cards when there are several kinds (core/card_outlook.h), in words.
  std::vector<std::string> CardOutlook(JobId id, Time now) const;

  const Job* Find(JobId id) const;
  const ClusterState& cluster() const { return state_->cluster; }
  const Policy& policy() const { return state_->policy; }
  const SchedulerCounters& counters() const { return state_->counters; }
  size_t PendingCount() const { return state_->pending.size(); }
  size_t JobCount() const { return state_->jobs.size(); }
  // The engine state is the scheduler's own; these read it.
  // Every job it knows (waiting or active), in no particular order.
  void ForEachJob(const std::function<void(const Job&)>& visit) const;
  // Waiting tasks of arrays at their limit, out of the queue until a task of theirs ends.
  void ForEachParked(const std::function<void(const Job&)>& visit) const;
  // The waiting jobs in the order the cycle tries them, until `visit` returns false.
  void ForEachWaiting(const std::function<bool(const Job&)>& visit) const;
  // How many jobs wait ahead of waiting job `id` in the queue's order (all waiting jobs when
  // it is not waiting), with the first `show` of them in `first`.
  size_t WaitingAhead(JobId id, size_t show, std::vector<JobId>* first) const;
  // GPUs `team` holds in pool `pool` (what its quota there counts).
  int TeamPoolGpus(int pool, const std::string& team) const;
  // The active jobs on a node, in the order they came.
  const std::vector<JobId>& JobsOnNode(int node) const { return state_->node_jobs.at(node); }
  // Whether inference needs GPU `gpu` of colocated node `node` now (it takes no training).
  bool GpuClosed(int node, int gpu) const;

  // What a backend that runs nodes of its own says (core/backend_sync.cc).
  // The GPUs of `node` that work squeeze does not run holds (bit per GPU; 0 = none): they take
  // no job of squeeze's until that work leaves them. A GPU a job of squeeze's holds too is held
  // once that job leaves it; squeeze's jobs are never stopped for it.
  Status SetForeignGpus(int node, uint64_t gpus);
  uint64_t ForeignGpus(int node) const;
  // Running jobs that the backend runs elsewhere than the scheduler placed them (other nodes, or
  // other GPUs of them): each takes its new placement (the same number of GPUs), all at once,
  // so that jobs may swap GPUs. Other jobs that held those GPUs in the scheduler's view (a start
  // the backend has not begun, whose GPUs it will pick itself) take as many others on the same
  // node: their ids are returned. An error, changing nothing, when a job is not running, the
  // GPU count differs, or the GPUs do not add up once all have left theirs.
  Result<std::vector<JobId>> Relocate(const std::vector<std::pair<JobId, Placement>>& moves);
  // What an elastic job reports of its throughput at the width it runs at (samples or steps
  // per second, the same unit each time): from then on its speed at each width is judged by
  // what it reported (core/elastic.h ElasticSpeed); its current run's speed stays as it was.
  // An unknown or waiting job, a job that is not elastic, or a rate that is not positive is an
  // error.
  Status ReportRate(JobId id, double rate);
  // How many running jobs are checkpointing to make room for waiting job `id`.
  int StopsAwaited(JobId id) const;

 private:
  friend class testing::SchedulerPeer;
  explicit Scheduler(std::unique_ptr<EngineState> state) : state_(std::move(state)) {}
  Status Validate(const JobSpec& spec) const;
  // CheckFeasible for an elastic job: its range and scaling, and its minimum width as its
  // GPUs (scheduler_elastic.cc).
  Status CheckElasticFeasible(const JobSpec& spec) const;
  std::string OpportunisticNote(const JobSpec& spec) const;
  // Queues a job that arrived, or parks it when its array has its limit of tasks admitted.
  void Admit(Job& job, Time now);
  // A task that leaves for good frees its array's place: the first parked task is queued.
  void LeaveArray(const Job& job, Time now);
  void Enqueue(Job& job, Time now);
  // Takes every waiting job's key anew (the job order learned something).
  void Rekey(Time now);
  void PromoteBoosted(Time now);
  void QueueBackedOff(Time now);
  void Dequeue(Job& job);
  void Unhold(Job& job, Time now);
  void ClearRun(Job& job, Time now);
  void LiftBans(Time now);

  std::unique_ptr<EngineState> state_;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_SCHEDULER_H_
