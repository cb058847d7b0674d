// LiveQueue and its runs: a checkpoint or an exit reported by the executor, a failed run's
// retry with back-off, and the time limits and stop deadlines that end runs.
#include <algorithm>

#include "config/job_values.h"
#include "core/duration.h"
#include "serve/live_queue.h"
#include "serve/marker_rate.h"
#include "serve/reason_text.h"

namespace squeeze {
namespace {

int ExitCode(const ExitStatus& e) { return e.signaled ? 128 + e.code : e.code; }

bool IsSliceEnd(const std::string& reason) { return reason.rfind("slice", 0) == 0; }
// An elastic job's stop to restart at another width (the shrink and grow actions' reasons).
bool IsResize(const std::string& reason) {
  return reason.rfind("shrunk from ", 0) == 0 || reason.rfind("grown from ", 0) == 0;
}

}  // namespace

void LiveQueue::OnCheckpoint(JobId id, const std::string& label, Time now) {
  LiveJob& job = jobs_[id];
  job.has_checkpoint = true;
  ++counters_.checkpoints;
  Record([id, now, label](JobStore& s) { return s.RecordCheckpoint(id, now, label); });
  (void)scheduler_->Checkpointed(id, now);  // victims: the least work since a checkpoint
  // An elastic job's rate at the width it runs at: its scaling as measured (ReportRate refuses
  // a job that is not elastic, which learns nothing).
  if (auto rate = MarkerRate(label)) (void)scheduler_->ReportRate(id, *rate);
  if (job.stopping == Stopping::kAwaitCheckpoint && job.timed_out) {
    // Saved ahead of its time limit: it may go on until the limit (EnforceTimeLimits).
    job.stopping = Stopping::kNo;
    Record([id, now](JobStore& s) {
      return s.SetState(id, JobState::kRunning,
                        "checkpointed ahead of its time limit; stopped at the limit", now);
    });
  } else if (job.stopping == Stopping::kAwaitCheckpoint) {
    // The checkpoint the stop asked for (or one that came first): now leave.
    job.stopping = Stopping::kTerminating;
    Terminate(id, job, now);
  }
}

void LiveQueue::OnLaunched(JobId id, int attempt, Time now) {
  const Job* known = scheduler_->Find(id);
  if (known == nullptr || !known->awaiting_launch || jobs_[id].attempts != attempt) return;
  const Time delay = now - known->run_start;
  if (Status s = scheduler_->Launched(id, now); !s.ok()) return Log(s.message());
  if (delay < kNotedLaunchDelay) return;
  const std::string text = "its script started " + std::to_string(WholeSeconds(delay)) +
                           " s after squeeze started attempt " + std::to_string(attempt) +
                           " (the backend's launch); its slice and minimum runtime count from "
                           "its start";
  Log("job " + std::to_string(id) + ": " + text);
  Record([id, now, text](JobStore& s) { return s.AppendEvent(id, now, "launched", text); });
}

void LiveQueue::OnExit(JobId id, const ExitStatus& exit, Time now) {
  LiveJob& job = jobs_[id];
  job.start_pending = false;  // its start was carried out (its result may come after)
  const int code = ExitCode(exit);
  if (job.cancelled) {
    if (scheduler_->Find(id)) (void)scheduler_->Cancel(id, now);  // its GPUs are free now
    RunEnd end{code, JobState::kCancelled, "cancelled by " + job.cancelled_by, false,
               job.failures, std::nullopt};
    RecordRunEnd(id, end, now);
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
    const bool resize = IsResize(job.stop_reason);
    std::string reason = job.stop_reason.empty() ? "stopped" : job.stop_reason;
    reason += job.has_checkpoint ? "; resumes from its checkpoint" : "; restarts from the start";
    RunEnd end{code, JobState::kPending, reason, !slice && !resize, job.failures, std::nullopt};
    RecordRunEnd(id, end, now);
    ++(slice ? counters_.slice_ends : resize ? counters_.resizes : counters_.preemptions);
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
    RecordRunEnd(id, end, now);
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
    RecordRunEnd(id, end, now);
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
  RecordRunEnd(id, end, now);
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
      Record([id = id, now, text = why + "; SIGTERM"](JobStore& s) {
        return s.AppendEvent(id, now, "stop", text);
      });
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
    effects_.Dispatch(OutboxOf(*executor), id, job.attempts, Outbox::Kind::kCheckpoint,
                      [executor, job_id] { return executor->RequestCheckpoint(job_id); });
    job.stopping = Stopping::kAwaitCheckpoint;
    job.stop_deadline = limit_at;
    Record([id = job_id, now,
            text = why + " at " + FormatDateTime(limit_at) + "; checkpointing"](JobStore& s) {
      return s.SetState(id, JobState::kCheckpointing, text, now);
    });
  }
}

void LiveQueue::EndTimedOut(JobId id, LiveJob& job, int exit_code, Time now) {
  if (const Job* known = scheduler_->Find(id); known != nullptr && known->IsActive()) {
    (void)scheduler_->Finished(id, now, false);
  }
  std::string reason = "time limit " + FormatDuration(*job.request.spec.time_limit) + " reached";
  reason += job.has_checkpoint ? "; its last checkpoint is kept" : "; no checkpoint";
  RunEnd end{exit_code, JobState::kTimeout, reason, false, job.failures, std::nullopt};
  RecordRunEnd(id, end, now);
  ++counters_.timed_out;
  Forget(id, false);
}

void LiveQueue::TerminateOverdue(Time now) {
  for (auto& [id, job] : jobs_) {
    if (job.stopping == Stopping::kNo) continue;
    const Time leave_by = LeaveBy(id);
    if (job.stopping == Stopping::kAwaitCheckpoint && now >= job.stop_deadline) {
      job.stopping = Stopping::kTerminating;
      Record([id = id, now, text = now >= leave_by
                                  ? "no checkpoint before it had to leave; SIGTERM and SIGKILL"
                                  : "no checkpoint within the grace period; SIGTERM"](JobStore& s) {
        return s.AppendEvent(id, now, "stop", text);
      });
      Terminate(id, job, now);
    }
    if (now >= leave_by && !job.killed_at_leave_by && HasRun(id, job)) {
      // Its GPUs are taken away now: whatever it is doing, it goes (SIGKILL at the next poll).
      job.killed_at_leave_by = true;
      SendStop(id, job, now, 0);
    }
  }
}

}  // namespace squeeze
