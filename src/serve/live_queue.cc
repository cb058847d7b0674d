#include "serve/live_queue.h"

#include <algorithm>
#include <cstdio>

#include "config/job_values.h"
#include "core/duration.h"
#include "core/safe_text.h"
#include "serve/reason_text.h"

namespace squeeze {

const std::vector<double> kWaitBounds = {1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 12 * 3600,
                                         86400};

namespace {

int ExitCode(const ExitStatus& e) { return e.signaled ? 128 + e.code : e.code; }

bool IsSliceEnd(const std::string& reason) { return reason.rfind("slice", 0) == 0; }

}  // namespace

LiveQueue::LiveQueue(LocalCluster cluster, const Policy& policy, JobStore& store,
                     Executor& executor, LiveQueueOptions options)
    : cluster_(std::move(cluster)), store_(store), executor_(executor),
      options_(std::move(options)), held_idle_(options_.held_idle),
      forecasts_(WhyForecasts::Options{options_.forecast_in_background, 60, {30 * 86400, 1000}}) {
  counters_.wait_counts.assign(kWaitBounds.size() + 1, 0);
  (void)policy;
}

Result<std::unique_ptr<LiveQueue>> LiveQueue::Create(LocalCluster cluster, const Policy& policy,
                                                     JobStore& store, Executor& executor,
                                                     LiveQueueOptions options) {
  auto scheduler = Scheduler::Create(cluster.spec, policy);
  if (!scheduler.ok()) return scheduler.status();
  auto feasibility = Scheduler::Create(cluster.spec, policy);
  if (!feasibility.ok()) return feasibility.status();
  std::unique_ptr<LiveQueue> q(
      new LiveQueue(std::move(cluster), policy, store, executor, std::move(options)));
  q->scheduler_ = std::move(scheduler).value();
  q->feasibility_ = std::move(feasibility).value();
  return q;
}

LiveQueue::~LiveQueue() { StopDispatch(); }

Outbox& LiveQueue::OutboxOf(Executor& executor) {
  std::lock_guard lock(outboxes_mu_);
  std::unique_ptr<Outbox>& outbox = outboxes_[&executor];
  if (!outbox) {
    outbox = std::make_unique<Outbox>(options_.dispatch_workers, [this](const Outbox::Done& d) {
      if (!d.status.ok() && wake_) wake_();
    });
  }
  return *outbox;
}

void LiveQueue::WaitForDispatch() {
  std::vector<Outbox*> all;
  {
    std::lock_guard lock(outboxes_mu_);
    for (auto& [executor, outbox] : outboxes_) all.push_back(outbox.get());
  }
  for (Outbox* outbox : all) outbox->WaitIdle();
}

size_t LiveQueue::StopDispatch() {
  if (polls_) polls_->Stop();
  std::lock_guard lock(outboxes_mu_);
  size_t dropped = 0;
  for (auto& [executor, outbox] : outboxes_) dropped += outbox->Close();
  return dropped;
}

void LiveQueue::ApplyDispatched(Time now) {
  std::vector<Outbox::Done> done;
  {
    std::lock_guard lock(outboxes_mu_);
    for (auto& [executor, outbox] : outboxes_) {
      for (Outbox::Done& d : outbox->TakeDone()) done.push_back(std::move(d));
    }
  }
  for (const Outbox::Done& d : done) {
    auto it = jobs_.find(d.job);
    if (it == jobs_.end()) continue;  // ended meanwhile
    LiveJob& job = it->second;
    const std::string id = std::to_string(d.job);
    switch (d.kind) {
      case Outbox::Kind::kStart:
        if (job.attempts != d.attempt) break;  // an earlier attempt's, already dealt with
        job.start_pending = false;
        if (d.status.ok()) break;
        Log("job " + id + ": " + d.status.message());
        if (job.cancelled) {
          // Cancelled while its start was on its way, and it never ran.
          (void)EndCancelled(d.job, job.cancelled_by, now);
          break;
        }
        Fail(d.job, job, 127, StartFailure(d.status), now);
        break;
      case Outbox::Kind::kCheckpoint:
        if (d.status.ok() || job.stopping != Stopping::kAwaitCheckpoint) break;
        job.stopping = Stopping::kTerminating;
        Terminate(d.job, job, now);
        (void)store_.AppendEvent(d.job, now, "stop",
                                 job.stop_reason + "; no checkpoint asked (" +
                                     d.status.message() + "); SIGTERM");
        break;
      case Outbox::Kind::kStop:
        break;  // a run that had ended already; its exit is reported by the executor
    }
  }
}

void LiveQueue::SendStop(JobId id, LiveJob& job, Time now, Time grace) {
  Executor* executor = &ExecutorOf(job);
  OutboxOf(*executor).Push(id, job.attempts, Outbox::Kind::kStop,
                           [executor, id, now, grace] { return executor->Stop(id, now, grace); });
}

void LiveQueue::SetPoolExecutor(int pool, Executor& executor) {
  std::lock_guard lock(mu_);
  PublishAtExit publish{*this};
  pool_executors_[pool] = &executor;
}

Executor& LiveQueue::ExecutorFor(const Placement& placement) {
  if (placement.empty()) return executor_;
  const int pool = scheduler_->cluster().node(placement.shares.front().node).pool;
  auto it = pool_executors_.find(pool);
  return it == pool_executors_.end() ? executor_ : *it->second;
}

std::vector<Executor*> LiveQueue::AllExecutors() {
  std::vector<Executor*> all = {&executor_};
  for (const auto& [pool, e] : pool_executors_) {
    if (std::find(all.begin(), all.end(), e) == all.end()) all.push_back(e);
  }
  return all;
}

void LiveQueue::Log(const std::string& line) const {
  // A line may quote what a user chose (a path, a marker's text): escaped for the terminal.
  std::fprintf(stderr, "squeeze serve: %s\n", EscapeControls(line).c_str());
}

ApiResult LiveQueue::CheckSubmission(const std::string& owner, const JobRequest& request) const {
  {
    std::lock_guard lock(feasibility_mu_);
    if (Status s = feasibility_->CheckFeasible(request.spec); !s.ok()) {
      return ApiResult::Fail(400, s.message());
    }
  }
  Result<std::string> account = options_.run_as.AccountFor(owner);
  if (!account.ok()) return ApiResult::Fail(403, account.status().message());
  // pool_executors_ is set before Recover and never again, so it is read here unlocked.
  bool all_here = true;
  const std::vector<PoolSpec>& pools = cluster_.spec.pools;
  for (size_t i = 0; i < pools.size(); ++i) {
    if (!request.spec.pool.empty() && pools[i].name != request.spec.pool) continue;
    all_here &= !pool_executors_.count(static_cast<int>(i));
  }
  if (!all_here) return ApiResult::Ok(nullptr);  // a Slurm node checks for itself
  JobRequest as = request;
  as.run_as = *account;
  if (Status s = executor_.CheckRunnable(as); !s.ok()) return ApiResult::Fail(400, s.message());
  return ApiResult::Ok(nullptr);
}

void LiveQueue::Add(const StoredJob& job) {
  std::lock_guard lock(inbox_mu_);
  inbox_.push_back(job);
}

void LiveQueue::DrainInbox(Time now) {
  std::deque<StoredJob> batch;
  {
    std::lock_guard lock(inbox_mu_);
    batch.swap(inbox_);
  }
  // They are counted as waiting at the next publication; their reservations end then.
  for (const StoredJob& stored : batch) waiting_.Arrived(stored.owner, stored.request.spec.team);
  // In id order (the order they were stored in), after those deferred before: a job comes
  // after those it may depend on.
  std::vector<StoredJob> arrived(std::make_move_iterator(deferred_.begin()),
                                 std::make_move_iterator(deferred_.end()));
  deferred_.clear();
  for (StoredJob& stored : batch) arrived.push_back(std::move(stored));
  std::sort(arrived.begin(), arrived.end(),
            [](const StoredJob& a, const StoredJob& b) { return a.id < b.id; });
  for (StoredJob& stored : arrived) {
    // Submitted while Recover ran: it may have read the job from the store already.
    if (jobs_.count(stored.id)) continue;
    if (!stored.request.spec.dependencies.empty() && DependsOnUnseen(stored.request)) {
      deferred_.push_back(std::move(stored));
      continue;
    }
    LiveJob& job = jobs_[stored.id];
    job.request = std::move(stored.request);
    job.owner = stored.owner;
    job.queued_since = stored.submitted_at;
    job.held = stored.held;
    Arrive(stored.id, job, job.request.begin, /*started=*/false, now);
  }
}

// Into the scheduler's queue; a job it refuses (the cluster changed under it) fails at once.
void LiveQueue::Queue(JobId id, LiveJob& job, Time now) {
  job.retry_at.reset();
  job.stopping = Stopping::kNo;
  job.killed_at_leave_by = false;
  JobSpec spec = job.request.spec;
  spec.id = id;
  Status s = scheduler_->Submit(spec, now);
  if (s.ok()) return;
  Log("job " + std::to_string(id) + " cannot be scheduled: " + s.message());
  (void)store_.SetState(id, JobState::kFailed, "cannot be scheduled: " + s.message(), now);
  ++counters_.finished_failed;
  Forget(id, false);
}

std::vector<ExecEvent> LiveQueue::PollExecutors(Time now) {
  // The backends are asked before the lock is taken (a slow squeue or scontrol holds up no
  // API call); pool_executors_ does not change after Recover. A start carried out since is
  // seen at the next step.
  if (polls_) return polls_->Take();
  std::vector<ExecEvent> events;
  for (Executor* executor : AllExecutors()) {
    for (ExecEvent& e : executor->Poll(now)) events.push_back(std::move(e));
  }
  return events;
}

void LiveQueue::PollInBackground(std::function<Time()> clock) {
  polls_ = std::make_unique<ExecutorPolls>(AllExecutors(), std::move(clock),
                                           [this] { if (wake_) wake_(); });
}

std::optional<Time> LiveQueue::StepIfEvents(Time now) {
  std::vector<ExecEvent> events = PollExecutors(now);
  if (events.empty()) return std::nullopt;
  return StepWith(now, events);
}

Time LiveQueue::Step(Time now) { return StepWith(now, PollExecutors(now)); }

Time LiveQueue::StepWith(Time now, const std::vector<ExecEvent>& events) {
  std::lock_guard lock(mu_);
  PublishAtExit publish{*this};
  // What the step records (run ends, checkpoints, retries, stops, events) goes into one
  // commit, made before its starts are recorded (in a commit of their own) and carried out.
  JobStore::WriteBatch writes = store_.BeginWrites();
  DrainInbox(now);
  ApplyDispatched(now);
  for (const ExecEvent& e : events) {
    if (!jobs_.count(e.id)) continue;  // not ours any more (should not happen)
    if (e.kind == ExecEvent::Kind::kCheckpoint) {
      OnCheckpoint(e.id, e.checkpoint, now);
    } else {
      OnExit(e.id, e.exit, now);
    }
  }
  ApplyBackendReports(now);
  UpdateHeldIdle(now);
  EnforceTimeLimits(now);
  TerminateOverdue(now);
  QueueDueRetries(now);
  ApplyDependencies(now);
  std::vector<Decision> starts;
  for (Decision& d : scheduler_->Cycle(now)) {
    if (d.kind == Decision::Kind::kStart) {
      starts.push_back(std::move(d));
    } else {
      StopJob(d, now);
    }
  }
  if (Status s = writes.Commit(); !s.ok()) {
    Log("the step's records (run ends, checkpoints, events) could not be stored: " + s.message());
  }
  StartJobs(starts, now);
  // Exits and checkpoints are found by polling: poll often while anything runs (counted after
  // this cycle's starts, so a short job's end is seen within a second).
  size_t running = 0;
  for (Executor* executor : AllExecutors()) running += executor->RunningCount();
  {
    std::lock_guard outboxes(outboxes_mu_);
    for (const auto& [executor, outbox] : outboxes_) running += outbox->Unfinished();
  }
  runs_active_ = running > 0;
  Time next = now + (running > 0 ? 1 : options_.idle_poll);
  if (!pool_executors_.empty()) next = std::min(next, now + 2);  // their nodes' states change
  next = std::min(next, scheduler_->NextWakeup());
  if (!retries_.empty()) next = std::min(next, retries_.begin()->first);
  for (const auto& [id, job] : jobs_) {
    if (job.stopping == Stopping::kAwaitCheckpoint) next = std::min(next, job.stop_deadline);
    if (job.stopping != Stopping::kNo && !job.killed_at_leave_by) {
      next = std::min(next, LeaveBy(id));
    }
  }
  return std::max(next, now);
}

void LiveQueue::OnCheckpoint(JobId id, const std::string& label, Time now) {
  LiveJob& job = jobs_[id];
  job.has_checkpoint = true;
  ++counters_.checkpoints;
  if (Status s = store_.RecordCheckpoint(id, now, label); !s.ok()) Log(s.message());
  (void)scheduler_->Checkpointed(id, now);  // victims: the least work since a checkpoint
  if (job.stopping == Stopping::kAwaitCheckpoint && job.timed_out) {
    // Saved ahead of its time limit: it may go on until the limit (EnforceTimeLimits).
    job.stopping = Stopping::kNo;
    (void)store_.SetState(id, JobState::kRunning,
                          "checkpointed ahead of its time limit; stopped at the limit", now);
  } else if (job.stopping == Stopping::kAwaitCheckpoint) {
    // The checkpoint the stop asked for (or one that came first): now leave.
    job.stopping = Stopping::kTerminating;
    Terminate(id, job, now);
  }
}

void LiveQueue::OnExit(JobId id, const ExitStatus& exit, Time now) {
  LiveJob& job = jobs_[id];
  job.start_pending = false;  // its start was carried out (its result may come after)
  const int code = ExitCode(exit);
  if (job.cancelled) {
    if (scheduler_->Find(id)) (void)scheduler_->Cancel(id, now);  // its GPUs are free now
    RunEnd end{code, JobState::kCancelled, "cancelled by " + job.cancelled_by, false,
               job.failures, std::nullopt};
    if (Status s = store_.RecordRunEnd(id, end, now); !s.ok()) Log(s.message());
    ++counters_.cancelled;
    Forget(id, false);
    return;
  }
  if (job.timed_out) {
    EndTimedOut(id, job, code, now);
    return;
  }
  if (job.stopping != Stopping::kNo || job.requeue_on_exit) {
    // Asked to stop: whatever it exits with, it waits again and resumes from its checkpoint.
    const bool slice = IsSliceEnd(job.stop_reason);
    std::string reason = job.stop_reason.empty() ? "stopped" : job.stop_reason;
    reason += job.has_checkpoint ? "; resumes from its checkpoint" : "; restarts from the start";
    RunEnd end{code, JobState::kPending, reason, !slice, job.failures, std::nullopt};
    if (Status s = store_.RecordRunEnd(id, end, now); !s.ok()) Log(s.message());
    slice ? ++counters_.slice_ends : ++counters_.preemptions;
    job.requeue_on_exit = false;
    job.queued_since = now;
    const Job* known = scheduler_->Find(id);
    if (known != nullptr && known->state == JobState::kCheckpointing) {
      if (Status s = scheduler_->Stopped(id, now); !s.ok()) Log(s.message());
      job.stopping = Stopping::kNo;
      return;
    }
    // Taken back after a restart while it was stopping: the scheduler thinks it runs. It
    // waits again with its history; it did not complete, so nothing is learned from it.
    RequeueRun(id, job, now);  // may forget `job`
    return;
  }
  if (exit.lost) {
    OnLost(id, job, exit, now);
    return;
  }
  if (exit.Succeeded()) {
    (void)scheduler_->Finished(id, now, true);
    RunEnd end{0, JobState::kDone, "", false, job.failures, std::nullopt};
    if (Status s = store_.RecordRunEnd(id, end, now); !s.ok()) Log(s.message());
    ++counters_.finished_done;
    Forget(id, true);
    return;
  }
  Fail(id, job, code, ExitReason(exit), now);
}

void LiveQueue::RequeueRun(JobId id, LiveJob& job, Time now, Time back_at) {
  job.stopping = Stopping::kNo;
  job.killed_at_leave_by = false;
  const Job* known = scheduler_->Find(id);
  if (known != nullptr && known->IsActive()) {
    Status s = scheduler_->Requeue(id, now, back_at);
    if (s.ok()) return;
    Log("job " + std::to_string(id) + ": " + s.message());
  }
  if (back_at <= now) Queue(id, job, now);  // may forget `job`
}

void LiveQueue::Fail(JobId id, LiveJob& job, int exit_code, const ReasonText& what, Time now) {
  ++counters_.failures;
  ++job.failures;
  const int limit = job.request.max_retries >= 0 ? job.request.max_retries : options_.max_retries;
  if (job.failures > limit) {
    if (const Job* known = scheduler_->Find(id); known != nullptr && known->IsActive()) {
      (void)scheduler_->Finished(id, now, false);
    }
    const ReasonText reason =
        what.Then(limit > 0 ? " (no retry left after " + std::to_string(limit) + ")" : "");
    RunEnd end{exit_code, JobState::kFailed, reason.shown, false, job.failures, std::nullopt,
               reason.detail};
    if (Status s = store_.RecordRunEnd(id, end, now); !s.ok()) Log(s.message());
    ++counters_.finished_failed;
    Forget(id, false);
    return;
  }
  Time backoff = options_.retry_backoff;
  for (int i = 1; i < job.failures && backoff < options_.retry_backoff_max; ++i) backoff *= 2;
  backoff = std::min(backoff, options_.retry_backoff_max);
  const Time at = now + backoff;
  const ReasonText reason = what.Then("; retry " + std::to_string(job.failures) + " of " +
                                      std::to_string(limit) + " at " + FormatDateTime(at));
  RunEnd end{exit_code, JobState::kPending, reason.shown, false, job.failures, at, reason.detail};
  if (Status s = store_.RecordRunEnd(id, end, now); !s.ok()) Log(s.message());
  ++counters_.retries;
  job.retry_at = at;
  job.queued_since = at;
  retries_.insert({at, id});
  // The scheduler keeps it (its attained service, its last checkpoint) out of the queue until
  // then; a job it does not hold (taken back in its back-off at a restart) is queued at `at`.
  RequeueRun(id, job, now, at);
}

void LiveQueue::QueueDueRetries(Time now) {
  while (!retries_.empty() && retries_.begin()->first <= now) {
    const JobId id = retries_.begin()->second;
    retries_.erase(retries_.begin());
    auto it = jobs_.find(id);
    if (it == jobs_.end() || !it->second.retry_at) continue;
    if (scheduler_->Find(id)) {
      it->second.retry_at.reset();  // the scheduler queued it again itself (Requeue)
    } else {
      Queue(id, it->second, now);
    }
  }
}

void LiveQueue::StartJobs(const std::vector<Decision>& starts, Time now) {
  if (starts.empty()) return;
  // Recorded first, all in one transaction: a run file without a record cannot happen, so a
  // restart never starts a run the store does not know of.
  const ClusterState& cs = scheduler_->cluster();
  std::vector<JobStore::Start> records;
  for (const Decision& d : starts) {
    const std::string pool =
        d.placement.empty() ? "" : cs.spec().pools[cs.node(d.placement.shares[0].node).pool].name;
    records.push_back({d.job, jobs_[d.job].attempts + 1, cluster_.CudaIndices(d.placement), pool});
  }
  if (Status s = store_.RecordStarts(records, now); s.ok()) {
    for (const Decision& d : starts) StartJob(d, now);
    return;
  }
  // One at a time, so that one that cannot be recorded holds back no other.
  for (size_t i = 0; i < starts.size(); ++i) {
    const JobStore::Start& r = records[i];
    if (Status s = store_.RecordStart(r.id, r.attempt, r.gpus, now, r.pool); !s.ok()) {
      Log("job " + std::to_string(r.id) + ": cannot record its start: " + s.message());
      RequeueRun(r.id, jobs_[r.id], now);
      continue;
    }
    StartJob(starts[i], now);
  }
}

// A start the store has recorded (attempt `attempts` + 1), given to its backend's outbox.
void LiveQueue::StartJob(const Decision& d, Time now) {
  LiveJob& job = jobs_[d.job];
  const int attempt = job.attempts + 1;
  started_since_.push_back(d.job);  // `after` dependencies (a second start changes nothing)
  job.cuda_gpus = cluster_.CudaIndices(d.placement);
  job.attempts = attempt;
  const Time waited = std::max<Time>(0, now - job.queued_since);
  size_t b = 0;
  while (b < kWaitBounds.size() && waited > kWaitBounds[b]) ++b;
  ++counters_.wait_counts[b];
  counters_.wait_sum += static_cast<double>(waited);
  ++counters_.starts;
  job.exec = &ExecutorFor(d.placement);
  job.placed_because = d.reason;
  // The job learns where it runs and where its data lives (a staging step may copy it).
  JobRequest request = job.request;
  const ClusterSpec& spec = scheduler_->cluster().spec();
  const int pool = scheduler_->cluster().node(d.placement.shares.front().node).pool;
  if (!d.reason.empty()) {
    // Why it starts outside its home region, or on capacity that may be taken away.
    const PoolKind kind = spec.pools[pool].kind;
    const bool takeable = kind == PoolKind::kSpot || kind == PoolKind::kColocated;
    (void)store_.AppendEvent(d.job, now, takeable ? "placed" : "region", d.reason);
  }
  request.env["SQUEEZE_REGION"] = spec.pools[pool].region;
  if (const int home = spec.PoolIndex(request.spec.pool); home >= 0) {
    request.env["SQUEEZE_HOME_REGION"] = spec.pools[home].region;
  }
  AddPlacementEnv(d, job.cuda_gpus, request);
  // Checked again at each start: a job stored before the account went, or by an older daemon.
  Result<std::string> account = options_.run_as.AccountFor(job.owner);
  if (!account.ok()) {
    Log("job " + std::to_string(d.job) + ": " + account.status().message());
    Fail(d.job, job, 127, StartFailure(account.status()), now);
    return;
  }
  request.run_as = *account;
  // Carried out by the backend's outbox; a failure comes back at a later step (ApplyDispatched).
  job.start_pending = true;
  Executor* executor = job.exec;
  const JobId id = d.job;
  RunPlace place{job.cuda_gpus, {}};
  for (const NodeShare& share : d.placement.shares) {
    place.nodes.push_back({spec.nodes[share.node].name, share.gpus});
  }
  OutboxOf(*executor).Push(
      id, attempt, Outbox::Kind::kStart,
      [executor, id, attempt, request = std::move(request), place = std::move(place),
       resume = job.has_checkpoint] {
        Result<RunInfo> run = executor->Start(id, attempt, request, place, resume);
        return run.ok() ? Status::Ok() : run.status();
      });
}

void LiveQueue::StopJob(const Decision& d, Time now) {
  LiveJob& job = jobs_[d.job];
  if (job.cancelled) return;  // already on its way out; its exit ends it cancelled
  job.stop_reason = d.reason;
  if (job.request.spec.checkpointable) {
    // Asked through the outbox (after the start, if that is still on its way); a request that
    // fails becomes a plain stop (ApplyDispatched).
    Executor* executor = &ExecutorOf(job);
    const JobId id = d.job;
    OutboxOf(*executor).Push(id, job.attempts, Outbox::Kind::kCheckpoint,
                             [executor, id] { return executor->RequestCheckpoint(id); });
    job.stopping = Stopping::kAwaitCheckpoint;
    // A job whose GPUs are taken away (a reclaim, inference) waits no longer than it may stay.
    job.stop_deadline = std::min(
        now + std::max(options_.checkpoint_grace, job.request.spec.checkpoint_cost), LeaveBy(d.job));
    if (Status s = store_.SetState(d.job, JobState::kCheckpointing, d.reason, now); !s.ok()) {
      Log(s.message());
    }
    return;
  }
  job.stopping = Stopping::kTerminating;
  Terminate(d.job, job, now);
  (void)store_.AppendEvent(d.job, now, "stop", d.reason);
}

Time LiveQueue::LeaveBy(JobId id) const {
  const Job* known = scheduler_->Find(id);
  return known == nullptr ? kNever : known->must_leave_by;
}

void LiveQueue::Terminate(JobId id, LiveJob& job, Time now) {
  Time grace = options_.stop_grace;
  if (const Time by = LeaveBy(id); by != kNever) grace = std::clamp<Time>(by - now, 0, grace);
  SendStop(id, job, now, grace);
}

void LiveQueue::EnforceTimeLimits(Time now) {
  for (auto& [id, job] : jobs_) {
    const std::optional<Time> limit = job.request.spec.time_limit;
    if (!limit || job.cancelled || job.killed_at_leave_by) continue;
    const Job* known = scheduler_->Find(id);
    if (known == nullptr || !known->IsActive() || !HasRun(id, job)) continue;
    const Time limit_at = known->run_start + *limit;
    const std::string why = "time limit " + FormatDuration(*limit) + " reached";
    if (now >= limit_at) {
      // Its time is up, whatever it was doing (a checkpoint, a stop asked for another reason).
      if (job.timed_out && job.stopping == Stopping::kTerminating) continue;
      job.timed_out = true;
      job.stopping = Stopping::kTerminating;
      (void)store_.AppendEvent(id, now, "stop", why + "; SIGTERM");
      Terminate(id, job, now);
      continue;
    }
    if (job.timed_out || job.stopping != Stopping::kNo || !job.request.spec.checkpointable) {
      continue;
    }
    // A checkpoint asked for ahead of the limit, by what one takes (or the daemon's grace),
    // at most half the limit before it.
    const Time lead = std::min(*limit / 2, std::max(options_.checkpoint_grace,
                                                    job.request.spec.checkpoint_cost));
    if (now < limit_at - lead) continue;
    job.timed_out = true;
    job.stop_reason = why;
    Executor* executor = &ExecutorOf(job);
    const JobId job_id = id;
    OutboxOf(*executor).Push(id, job.attempts, Outbox::Kind::kCheckpoint,
                             [executor, job_id] { return executor->RequestCheckpoint(job_id); });
    job.stopping = Stopping::kAwaitCheckpoint;
    job.stop_deadline = limit_at;
    if (Status s = store_.SetState(id, JobState::kCheckpointing,
                                   why + " at " + FormatDateTime(limit_at) + "; checkpointing",
                                   now);
        !s.ok()) {
      Log(s.message());
    }
  }
}

void LiveQueue::EndTimedOut(JobId id, LiveJob& job, int exit_code, Time now) {
  if (const Job* known = scheduler_->Find(id); known != nullptr && known->IsActive()) {
    (void)scheduler_->Finished(id, now, false);
  }
  std::string reason = "time limit " + FormatDuration(*job.request.spec.time_limit) + " reached";
  reason += job.has_checkpoint ? "; its last checkpoint is kept" : "; no checkpoint";
  RunEnd end{exit_code, JobState::kTimeout, reason, false, job.failures, std::nullopt};
  if (Status s = store_.RecordRunEnd(id, end, now); !s.ok()) Log(s.message());
  ++counters_.timed_out;
  Forget(id, false);
}

void LiveQueue::TerminateOverdue(Time now) {
  for (auto& [id, job] : jobs_) {
    if (job.stopping == Stopping::kNo) continue;
    const Time leave_by = LeaveBy(id);
    if (job.stopping == Stopping::kAwaitCheckpoint && now >= job.stop_deadline) {
      job.stopping = Stopping::kTerminating;
      (void)store_.AppendEvent(id, now, "stop",
                               now >= leave_by
                                   ? "no checkpoint before it had to leave; SIGTERM and SIGKILL"
                                   : "no checkpoint within the grace period; SIGTERM");
      Terminate(id, job, now);
    }
    if (now >= leave_by && !job.killed_at_leave_by && HasRun(id, job)) {
      // Its GPUs are taken away now: whatever it is doing, it goes (SIGKILL at the next poll).
      job.killed_at_leave_by = true;
      SendStop(id, job, now, 0);
    }
  }
}

ApiResult LiveQueue::Cancel(const Principal& who, JobId id, Time now) {
  std::lock_guard lock(mu_);
  PublishAtExit publish{*this};
  DrainInbox(now);
  ApiResult result = CancelLocked(who, id, now);
  ApplyDependencies(now);
  return result;
}

ApiResult LiveQueue::CancelMany(const Principal& who, const std::vector<JobId>& ids, Time now) {
  std::lock_guard lock(mu_);
  PublishAtExit publish{*this};
  JobStore::WriteBatch writes = store_.BeginWrites();
  DrainInbox(now);
  nlohmann::json jobs = nlohmann::json::array();
  int done = 0;
  for (JobId id : ids) {
    ApiResult one = CancelLocked(who, id, now);
    if (one.error) {
      jobs.push_back({{"id", id}, {"error", one.error->message}});
    } else {
      jobs.push_back(one.value);
      ++done;
    }
  }
  ApplyDependencies(now);
  if (Status s = writes.Commit(); !s.ok()) return ApiResult::Fail(s);
  if (done == 0 && !ids.empty()) {
    return ApiResult::Fail(409, jobs[0]["error"].get<std::string>());
  }
  return ApiResult::Ok({{"jobs", std::move(jobs)}, {"cancelled", done}});
}

ApiResult LiveQueue::CancelLocked(const Principal& who, JobId id, Time now) {
  auto found = Controlled(who, id, "cancel", /*cancelling_ok=*/true);
  if (auto* answer = std::get_if<ApiResult>(&found)) return *answer;
  LiveJob& job = *std::get<LiveJob*>(found);
  if (job.cancelled) return ApiResult::Ok({{"id", id}, {"state", "cancelling"}});
  if (job.retry_at) retries_.erase({*job.retry_at, id});
  if (HasRun(id, job)) {
    // Its GPUs stay taken until its process has exited (OnExit gives them back), so no other
    // job starts on them while it still runs. A start still in the outbox is stopped once it
    // is carried out (or ends cancelled if it fails).
    job.cancelled = true;
    job.cancelled_by = who.user;
    SendStop(id, job, now, options_.stop_grace);
    (void)store_.AppendEvent(id, now, "cancel", "cancel asked by " + who.user + "; SIGTERM sent");
    return ApiResult::Ok({{"id", id}, {"state", "cancelling"}});
  }
  if (Status s = EndCancelled(id, who.user, now); !s.ok()) return ApiResult::Fail(s);
  return ApiResult::Ok({{"id", id}, {"state", "cancelled"}});
}

Status LiveQueue::EndCancelled(JobId id, const std::string& by, Time now) {
  if (scheduler_->Find(id)) (void)scheduler_->Cancel(id, now);
  if (Status s = store_.SetState(id, JobState::kCancelled, "cancelled by " + by, now); !s.ok()) {
    return s;
  }
  ++counters_.cancelled;
  Forget(id, false);
  return Status::Ok();
}

}  // namespace squeeze
