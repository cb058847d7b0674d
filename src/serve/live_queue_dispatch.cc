// LiveQueue and the journal: what a section under the scheduling lock decided (records,
// starts, checkpoint requests, stops) goes into effects_, joins the journal (journal.h) before
// the lock is let go, and is carried out after it: the records in one group commit, then the
// work to each backend's outbox; what the outboxes carried out comes back at the next step.
#include <algorithm>

#include "serve/live_queue.h"
#include "serve/reason_text.h"

namespace squeeze {

Outbox& LiveQueue::OutboxOf(Executor& executor) {
  MutexLock lock(outboxes_mu_);
  std::unique_ptr<Outbox>& outbox = outboxes_[&executor];
  if (!outbox) {
    outbox = std::make_unique<Outbox>(options_.dispatch_workers, [this](const Outbox::Done& d) {
      if (!d.status.ok() && wake_) wake_();
    });
  }
  return *outbox;
}

uint64_t LiveQueue::AppendEffects() {
  const uint64_t ticket = journal_->Append(std::exchange(effects_, Effects()));
  for (auto& [id, end] : recent_ends_) {
    if (end.second == 0) end.second = ticket;
  }
  // Those the journal is past are in the store now (a ticket of 0: nothing was to be stored).
  const uint64_t done = journal_->done_through();
  std::erase_if(recent_ends_, [&](const auto& e) { return e.second.second <= done; });
  return ticket;
}

ApiResult LiveQueue::Decided(const std::function<ApiResult()>& decide) {
  ApiResult result;
  uint64_t ticket = 0;
  {
    MutexLock lock(mu_);
    AwaitRecovery(lock);
    PublishAtExit publish{*this};
    result = decide();
    ticket = AppendEffects();
  }
  Status stored = journal_->CarryOut(ticket);
  if (!stored.ok() && !result.error) return ApiResult::Fail(stored);
  return result;
}

std::optional<bool> LiveQueue::EndedHere(JobId t) const {
  auto it = recent_ends_.find(t);
  if (it == recent_ends_.end()) return std::nullopt;
  return it->second.first;
}

void LiveQueue::ApplyUnrecorded(Time now) {
  for (const Journal::Unrecorded& u : journal_->TakeUnrecorded()) {
    auto it = jobs_.find(u.job);
    if (it == jobs_.end() || it->second.attempts != u.attempt) continue;
    LiveJob& job = it->second;
    // The store does not know of this attempt: it never ran, and counts for nothing.
    job.start_pending = false;
    job.attempts = u.attempt - 1;
    if (job.cancelled) {
      EndCancelled(u.job, job.cancelled_by, now);
      continue;
    }
    RequeueRun(u.job, job, now);  // may forget `job`
  }
}

void LiveQueue::WaitForDispatch() {
  (void)journal_->CarryOutAll();
  std::vector<Outbox*> all;
  {
    MutexLock lock(outboxes_mu_);
    for (auto& [executor, outbox] : outboxes_) all.push_back(outbox.get());
  }
  for (Outbox* outbox : all) outbox->WaitIdle();
}

size_t LiveQueue::StopDispatch() {
  journal_->StopThread();  // what was decided is stored (and handed to the outboxes) first
  if (polls_) polls_->Stop();
  MutexLock lock(outboxes_mu_);
  size_t dropped = 0;
  for (auto& [executor, outbox] : outboxes_) dropped += outbox->Close();
  return dropped;
}

void LiveQueue::ApplyDispatched(Time now) {
  std::vector<Outbox::Done> done;
  {
    MutexLock lock(outboxes_mu_);
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
          EndCancelled(d.job, job.cancelled_by, now);
          break;
        }
        Fail(d.job, job, 127, StartFailure(d.status), now);
        break;
      case Outbox::Kind::kCheckpoint:
        if (d.status.ok() || job.stopping != Stopping::kAwaitCheckpoint) break;
        job.stopping = Stopping::kTerminating;
        Terminate(d.job, job, now);
        Record([id = d.job, now, text = job.stop_reason + "; no checkpoint asked (" +
                                      d.status.message() + "); SIGTERM"](JobStore& s) {
          return s.AppendEvent(id, now, "stop", text);
        });
        break;
      case Outbox::Kind::kStop:
        break;  // a run that had ended already; its exit is reported by the executor
    }
  }
}

void LiveQueue::SendStop(JobId id, LiveJob& job, Time now, Time grace) {
  Executor* executor = &ExecutorOf(job);
  effects_.Dispatch(OutboxOf(*executor), id, job.attempts, Outbox::Kind::kStop,
                    [executor, id, now, grace] { return executor->Stop(id, now, grace); });
}

void LiveQueue::StartJobs(const std::vector<Decision>& starts, Time now) {
  // Each is recorded before it is carried out: the journal stores the records of the step in
  // one commit and gives a start to its outbox only once its record is durable, so a run file
  // without a record cannot happen and a restart never starts a run the store does not know.
  for (const Decision& d : starts) StartJob(d, now);
}

// A start the store has recorded (attempt `attempts` + 1), given to its backend's outbox.
void LiveQueue::StartJob(const Decision& d, Time now) {
  LiveJob& job = jobs_[d.job];
  const int attempt = job.attempts + 1;
  started_since_.push_back(d.job);  // `after` dependencies (a second start changes nothing)
  job.cuda_gpus = cluster_.CudaIndices(d.placement);
  job.attempts = attempt;
  const double waited_s = ToSeconds(std::max<Time>(0, now - job.queued_since));
  size_t b = 0;
  while (b < kWaitBounds.size() && waited_s > kWaitBounds[b]) ++b;  // (bounds in seconds)
  ++counters_.wait_counts[b];
  counters_.wait_sum += waited_s;
  ++counters_.starts;
  job.exec = &ExecutorFor(d.placement);
  // Its process starts when the backend launches it: its slice counts from then (OnLaunched).
  if (job.exec->ReportsLaunches()) (void)scheduler_->AwaitLaunch(d.job);
  job.placed_because = d.reason;
  // The job learns where it runs and where its data lives (a staging step may copy it).
  JobRequest request = job.request;
  const ClusterSpec& spec = scheduler_->cluster().spec();
  const int pool = scheduler_->cluster().node(d.placement.shares.front().node).pool;
  if (!d.reason.empty()) {
    // Why it starts outside its home region, or on capacity that may be taken away.
    const PoolKind kind = spec.pools[pool].kind;
    const bool takeable = kind == PoolKind::kSpot || kind == PoolKind::kColocated;
    Record([id = d.job, now, kind = takeable ? "placed" : "region", text = d.reason](JobStore& s) {
      return s.AppendEvent(id, now, kind, text);
    });
  }
  request.env["SQUEEZE_REGION"] = spec.pools[pool].region;
  if (const int home = spec.PoolIndex(request.spec.pool); home >= 0) {
    request.env["SQUEEZE_HOME_REGION"] = spec.pools[home].region;
  }
  AddPlacementEnv(d, job.cuda_gpus, request);
  // Carried out by the backend's outbox once recorded; a failure comes back at a later step
  // (ApplyDispatched).
  job.start_pending = true;
  Executor* executor = job.exec;
  const JobId id = d.job;
  RunPlace place{job.cuda_gpus, {}};
  for (const NodeShare& share : d.placement.shares) {
    place.nodes.push_back({spec.nodes[share.node].name, share.gpus});
  }
  JobStore::Start record{id, attempt, job.cuda_gpus, spec.pools[pool].name};
  effects_.Start(
      [record, now](JobStore& s) { return s.RecordStarts({record}, now); }, OutboxOf(*executor),
      id, attempt,
      [executor, id, attempt, request = std::move(request), place = std::move(place),
       resume = job.has_checkpoint, run_as = &options_.run_as, owner = job.owner]() mutable {
        // Checked again at each start, off the lock (an account lookup may be slow): a job
        // stored before the account went, or by an older daemon.
        Result<std::string> account = run_as->AccountFor(owner);
        if (!account.ok()) return account.status();
        request.run_as = *account;
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
    effects_.Dispatch(OutboxOf(*executor), id, job.attempts, Outbox::Kind::kCheckpoint,
                      [executor, id] { return executor->RequestCheckpoint(id); });
    job.stopping = Stopping::kAwaitCheckpoint;
    // A job whose GPUs are taken away (a reclaim, inference) waits no longer than it may stay.
    job.stop_deadline = std::min(
        now + std::max(options_.checkpoint_grace, job.request.spec.checkpoint_cost), LeaveBy(d.job));
    Record([id = d.job, now, why = d.reason](JobStore& s) {
      return s.SetState(id, JobState::kCheckpointing, why, now);
    });
    return;
  }
  job.stopping = Stopping::kTerminating;
  Terminate(d.job, job, now);
  Record([id = d.job, now, why = d.reason](JobStore& s) {
    return s.AppendEvent(id, now, "stop", why);
  });
}

void LiveQueue::RecordRunEnd(JobId id, const RunEnd& end, Time now) {
  Record([id, end, now](JobStore& s) { return s.RecordRunEnd(id, end, now); });
}

}  // namespace squeeze
