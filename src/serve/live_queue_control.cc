// LiveQueue's control of one job by its owner or an admin, as Slurm's scontrol gives it: hold
// and release a waiting job, requeue a running one, update what a job asks for.
#include <nlohmann/json.hpp>

#include "config/job_values.h"
#include "core/duration.h"
#include "serve/job_update.h"
#include "serve/live_queue.h"

namespace squeeze {

std::variant<LiveQueue::LiveJob*, ApiResult> LiveQueue::Controlled(const Principal& who, JobId id,
                                                                   std::string_view verb,
                                                                   bool cancelling_ok) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) {
    auto stored = store_.Get(id);
    if (!stored.ok()) return ApiResult::Fail(404, "no job " + std::to_string(id));
    if (stored->owner != who.user && !who.admin) {
      return ApiResult::Fail(403, "job " + std::to_string(id) + " belongs to " + stored->owner);
    }
    return ApiResult::Fail(409, "job " + std::to_string(id) + " has already ended (" +
                                    std::string(JobStateName(stored->state)) + ")");
  }
  LiveJob& job = it->second;
  if (job.owner != who.user && !who.admin) {
    return ApiResult::Fail(403, "job " + std::to_string(id) + " belongs to " + job.owner +
                                    "; only its owner or an admin may " + std::string(verb) +
                                    " it");
  }
  if (job.cancelled && !cancelling_ok) {
    return ApiResult::Fail(409, "job " + std::to_string(id) + " is being cancelled");
  }
  return &job;
}

void LiveQueue::Unqueue(JobId id, LiveJob& job, Time now) {
  if (job.retry_at) {
    retries_.erase({*job.retry_at, id});
    job.retry_at.reset();
  }
  if (const Job* known = scheduler_->Find(id); known != nullptr && !known->IsActive()) {
    (void)scheduler_->Cancel(id, now);  // out of the queue; the live job keeps its request
  }
}

ApiResult LiveQueue::Hold(const Principal& who, JobId id, Time now) {
  return Decided([&]() REQUIRES(mu_) -> ApiResult {
    DrainInbox(now);
    auto found = Controlled(who, id, "hold");
    if (auto* answer = std::get_if<ApiResult>(&found)) return *answer;
    LiveJob& job = *std::get<LiveJob*>(found);
    if (job.held) return ApiResult::Ok({{"id", id}, {"state", "pending"}, {"held", true}});
    if (HasRun(id, job)) {
      return ApiResult::Fail(409, "job " + std::to_string(id) +
                                      " runs; only a waiting job can be held (squeeze requeue " +
                                      std::to_string(id) + " puts it back in the queue)");
    }
    Unqueue(id, job, now);
    job.held = true;
    Record([id, now, by = "held by " + who.user](JobStore& s) {
      return s.SetHeld(id, true, by, now);
    });
    return ApiResult::Ok({{"id", id}, {"state", "pending"}, {"held", true}});
  });
}

ApiResult LiveQueue::Release(const Principal& who, JobId id, Time now) {
  return Decided([&]() REQUIRES(mu_) -> ApiResult {
    DrainInbox(now);
    auto found = Controlled(who, id, "release");
    if (auto* answer = std::get_if<ApiResult>(&found)) return *answer;
    LiveJob& job = *std::get<LiveJob*>(found);
    if (!job.held) return ApiResult::Fail(409, "job " + std::to_string(id) + " is not held");
    job.held = false;
    Record([id, now, by = "released by " + who.user](JobStore& s) {
      return s.SetHeld(id, false, by, now);
    });
    job.queued_since = now;
    if (job.dependency_wait) {
      return ApiResult::Ok({{"id", id}, {"state", "pending"}, {"held", false}});
    }
    Queue(id, job, now);  // may forget `job` (a cluster that can no longer run it)
    return ApiResult::Ok({{"id", id}, {"state", "pending"}, {"held", false}});
  });
}

ApiResult LiveQueue::Requeue(const Principal& who, JobId id, Time now) {
  return Decided([&]() REQUIRES(mu_) -> ApiResult {
    DrainInbox(now);
    if (!jobs_.count(id)) return RequeueEnded(who, id, now);
    auto found = Controlled(who, id, "requeue");
    if (auto* answer = std::get_if<ApiResult>(&found)) return *answer;
    LiveJob& job = *std::get<LiveJob*>(found);
    const Job* known = scheduler_->Find(id);
    if (known == nullptr || !known->IsActive() || !HasRun(id, job)) {
      return ApiResult::Fail(409, "job " + std::to_string(id) + " does not run; only a running "
                                                                 "job can be requeued");
    }
    if (job.stopping != Stopping::kNo) {
      return ApiResult::Ok({{"id", id}, {"state", "stopping"}});  // on its way out already
    }
    // As a preemption: a checkpoint first when it can make one, then it waits again.
    const std::string why = "requeued by " + who.user;
    job.stop_reason = why;
    job.requeue_on_exit = true;
    if (job.request.spec.checkpointable) {
      Executor* executor = &ExecutorOf(job);
      effects_.Dispatch(OutboxOf(*executor), id, job.attempts, Outbox::Kind::kCheckpoint,
                        [executor, id] { return executor->RequestCheckpoint(id); });
      job.stopping = Stopping::kAwaitCheckpoint;
      job.stop_deadline = now + std::max(options_.checkpoint_grace, job.request.spec.checkpoint_cost);
      Record([id, now, why](JobStore& s) {
        return s.SetState(id, JobState::kCheckpointing, why, now);
      });
      return ApiResult::Ok({{"id", id}, {"state", "checkpointing"}});
    }
    job.stopping = Stopping::kTerminating;
    Terminate(id, job, now);
    Record([id, now, text = why + "; SIGTERM"](JobStore& s) {
      return s.AppendEvent(id, now, "stop", text);
    });
    return ApiResult::Ok({{"id", id}, {"state", "stopping"}});
  });
}

ApiResult LiveQueue::RequeueEnded(const Principal& who, JobId id, Time now) {
  auto stored = store_.Get(id);
  const std::string name = "job " + std::to_string(id);
  if (!stored.ok()) return ApiResult::Fail(404, "no " + name);
  if (stored->owner != who.user && !who.admin) {
    return ApiResult::Fail(403, name + " belongs to " + stored->owner +
                                    "; only its owner or an admin may requeue it");
  }
  if (!IsFinished(stored->state)) {
    return ApiResult::Fail(409, name + " is being queued; requeue it once it runs");
  }
  if (stored->details_purged_at) {
    return ApiResult::Fail(409, name + "'s command and environment were purged " +
                                    FormatDateTime(*stored->details_purged_at) +
                                    " (the retention of limits:); submit it again");
  }
  const bool resumes = stored->last_checkpoint.has_value();
  const std::string why = "requeued by " + who.user + " after it ended " +
                          std::string(JobStateName(stored->state)) +
                          (resumes ? "; resumes from its checkpoint of " +
                                         FormatDateTime(*stored->last_checkpoint)
                                   : "; starts over: it saved no checkpoint");
  Record([id, now, why](JobStore& s) { return s.RequeueEnded(id, why, now); });
  LiveJob& job = jobs_[id];
  job.request = std::move(stored->request);
  job.request.spec.dependencies.clear();  // they held when it first started, or it never did
  job.owner = stored->owner;
  job.attempts = stored->attempts;
  job.has_checkpoint = resumes;
  job.queued_since = now;
  Arrive(id, job, std::nullopt, /*started=*/stored->attempts > 0, now);
  Log(name + " " + why);
  return ApiResult::Ok({{"id", id}, {"state", "pending"}, {"resumes", resumes}});
}

ApiResult LiveQueue::Update(const Principal& who, JobId id, const std::string& body, Time now) {
  Result<JobUpdate> parsed = ParseJobUpdate(body);
  if (!parsed.ok()) return ApiResult::Fail(400, parsed.status().message());
  const JobUpdate& asked = *parsed;
  return Decided([&]() REQUIRES(mu_) -> ApiResult {
    DrainInbox(now);
    auto found = Controlled(who, id, "update");
    if (auto* answer = std::get_if<ApiResult>(&found)) return *answer;
    LiveJob& job = *std::get<LiveJob*>(found);
    const Job* known = scheduler_->Find(id);
    const bool running = HasRun(id, job) || (known != nullptr && known->IsActive());
    JobRequest changed = job.request;
    const std::string what = asked.ApplyTo(changed);
    if (running) {
      if (asked.ChangesWaitingOnly()) {
        return ApiResult::Fail(409, "job " + std::to_string(id) + " runs: only its time_limit "
                                    "can change (squeeze requeue it first to change the rest)");
      }
      // Its owner may shorten its limit; only an admin may lengthen it, as in Slurm.
      const Time old = job.request.spec.time_limit.value_or(kNever);
      if (asked.limit->value_or(kNever) > old && !who.admin) {
        return ApiResult::Fail(403, "only an admin may raise the time limit of a running job");
      }
      if (Status s = scheduler_->SetTimeLimit(id, *asked.limit); !s.ok()) {
        return ApiResult::Fail(400, s.message());
      }
    } else {
      // Checked against what the cluster could ever run, as a submission is (the account,
      // workdir and command are as submitted).
      if (Status s = CheckFeasible(changed.spec); !s.ok()) return ApiResult::Fail(400, s.message());
      const bool queued = known != nullptr;
      if (queued) (void)scheduler_->Cancel(id, now);
      job.request = changed;
      if (queued) Queue(id, job, now);  // may forget `job`
    }
    if (auto it = jobs_.find(id); it != jobs_.end()) it->second.request = changed;
    Record([id, changed, now, text = "updated by " + who.user + ":" + what](JobStore& s) {
      return s.UpdateRequest(id, changed, text, now);
    });
    return ApiResult::Ok({{"id", id}, {"updated", what.substr(1)}});
  });
}

}  // namespace squeeze
