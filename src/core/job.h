// A job: the profile a user submits (JobSpec) and the state the scheduler keeps about it (Job).
// Plain data; owned by the Scheduler's JobTable. Not thread-safe.
#ifndef SQUEEZE_CORE_JOB_H_
#define SQUEEZE_CORE_JOB_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/elastic.h"
#include "core/placement.h"
#include "core/topology_spec.h"
#include "core/types.h"

namespace squeeze {

// How a job waits on others (Slurm's --dependency types).
enum class DependencyKind : uint8_t {
  kAfter,       // the jobs named have started (or ended without a start)
  kAfterAny,    // they have ended, however
  kAfterOk,     // they have ended done (exit 0)
  kAfterNotOk,  // they have ended otherwise: failed, timed out or cancelled
  kSingleton,   // every earlier job of the same name and user has ended (names no jobs)
};
std::string_view DependencyKindName(DependencyKind kind);  // "afterok", ...

struct Dependency {
  DependencyKind kind = DependencyKind::kAfterAny;
  // Each job it names; an array is named by its tasks, one by one (the driver expands it).
  std::vector<JobId> jobs;
};

struct JobSpec {
  JobId id = 0;
  std::string name;
  std::string team;
  std::string pool;  // home pool; empty = any pool
  Urgency urgency = Urgency::kNormal;
  Time submit_time = 0;

  // Demand. A job asks for `gpus` GPUs, each `gpu_milli` of a card (1000 = whole card; a
  // fraction is only meaningful with gpus == 1). All GPUs are given at once (gang).
  int gpus = 1;
  int gpu_milli = kMilliPerGpu;
  std::vector<std::string> gpu_models;  // allowed models; empty = any
  int64_t min_gpu_memory_mib = 0;
  // How fast this job trains on each GPU model, relative to the card its estimate is for (1);
  // a model not listed goes at the cluster's speed for it (ClusterSpec::gpu_models, else 1).
  std::map<std::string, double> gpu_speeds;
  // Where a job of several nodes may go in the cluster's topology (blocks, racks).
  TopologyRequest topology;
  // An elastic job (elastic.enabled()) runs on any width of elastic's range; `gpus` is the width
  // it runs at, or waits for (its minimum), and its estimate is for elastic.Reference() GPUs.
  ElasticSpec elastic;
  int64_t cpu_milli = 0;   // whole job, spread over its nodes in proportion to GPUs
  int64_t memory_mib = 0;  // whole job, likewise

  // Interruptibility.
  bool preemptible = false;
  bool checkpointable = false;      // saves its state when asked and resumes from it
  Time checkpoint_interval = 0;     // periodic checkpoints; 0 = only when asked
  Time checkpoint_cost = 0;         // how long a checkpoint takes (GPUs held meanwhile)
  // Asynchronous checkpoints: how long a periodic checkpoint pauses training (the copy to host
  // memory); the save goes on in the background and is on disk checkpoint_cost after it
  // began. Unset: periodic checkpoints are synchronous and pause training checkpoint_cost.
  std::optional<Time> checkpoint_stall;
  std::optional<Time> restart_overhead;  // time lost on each restart; default by GPU count

  std::optional<Time> estimate;  // estimated run time
  // The most one run may last (Slurm's --time): at it the job is stopped (after a
  // checkpoint when it can make one) and ends timed out. A promise where the estimate is a
  // guess: a run never holds its GPUs longer, so backfill may count on it.
  std::optional<Time> time_limit;
  std::optional<Time> deadline;  // absolute time by which it should finish

  // Work that tolerates interruption well (preprocessing, hyper-parameter search, ablations):
  // it prefers spot capacity when there is some.
  bool fault_tolerant = false;

  // Who submitted it (Slurm's singleton dependency counts jobs of the same name and user);
  // empty = not known.
  std::string user;
  // It starts only once these hold: all of them, or any one with dependency_any (Slurm's
  // ',' and '?'). The scheduler sees a job only once they hold (core/dependency_graph.h).
  std::vector<Dependency> dependencies;
  bool dependency_any = false;
  // A task of a job array: the array's id (its first task's job id, as Slurm numbers them),
  // the task's index, and the most tasks of the array the scheduler keeps running at once
  // (sbatch --array ...%N; 0 = no limit).
  JobId array_id = 0;
  int array_task = 0;
  int array_limit = 0;

  std::vector<std::string> regions;  // allowed regions; empty = any
  // Size of the data the job reads, in GB: it lives in the home pool's region and is copied
  // over the region link (ClusterSpec::region_links) when the job runs in another region.
  double data_gb = 0;

  int64_t TotalMilli() const { return static_cast<int64_t>(gpus) * gpu_milli; }
  bool WholeGpus() const { return gpu_milli == kMilliPerGpu; }
};

// The restart overhead the reference simulators charge: 7 s (1 GPU), 30 s (2-8), 60 s (>8).
Time DefaultRestartOverhead(int gpus);
Time RestartOverhead(const JobSpec& spec);
// How long a periodic checkpoint pauses training: the stall of an asynchronous one (at most its
// cost), else the whole cost.
Time CheckpointPause(Time checkpoint_cost, std::optional<Time> checkpoint_stall);
// The same for a job's spec (checkpoint_cost, checkpoint_stall).
Time PeriodicCheckpointStall(const JobSpec& spec);
// The progress after a periodic checkpoint before it is on disk: what an asynchronous
// save takes beyond its pause (0 for synchronous checkpoints).
Time CheckpointPersistLag(const JobSpec& spec);
// The work done in `elapsed` at `speed_milli` thousandths of full speed: at any other speed, in
// whole seconds (rounded down), so that it is the same whatever the tick.
Time ProgressAtSpeed(Time elapsed, int speed_milli);

struct Job {
  JobSpec spec;
  JobState state = JobState::kPending;

  // Service accounting. `work_done` is useful progress (a Time) that survives a restart
  // (up to the last checkpoint); overhead is not progress.
  Time work_done = 0;
  double attained_gpu_s = 0;  // GPU-seconds held while running, overhead included
  Time first_start = kNever;
  Time run_start = kNever;       // start of the current run
  Time run_overhead = 0;         // restart overhead paid at the start of the current run
  // Progress per second of the current run, in thousandths: below 1000 on a GPU shared with
  // inference, when periodic checkpoints take time, or for an elastic job narrower than its
  // reference width; above 1000 for one wider. Progress at another speed than 1000 counts in
  // whole seconds (ProgressAtSpeed, TimeForWork), whatever the tick.
  int run_speed_milli = 1000;
  // Periodic checkpoints of the current run (0: the spec's checkpoint_interval): the scheduler
  // sets a shorter one on capacity that may be taken away.
  Time run_checkpoint_interval = 0;
  // The current run's GPUs are being taken away (a spot reclaim, inference needing its GPU):
  // it must be off them by then; a checkpoint that cannot end by then is not taken.
  Time must_leave_by = kNever;
  Time slice_end = kNever;       // end of the current slice, if sliced
  // The backend has not yet started the current run's process (Scheduler::AwaitLaunch): its
  // slice and minimum runtime count from the launch (Scheduler::Launched).
  bool awaiting_launch = false;
  // The current run is a long job bridging its wait on spot (the spot action); bridged is
  // the time its earlier bridges took, run and stop included.
  bool bridging = false;
  Time bridged = 0;
  // A run on a GPU lent in its owner's idle window that will not finish in the window: it
  // checkpoints and leaves by then, before the owner is predicted back (also its slice_end, so
  // the scheduler wakes for it); kNever otherwise.
  Time leave_window_at = kNever;
  // Its GPUs have stayed nearly idle for long (the live queue's held-but-idle report); with
  // Policy::held_idle_yields it ranks one urgency class lower while so.
  bool held_idle = false;
  Time queued_since = 0;         // when it last became pending
  Time total_wait = 0;           // summed over all pending periods that ended
  int preemptions = 0;
  int moves = 0;                 // stops and restarts elsewhere by the defrag action
  std::vector<Time> move_times;  // when it was moved within the last hour, oldest first
  int slices = 0;
  int starts = 0;
  Time min_runtime_until = 0;    // not preemptible before this time
  bool borrowed = false;         // running on capacity lent by another pool or team
  // Moved up within its urgency class: its deadline is at risk, or it has waited too long.
  bool boosted = false;
  Time boost_at = kNever;  // while pending and not boosted: when it will be
  // Pending but out of the queue until then: a requeued run waiting out a back-off
  // (Scheduler::Requeue); kNever when it is in the queue.
  Time back_at = kNever;
  // Pending but out of the queue: a task of an array with as many tasks admitted as its
  // array_limit; queued when one of them ends (Slurm's ArrayTaskLimit).
  bool parked = false;
  int home_pool = -1;            // index of spec.pool; -1 = any pool
  Time saved_at_stop = 0;        // work saved by the checkpoint taken when asked to stop
  // Regions holding a copy of its data, as bits of EngineState::regions (its home region
  // from the start, another once the region action copied it there).
  uint64_t data_regions = 0;
  // When the driver last saw a complete checkpoint of this job (kNever: none, or a driver that
  // does not report checkpoints, like the simulator).
  Time last_checkpoint = kNever;
  Placement placement;
  // Elastic jobs: resizes so far (a stop and a restart at another width), when they were within
  // the last hour (oldest first), why the last one was made, the throughput the job reported at
  // each width, and the seconds it ran at each width (runs that ended).
  int resizes = 0;
  std::vector<Time> resize_times;
  std::string resize_reason;
  MeasuredRates measured_rates;
  std::map<int, Time> time_at_width;

  bool IsActive() const {
    return state == JobState::kRunning || state == JobState::kCheckpointing;
  }
  // Progress so far in the current run, not counting overhead (0 if not running).
  Time RunProgress(Time now) const;
  // Work that survives if the job is stopped now (checkpoint semantics).
  Time SavedWorkIfStopped(Time now) const;
  // Whether a stop asked now can checkpoint (it is checkpointable and the checkpoint ends
  // before must_leave_by).
  bool CanCheckpointNow(Time now) const;
  // How long from a stop asked now until its GPUs are free: the checkpoint, or the time left
  // before must_leave_by when the checkpoint would not end by then; 0 without a checkpoint.
  Time StopTakes(Time now) const;
  // The periodic checkpoint interval of the current run (0: none).
  Time CheckpointInterval() const {
    return run_checkpoint_interval > 0 ? run_checkpoint_interval : spec.checkpoint_interval;
  }
  // GPU-seconds of work lost if stopped now, restart overhead and checkpoint included.
  double LostGpuSecondsIfStopped(Time now) const;
  // The work at risk if a stop's checkpoint failed (a Time): since the later of the run's start
  // and the last checkpoint the driver saw. 0 unless `tracked` (the driver reports them).
  Time UncheckpointedSeconds(Time now, bool tracked) const;
  double AttainedGpuSeconds(Time now) const;
  // Moves after `since` (exclusive).
  int MovesSince(Time since) const;
  // Remaining run time by estimate, or nullopt when the job has no estimate.
  std::optional<Time> EstimatedRemaining(Time now) const;
  // Expected end of the current run by estimate (or kNever without an estimate).
  Time EstimatedEnd() const;
  // How long the current run takes to make `work` of progress at its speed (whole seconds
  // below full speed).
  Time TimeForWork(Time work) const;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_JOB_H_
