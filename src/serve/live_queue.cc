#include "serve/live_queue.h"

#include <algorithm>
#include <cstdio>

#include "config/job_values.h"
#include "core/duration.h"
#include "core/safe_text.h"
#include "serve/reason_text.h"

namespace squeeze {

LiveQueue::LiveQueue(LocalCluster cluster, const Policy& policy, JobStore& store,
                     Executor& executor, LiveQueueOptions options)
    : cluster_(std::move(cluster)), store_(store), executor_(executor),
      options_(std::move(options)), held_idle_(options_.held_idle),
      forecasts_(WhyForecasts::Options{options_.forecast_in_background, kMinute, {30 * kDay, 1000}}) {
  counters_.wait_counts.assign(kWaitBounds.size() + 1, 0);
  journal_ = std::make_unique<Journal>(
      store_, [this](const std::string& line) { Log(line); }, [this] { if (wake_) wake_(); });
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
  // A job's gpu_speeds are its owner's claim: they choose its cards, never its progress or rank.
  (*scheduler)->CountProgressAtClusterSpeeds();
  q->scheduler_ = std::move(scheduler).value();
  q->intake_ = std::make_unique<Intake>(std::move(feasibility).value(), q->cluster_.spec.pools,
                                        q->options_.run_as, q->executor_);
  return q;
}

LiveQueue::~LiveQueue() { StopDispatch(); }

void LiveQueue::SetPoolExecutor(int pool, Executor& executor) {
  MutexLock lock(mu_);
  PublishAtExit publish{*this};
  pool_executors_[pool] = &executor;
  intake_->SetRemotePool(pool);
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

void LiveQueue::DrainInbox(Time now) {
  std::deque<StoredJob> batch = intake_->TakeAll();
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
  Record([id, now, why = "cannot be scheduled: " + s.message()](JobStore& store) {
    return store.SetState(id, JobState::kFailed, why, now);
  });
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
  Time next = now;
  uint64_t ticket = 0;
  {
    MutexLock lock(mu_);
    PublishAtExit publish{*this};
    next = Decide(now, events);
    ticket = AppendEffects();
  }
  // What the step decided (run ends, checkpoints, retries, stops, events, starts), stored in
  // one commit and then carried out, with the lock let go (a record's error is logged): by the
  // journal's thread when it has one, else here.
  if (journal_->threaded()) {
    journal_->Kick();
  } else {
    (void)journal_->CarryOut(ticket);
  }
  return next;
}

Time LiveQueue::Decide(Time now, const std::vector<ExecEvent>& events) {
  DrainInbox(now);
  ApplyDispatched(now);
  ApplyUnrecorded(now);
  for (const ExecEvent& e : events) {
    if (!jobs_.count(e.id)) continue;  // not ours any more (should not happen)
    if (e.kind == ExecEvent::Kind::kCheckpoint) {
      OnCheckpoint(e.id, e.checkpoint, now);
    } else if (e.kind == ExecEvent::Kind::kStarted) {
      OnLaunched(e.id, e.attempt, now);
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
  StartJobs(starts, now);
  // Exits and checkpoints are found by polling: poll often while anything runs (counted with
  // this cycle's starts, so a short job's end is seen within a second).
  size_t running = effects_.dispatches();
  for (Executor* executor : AllExecutors()) running += executor->RunningCount();
  {
    MutexLock outboxes(outboxes_mu_);
    for (const auto& [executor, outbox] : outboxes_) running += outbox->Unfinished();
  }
  runs_active_ = running > 0;
  Time next = now + (running > 0 ? kSecond : options_.idle_poll);
  // A Slurm pool's nodes' states change: looked at every 2 s.
  if (!pool_executors_.empty()) next = std::min(next, now + 2 * kSecond);
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

ApiResult LiveQueue::Cancel(const Principal& who, JobId id, Time now) {
  return Decided([&]() REQUIRES(mu_) {
    DrainInbox(now);
    ApiResult result = CancelLocked(who, id, now);
    ApplyDependencies(now);
    return result;
  });
}

ApiResult LiveQueue::CancelMany(const Principal& who, const std::vector<JobId>& ids, Time now) {
  // Their records are stored in one commit (the journal's).
  return Decided([&]() REQUIRES(mu_) {
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
    if (done == 0 && !ids.empty()) {
      return ApiResult::Fail(409, jobs[0]["error"].get<std::string>());
    }
    return ApiResult::Ok({{"jobs", std::move(jobs)}, {"cancelled", done}});
  });
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
    Record([id, now, text = "cancel asked by " + who.user + "; SIGTERM sent"](JobStore& s) {
      return s.AppendEvent(id, now, "cancel", text);
    });
    return ApiResult::Ok({{"id", id}, {"state", "cancelling"}});
  }
  EndCancelled(id, who.user, now);
  return ApiResult::Ok({{"id", id}, {"state", "cancelled"}});
}

void LiveQueue::EndCancelled(JobId id, const std::string& by, Time now) {
  if (scheduler_->Find(id)) (void)scheduler_->Cancel(id, now);
  Record([id, now, why = "cancelled by " + by](JobStore& s) {
    return s.SetState(id, JobState::kCancelled, why, now);
  });
  ++counters_.cancelled;
  Forget(id, false);
}

}  // namespace squeeze
