// What the driver tells the scheduler of a job while it waits or runs, besides its start and
// its end: a new time limit (squeeze update), its GPUs held but idle, a complete checkpoint.
#include "core/scheduler.h"

namespace squeeze {

Status Scheduler::SetTimeLimit(JobId id, std::optional<Time> limit) {
  auto it = state_->jobs.find(id);
  if (it == state_->jobs.end()) return Status::Error("no job " + std::to_string(id));
  if (limit && *limit <= 0) return Status::Error("time_limit must be more than 0");
  Job& job = it->second;
  const bool running = job.state == JobState::kRunning;
  if (running) UnindexRunning(*state_, job);
  job.spec.time_limit = limit;
  if (running) IndexRunning(*state_, job);
  // A waiting job's shape says whether it is timed (core/job_shape.h).
  state_->pending.Reshape(id, [&](int scope) { return state_->shapes.Intern(job, scope); });
  return Status::Ok();
}

Status Scheduler::SetHeldIdle(JobId id, bool held_idle) {
  auto it = state_->jobs.find(id);
  if (it == state_->jobs.end() || !it->second.IsActive()) {
    return Status::Error("job " + std::to_string(id) + " is not running");
  }
  Job& job = it->second;
  if (job.held_idle == held_idle) return Status::Ok();
  const bool running = job.state == JobState::kRunning;
  if (running) UnindexRunning(*state_, job);
  job.held_idle = held_idle;
  if (running) IndexRunning(*state_, job);
  return Status::Ok();
}

Status Scheduler::Checkpointed(JobId id, Time now) {
  auto it = state_->jobs.find(id);
  if (it == state_->jobs.end() || !it->second.IsActive()) {
    return Status::Error("job " + std::to_string(id) + " is not running");
  }
  it->second.last_checkpoint = now;
  state_->checkpoints_reported = true;
  return Status::Ok();
}

}  // namespace squeeze
