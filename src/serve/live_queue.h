// The live queue of `squeeze serve`: the scheduling core (Scheduler) in charge of real jobs on
// this machine. It queues the jobs the store has accepted, runs the core's cycle, carries out
// its decisions through the local executor (start, checkpoint-and-stop), follows the runs
// (exits, checkpoints), retries failed runs with back-off, and records every change in the
// store before or as it acts, so that a restart (Recover) takes everything back and starts no
// run twice. The order that makes this so: a start is recorded, then the run is started; a run
// file of the executor is the proof a run exists.
// Thread-safe: the daemon's loop calls Step; the API's threads call the rest. New jobs go
// through an inbox so a submission never waits for a cycle. Under the scheduling lock (mu_) the
// queue only decides: what it means to store and to carry out goes into effects_, which joins
// the journal (journal.h) before the lock is let go; after it, the journal makes the records
// durable in one group commit and gives the work to an outbox per backend (outbox.h), whose
// workers carry it out in parallel and whose results the next step takes. The executors are
// polled before the lock is taken. No fsync, account lookup or user file under the lock.
#ifndef SQUEEZE_SERVE_LIVE_QUEUE_H_
#define SQUEEZE_SERVE_LIVE_QUEUE_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <unordered_map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/dependency_graph.h"
#include "core/forecast_start.h"
#include "core/policy.h"
#include "core/scheduler.h"
#include "core/thread_annotations.h"
#include "exec/executor.h"
#include "serve/access.h"
#include "serve/capacity_requests.h"
#include "serve/executor_polls.h"
#include "serve/held_idle_tracker.h"
#include "serve/intake.h"
#include "serve/journal.h"
#include "serve/history_views.h"
#include "serve/job_service.h"
#include "serve/local_cluster.h"
#include "serve/outbox.h"
#include "serve/published_views.h"
#include "serve/reason_text.h"
#include "serve/run_as.h"
#include "serve/waiting_counts.h"
#include "serve/why_forecasts.h"
#include "store/job_store.h"

namespace squeeze {

struct LiveQueueOptions {
  Time checkpoint_grace = kMinute;  // after SIGUSR1, how long to wait for the marker (or the
                                    // job's checkpoint_cost when longer) before SIGTERM
  Time stop_grace = 10 * kSecond;   // after SIGTERM, how long before SIGKILL
  int max_retries = 2;              // a failed job runs again this often unless it says otherwise
  // The first retry waits this long; each next one twice as long, up to the max.
  Time retry_backoff = 10 * kSecond;
  Time retry_backoff_max = 10 * kMinute;
  Time idle_poll = 5 * kSecond;     // the longest sleep between steps (1 s while jobs run)
  int dispatch_workers = 8;    // per backend: how many starts and stops are carried out at once
  // `why`'s forecasts are made in a thread of their own, a why answered at once from the
  // latest (why_forecasts.h); off (tests), each new state is forecast when a why asks.
  bool forecast_in_background = false;
  HeldIdleOptions held_idle;   // when a running job counts as held but idle
  RunAsPolicy run_as;          // who the jobs run as
};

struct RecoverySummary {
  int pending = 0;       // queued again
  int adopted = 0;       // found running, taken back
  int ended_offline = 0; // ended while the daemon was down, their exit recorded now
  int requeued = 0;      // recorded as running but never started, queued again
  int learned = 0;       // ended jobs whose run times the learned order took in again
};

class LiveQueue {
 public:
  LiveQueue(LocalCluster cluster, const Policy& policy, JobStore& store, Executor& executor,
            LiveQueueOptions options);
  static Result<std::unique_ptr<LiveQueue>> Create(LocalCluster cluster, const Policy& policy,
                                                   JobStore& store, Executor& executor,
                                                   LiveQueueOptions options);
  ~LiveQueue();  // StopDispatch()

  // Called (from a worker, no lock held) when a start, checkpoint request or stop that the
  // outbox carried out failed, or a start could not be recorded: the next step should come
  // soon. Before Recover.
  void SetWake(std::function<void()> wake) { wake_ = std::move(wake); }
  // Until every start and stop decided has been carried out (tests).
  void WaitForDispatch();
  // The outboxes' workers stop after what they are doing; starts not carried out yet are
  // dropped (recorded as started, they are queued again at the next Recover). Returns how many
  // pieces of work were dropped. Before the executors go.
  size_t StopDispatch();

  // The executor of the jobs placed on `pool` (a Slurm pool's); others use the default one
  // given at creation. Before Recover.
  void SetPoolExecutor(int pool, Executor& executor) EXCLUDES(mu_);
  // After a start of the daemon: the store's unfinished jobs and the executors' runs.
  Result<RecoverySummary> Recover(Time now) EXCLUDES(mu_);
  // Before the API starts and Recover runs (the daemon's choice): until Recover has taken the
  // queue back, calls on the queue (its views: nodes, queue, why; its decisions: cancel,
  // reclaim, ...) wait for it, so that none answers from the state before the restart.
  void HoldCallsUntilRecovered() EXCLUDES(mu_);
  // From now on the executors are polled on threads of their own (executor_polls.h) and a
  // step takes what they found, instead of polling on the caller's thread. After Recover; the
  // daemon's choice (tests step synchronously).
  void PollInBackground(std::function<Time()> clock);
  // From now on a step's effects are carried out by the journal's own thread (the daemon's
  // choice), so that the scheduling thread never waits for the store's commit; without it
  // (tests) a step returns once its records are durable. The API's calls wait for theirs
  // either way.
  void CarryOutInBackground() { journal_->StartThread(); }
  // Whether the scheduling core could ever run `spec` (the rule its cycle applies); the error
  // says what the largest request is. Thread-safe: no scheduling lock.
  Status CheckFeasible(const JobSpec& spec) const { return intake_->CheckFeasible(spec); }
  // Before a job of `owner` is accepted (Intake::CheckSubmission). Thread-safe, no lock.
  ApiResult CheckSubmission(const std::string& owner, const JobRequest& request) const {
    return intake_->CheckSubmission(owner, request);
  }
  const RunAsPolicy& run_as() const { return options_.run_as; }
  // A job the store has just accepted; it is queued at the next step.
  void Add(const StoredJob& job) { intake_->Add(job); }
  // How many jobs of each owner and team wait (pending or held), for the caps on waiting jobs:
  // a submission reserves its jobs there before they are stored. Recounted at each
  // publication. Thread-safe.
  WaitingCounts& waiting() const { return waiting_; }
  // At a daemon's start, before Recover: the store's waiting jobs counted by owner and team
  // (one query), so that the caps hold while the queue is taken back (the API answers during
  // the recovery); the publications count them again from Recover on.
  Status CountWaitingInStore() EXCLUDES(mu_);
  // Executor events, due retries, one cycle and its decisions. Returns when to step next.
  Time Step(Time now) EXCLUDES(mu_);
  // A step, but only when the backends report something (a run ended, a checkpoint came):
  // what the daemon's loop asks between steps while runs are active, so that the GPUs of a
  // run that ended are given out at once. nullopt: nothing was reported, no step was made.
  std::optional<Time> StepIfEvents(Time now) EXCLUDES(mu_);
  // Whether runs were active (or starts on their way) at the last step.
  bool RunsActive() const { return runs_active_; }
  // Only the owner or an admin; a running job is stopped (SIGTERM) and ends cancelled.
  ApiResult Cancel(const Principal& who, JobId id, Time now) EXCLUDES(mu_);
  // Several jobs (an array's tasks) at once, their records in one commit; each is checked as
  // Cancel checks one, and the answer lists each one's {"id", "state"} or {"id", "error"}.
  ApiResult CancelMany(const Principal& who, const std::vector<JobId>& ids, Time now) EXCLUDES(mu_);
  // A waiting job kept from scheduling until Release (Slurm's scontrol hold / release).
  ApiResult Hold(const Principal& who, JobId id, Time now) EXCLUDES(mu_);
  ApiResult Release(const Principal& who, JobId id, Time now) EXCLUDES(mu_);
  // A running job stopped (after a checkpoint when it can make one) and queued again; an
  // ended one (timed out, failed, cancelled, done) queued again, to resume from its kept
  // checkpoint (scontrol requeue).
  ApiResult Requeue(const Principal& who, JobId id, Time now) EXCLUDES(mu_);
  // A job's urgency, GPUs or time limit changed: a waiting job's any of them, a running job's
  // time limit (its owner may only lower it; an admin may raise it). `body`: JSON
  // {"urgency", "gpus", "time_limit"}, each optional.
  ApiResult Update(const Principal& who, JobId id, const std::string& body, Time now) EXCLUDES(mu_);

  // Capacity taken away and given back (live_queue_capacity.cc), for the API's admin calls;
  // the caller wakes the loop so that the next step acts at once.
  // A spot node's provider takes it back at now + warning (nullopt: its pool's spot.warning):
  // it takes no new jobs, and the next step asks its jobs to checkpoint and leave by then
  // (killed then if they have not). 404: no such node; 400: not in a spot pool; 409: already.
  ApiResult Reclaim(const std::string& node, std::optional<Time> warning, Time now) EXCLUDES(mu_);
  // The reclaimed node is back and takes jobs again. 404: no such node; 409: not reclaimed.
  ApiResult Return(const std::string& node, Time now) EXCLUDES(mu_);
  // A telemetry report read at `at`: the inference load of GPUs of colocated pools and the
  // utilization of any GPU (for held-but-idle runs, live_queue_held_idle.cc). Every entry is
  // checked (400 naming it: an unknown node or GPU, an inference load outside a colocated
  // pool) before any is applied.
  ApiResult ApplyTelemetry(const std::vector<GpuTelemetry>& gpus, Time at, Time now) EXCLUDES(mu_);

  // Views for the API: nodes, pools, held-but-idle jobs, the gauges and `why` are answered from
  // the view published at the end of the last step (or API change), never waiting for a step
  // in progress.
  nlohmann::json NodesJson() const;
  nlohmann::json PoolsJson() const;
  // What the history views need of the cluster: each pool's price, each node's pool, and the
  // number of GPUs.
  std::vector<PoolPrice> PoolPrices() const;
  std::map<std::string, std::string> PoolOfNode() const;
  int GpuCount() const;
  // Why `id` waits and when it is expected to start (the whole-queue forecast of the published
  // state, why_forecasts.h); nullopt when the published state holds it neither as waiting,
  // running nor in a retry's back-off (the caller explains from the store).
  std::optional<nlohmann::json> WhyJson(JobId id, Time now) const EXCLUDES(mu_);
  // When a waiting job is expected to start (squeue --start): the why forecast's answer for a
  // job in the queue, its begin time or back-off end for one waiting it out; nullopt when no
  // forecast says (no estimate in the way, past the horizon) or it does not wait.
  std::optional<Time> ExpectedStart(JobId id, Time now) const EXCLUDES(mu_);
  // Running jobs held but idle: {"jobs": [{"id", "name", "user", "team", "gpus": [{"node",
  // "gpu"}], "mean_utilization", "idle_since"}], "threshold", "window_s"}.
  nlohmann::json HeldIdleJson() const;
  // A waiting job's reason in one word, as Slurm's REASON codes (core/wait_reasons.h; also
  // BeginTime for a retry's back-off); empty for a job that does not wait or was just
  // submitted. As of the last step.
  std::string_view ReasonCode(JobId id) const;
  // Pending jobs by urgency, GPUs allocated and idle, counters.
  using Gauges = QueueGauges;
  Gauges Snapshot() const;  // as of the last publication, plus the jobs in the inbox
  const LocalCluster& cluster() const { return cluster_; }

 private:
  enum class Stopping { kNo, kAwaitCheckpoint, kTerminating };
  struct LiveJob {
    JobRequest request;
    std::string owner;
    int attempts = 0;
    int failures = 0;
    bool has_checkpoint = false;
    Time queued_since = 0;
    std::optional<Time> retry_at;  // waiting out a back-off, not in the scheduler yet
    Stopping stopping = Stopping::kNo;
    Time stop_deadline = 0;
    std::string stop_reason;
    bool cancelled = false;
    std::string cancelled_by;
    bool requeue_on_exit = false;  // was stopping when the daemon restarted
    bool killed_at_leave_by = false;  // the must-leave time came: SIGKILL sent
    std::vector<int> cuda_gpus;
    Executor* exec = nullptr;  // where its current run is; nullptr = the default executor
    std::string placed_because;  // why its current run is outside its home region, if it is
    std::optional<HeldIdleTracker::Spell> held_idle;  // its current run's idle spell, if any
    bool start_pending = false;  // its start (of attempt `attempts`) is in an outbox
    bool timed_out = false;  // its run reached its time limit (or the checkpoint before it)
    bool held = false;       // waiting, kept out of the scheduler until released
    bool dependency_wait = false;  // waiting on its dependencies (deps_), not in the scheduler
  };
  Executor& ExecutorOf(const LiveJob& job) { return job.exec ? *job.exec : executor_; }
  // Runs that reach their time limit: asked to checkpoint ahead of it, stopped at it.
  void EnforceTimeLimits(Time now) REQUIRES(mu_);
  // A run stopped at its time limit ends the job timed out; it is forgotten.
  void EndTimedOut(JobId id, LiveJob& job, int exit_code, Time now) REQUIRES(mu_);
  // The job `who` may control (its owner, or an admin), or the answer why not.
  // `cancelling_ok`: a job being cancelled is returned too (else a 409).
  std::variant<LiveJob*, ApiResult> Controlled(const Principal& who, JobId id,
                                                std::string_view verb, bool cancelling_ok = false) REQUIRES(mu_);
  // A waiting job out of the scheduler (and its retry back-off), to be queued again later.
  void Unqueue(JobId id, LiveJob& job, Time now) REQUIRES(mu_);
  Executor& ExecutorFor(const Placement& placement) REQUIRES(mu_);
  std::vector<Executor*> AllExecutors();

  // Under mu_: a store write for the journal's next group commit.
  void Record(Effects::Write write) REQUIRES(mu_) { effects_.Record(std::move(write)); }
  // Under mu_: what the section decided joins the journal; the ticket to carry out once mu_
  // is let go.
  uint64_t AppendEffects() REQUIRES(mu_);
  // An API change: `decide` runs under mu_ (the views published after it), then what it
  // decided is carried out; a record the store refused turns an answer of success into the
  // store's error.
  ApiResult Decided(const std::function<ApiResult()>& decide) EXCLUDES(mu_);
  // Starts the journal could not record (the store refused them): queued again.
  void ApplyUnrecorded(Time now) REQUIRES(mu_);
  // Whether job `t` ended (true: done) by what this daemon decided, whether or not the store
  // has it yet; nullopt when it does not know (ask the store).
  std::optional<bool> EndedHere(JobId t) const REQUIRES(mu_);

  std::vector<ExecEvent> PollExecutors(Time now) EXCLUDES(mu_);
  std::unique_ptr<ExecutorPolls> polls_;  // set by PollInBackground
  Time StepWith(Time now, const std::vector<ExecEvent>& events) EXCLUDES(mu_);
  // Under mu_: what a step decides (its effects in effects_). Returns when to step next.
  Time Decide(Time now, const std::vector<ExecEvent>& events) REQUIRES(mu_);
  void DrainInbox(Time now) REQUIRES(mu_);
  // The outbox of `executor`'s work, made on first use.
  Outbox& OutboxOf(Executor& executor);
  // What the outboxes carried out since the last step: failed starts fail (or end cancelled),
  // a failed checkpoint request becomes a stop.
  void ApplyDispatched(Time now) REQUIRES(mu_);
  // Whether the job has a run, or one on its way (a start in the outbox).
  bool HasRun(JobId id, const LiveJob& job) { return job.start_pending || ExecutorOf(job).IsRunning(id); }
  // A job with no run ends cancelled by `by` (scheduler, store, counters); it is forgotten.
  void EndCancelled(JobId id, const std::string& by, Time now) REQUIRES(mu_);
  // A run's end, for the journal's next commit.
  void RecordRunEnd(JobId id, const RunEnd& end, Time now) REQUIRES(mu_);
  // Cancel of one job under the lock (Cancel, CancelMany).
  ApiResult CancelLocked(const Principal& who, JobId id, Time now) REQUIRES(mu_);
  // SIGTERM (via the outbox, after any start of the job given before).
  void SendStop(JobId id, LiveJob& job, Time now, Time grace) REQUIRES(mu_);
  // Recover under mu_: the executors' runs and the store's unfinished jobs.
  Result<RecoverySummary> TakeBackAll(Time now) REQUIRES(mu_);
  // One unfinished job of the store, at a restart: queued, taken back where it runs, or (its
  // run ended while the daemon was down) noted in `ended` for OnExit.
  void TakeBack(StoredJob& stored, const std::map<JobId, std::pair<RunInfo, Executor*>>& run_of,
                Time now,
                RecoverySummary& summary, std::vector<std::pair<JobId, ExitStatus>>& ended) REQUIRES(mu_);
  void Queue(JobId id, LiveJob& job, Time now) REQUIRES(mu_);
  // A job that arrived (submitted, or taken back waiting at a restart): into the dependency
  // graph, then queued unless it waits on its dependencies, is held or has a begin time
  // (a run started before: `started`). Ends it when its dependencies can never hold.
  void Arrive(JobId id, LiveJob& job, std::optional<Time> not_before, bool started, Time now) REQUIRES(mu_);
  // Requeue of a job that ended: back from the store into the queue, attempts and checkpoint
  // kept.
  ApiResult RequeueEnded(const Principal& who, JobId id, Time now) REQUIRES(mu_);
  // Whether a job it depends on is in the store, unfinished, but not here yet (submitted at
  // the same time, its hand-over to the queue still on its way): it waits in deferred_.
  bool DependsOnUnseen(const JobRequest& request) REQUIRES(mu_);
  // A job that runs (taken back at a restart) into the dependency graph, as started.
  void TrackStarted(JobId id, const LiveJob& job) REQUIRES(mu_);
  // Queued unless held or before its begin time (`not_before`).
  void QueueUnlessHeld(JobId id, LiveJob& job, std::optional<Time> not_before, Time now) REQUIRES(mu_);
  // A job whose dependencies can never hold ends cancelled (DependencyNeverSatisfied: why)
  // and is forgotten; the caller tells the graph when it does not know yet.
  void EndNeverSatisfied(JobId id, const std::string& why, Time now) REQUIRES(mu_);
  // A job that ended is forgotten; its dependents learn it at the next ApplyDependencies.
  void Forget(JobId id, bool ok) REQUIRES(mu_);
  // What ends and first starts since the last call mean for jobs that wait on them: queued,
  // or ended cancelled (DependencyNeverSatisfied).
  void ApplyDependencies(Time now) REQUIRES(mu_);
  void OnCheckpoint(JobId id, const std::string& label, Time now) REQUIRES(mu_);
  void OnExit(JobId id, const ExitStatus& exit, Time now) REQUIRES(mu_);
  // The backend started the script of `id`'s attempt `attempt` (ExecEvent kStarted): its slice
  // and minimum runtime count from now (Scheduler::Launched); a launch that took
  // kNotedLaunchDelay or more is logged and noted among the job's events.
  void OnLaunched(JobId id, int attempt, Time now) REQUIRES(mu_);
  static constexpr Time kNotedLaunchDelay = 5 * kSecond;
  // The backend lost the run: the job waits again (from its checkpoint), no failure counted.
  void OnLost(JobId id, LiveJob& job, const ExitStatus& exit, Time now) REQUIRES(mu_);
  // The backends' reports: nodes made unavailable or available again, strangers logged, runs
  // taken where the backend runs them, GPUs others hold kept from squeeze's jobs.
  void ApplyBackendReports(Time now) REQUIRES(mu_);
  // What changed in a backend's report since `before` (its controller, strangers, others'
  // jobs), in the log.
  void LogReportChanges(const BackendReport* before, const BackendReport& report) const;
  // `pool`'s nodes available or not as the report says (in the scheduler, in node_down_).
  void ApplyNodeStates(int pool, const BackendReport& report, Time now) REQUIRES(mu_);
  // Runs of `pool` the backend runs elsewhere than the scheduler placed them: moved there in
  // the scheduler and the store (and in the job's history when the nodes differ).
  void TakeBackendPlacements(int pool, const BackendReport& report, Time now) REQUIRES(mu_);
  // The GPUs of `pool`'s nodes that others' jobs hold, as the report says, in the scheduler.
  void HoldForeignGpus(int pool, const BackendReport& report) REQUIRES(mu_);
  // Why node `n` takes no new jobs; empty when it does.
  std::string NodeUnavailableWhy(int n) const REQUIRES(mu_);
  // The node's index by name; -1 when there is none.
  int NodeIndex(const std::string& name) const REQUIRES(mu_);
  // The environment a run gets from where it runs: the periodic checkpoint interval asked of
  // it, and on colocated GPUs its share (SQUEEZE_GPU_SHARE, the CUDA MPS limits).
  void AddPlacementEnv(const Decision& d, const std::vector<int>& cuda_gpus,
                       JobRequest& request) const REQUIRES(mu_);
  // When a stopping job must be off its GPUs (a reclaim, inference); kNever when it need not.
  Time LeaveBy(JobId id) const REQUIRES(mu_);
  // SIGTERM now, SIGKILL after the stop grace or at the job's must-leave time if sooner.
  void Terminate(JobId id, LiveJob& job, Time now) REQUIRES(mu_);
  // A run that ended without finishing its job waits again, from `back_at` (later than now: a
  // back-off), in the scheduler with its history (Scheduler::Requeue), or submitted afresh
  // when the scheduler does not hold it as running.
  void RequeueRun(JobId id, LiveJob& job, Time now, Time back_at = 0) REQUIRES(mu_);
  // A run that failed (or could not start): a retry after back-off, or failed for good.
  void Fail(JobId id, LiveJob& job, int exit_code, const ReasonText& what, Time now) REQUIRES(mu_);
  // A cycle's starts: recorded in the store in one transaction, then each given to its
  // backend's outbox (StartJob).
  void StartJobs(const std::vector<Decision>& starts, Time now) REQUIRES(mu_);
  void StartJob(const Decision& d, Time now) REQUIRES(mu_);
  void StopJob(const Decision& d, Time now) REQUIRES(mu_);
  void TerminateOverdue(Time now) REQUIRES(mu_);
  void QueueDueRetries(Time now) REQUIRES(mu_);
  // Marks running jobs held but idle (an event once per spell, the scheduler told) and clears
  // the mark of those whose GPUs are busy again or that stopped.
  void UpdateHeldIdle(Time now) REQUIRES(mu_);
  // The (node, gpu) pairs a running job's placement holds.
  std::vector<std::pair<int, int>> GpusOf(const Job& job) const REQUIRES(mu_);
  void Log(const std::string& line) const;
  // Under mu_.
  WhyView BuildWhyView(uint64_t generation) const REQUIRES(mu_);
  // The WhyView of the latest publication; made under mu_ when it has none (no why for a
  // while), the one case in which `why` takes the scheduling lock.
  std::shared_ptr<const WhyView> CurrentWhyView() const EXCLUDES(mu_);
  // WhyJson of a job that does not wait in the scheduler's queue (in a back-off, running);
  // nullopt for a waiting or unknown one.
  std::optional<nlohmann::json> WhyNotWaiting(const WhyView& w, JobId id, Time now) const;
  // When a job waiting on its dependencies or its array's %limit may start at the earliest,
  // by the estimates and forecasts of the jobs it waits for (GPUs taken to be free then);
  // nullopt when one of them has none.
  std::optional<Time> HeldBackStart(const WhyView& w, JobId id, Time now) const;
  // When `id` is expected to start (`start`) or end: now for what has happened already.
  std::optional<Time> EventAt(const WhyView& w, JobId id, bool start, Time now) const;

  // What the reads answer from (published_views.h): built under mu_ at the end of each step and
  // API change (Publish); View() gives the latest.
  nlohmann::json BuildNodesJson() const REQUIRES(mu_);
  nlohmann::json BuildPoolsJson() const REQUIRES(mu_);
  nlohmann::json BuildHeldIdleJson() const REQUIRES(mu_);
  Gauges BuildGauges() const REQUIRES(mu_);
  std::unordered_map<JobId, std::string_view> BuildReasons() const REQUIRES(mu_);
  // The waiting jobs (not running, not on their way out) by owner and by team, into waiting_.
  void RecountWaiting() const REQUIRES(mu_);
  void Publish() const REQUIRES(mu_);
  std::shared_ptr<const ReadView> View() const;
  // Publishes when it goes out of scope (declared after the lock on mu_, so while it is held).
  struct PublishAtExit {
    const LiveQueue& q;
    // (Declared after the lock, so mu_ is held when it runs: the analysis cannot see it.)
    ~PublishAtExit() NO_THREAD_SAFETY_ANALYSIS { q.Publish(); }
  };

  LocalCluster cluster_;  // const after Create
  // The scheduling core; only under mu_ (its pointer is set once, at Create).
  std::unique_ptr<Scheduler> scheduler_ PT_GUARDED_BY(mu_);
  JobStore& store_;      // thread-safe
  Executor& executor_;   // thread-safe
  // Set before Recover (SetPoolExecutor) and never again: read without a lock after it.
  std::map<int, Executor*> pool_executors_;
  LiveQueueOptions options_;  // const after Create

  std::unique_ptr<Intake> intake_;    // thread-safe; the checks and the inbox
  std::unique_ptr<Journal> journal_;  // thread-safe

  // The scheduling lock. Taken before outboxes_mu_, the intake's, the journal's and the views'.
  mutable Mutex mu_ ACQUIRED_BEFORE(outboxes_mu_);
  std::map<int, BackendReport> reports_ GUARDED_BY(mu_);  // by pool, the latest of each backend
  std::map<int, std::string> node_down_ GUARDED_BY(mu_);  // node -> why it takes no new jobs
  Effects effects_ GUARDED_BY(mu_);  // what the section under mu_ decided so far (AppendEffects)
  // Jobs that ended (true: done) whose end may not be in the store yet, with the journal's
  // ticket that carries it (0: not appended yet); dropped once the journal is past it.
  std::map<JobId, std::pair<bool, uint64_t>> recent_ends_ GUARDED_BY(mu_);
  std::map<JobId, LiveJob> jobs_ GUARDED_BY(mu_);  // every unfinished job
  std::set<std::pair<Time, JobId>> retries_ GUARDED_BY(mu_);
  // Every unfinished job, and what those with dependencies wait for.
  DependencyGraph deps_ GUARDED_BY(mu_);
  std::vector<std::pair<JobId, bool>> ended_since_ GUARDED_BY(mu_);  // (id, done) since
                                                                      // ApplyDependencies
  std::vector<JobId> started_since_ GUARDED_BY(mu_);  // first starts since then
  std::deque<StoredJob> deferred_ GUARDED_BY(mu_);  // arrived before a job they depend on
  LiveCounters counters_ GUARDED_BY(mu_);
  struct ReclaimNotice {
    Time at = 0;
    Time leave_by = 0;
  };
  // Spot nodes taken back and not returned yet.
  std::map<int, ReclaimNotice> reclaimed_ GUARDED_BY(mu_);
  struct ReclaimRecord {
    int node = 0;
    Time at = 0;
    Time leave_by = 0;
    std::optional<Time> returned_at;
  };
  // The last kReclaimLogSize reclaims since the daemon started, oldest first (GET /v1/pools).
  static constexpr size_t kReclaimLogSize = 200;
  std::deque<ReclaimRecord> reclaim_log_ GUARDED_BY(mu_);
  // At Recover: the reclaims and returns the store holds, and the nodes still reclaimed.
  void RestoreReclaims(Time now) REQUIRES(mu_);
  // The utilization spell of each GPU telemetry reports.
  HeldIdleTracker held_idle_ GUARDED_BY(mu_);

  std::function<void()> wake_;  // set before Recover
  std::atomic<bool> runs_active_{false};
  Mutex outboxes_mu_;  // each outbox is thread-safe; the map is not
  std::map<Executor*, std::unique_ptr<Outbox>> outboxes_ GUARDED_BY(outboxes_mu_);

  mutable WhyForecasts forecasts_;  // thread-safe
  mutable PublishedViews views_;    // thread-safe; its lock is taken last

  mutable WaitingCounts waiting_;  // thread-safe; recounted under mu_ (RecountWaiting)
  std::atomic<bool> waiting_from_store_{false};  // CountWaitingInStore's, until Recover

  // HoldCallsUntilRecovered's gate: set before the API starts, cleared (and waiters woken)
  // at the end of Recover's locked part, after its publication.
  std::atomic<bool> recovering_{false};
  mutable std::condition_variable_any recovered_cv_;  // waited on with mu_ held (a MutexLock)
  void AwaitRecovery(MutexLock& lock) const REQUIRES(mu_);
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_LIVE_QUEUE_H_
