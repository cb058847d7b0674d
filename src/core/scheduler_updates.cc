// What the driver tells the scheduler of a job while it waits or runs, besides its start and
// its end: a new time limit (squeeze update), its GPUs held but idle, a complete checkpoint;
// and what the job order learned of run times (the ended jobs of an earlier life of the
// daemon, what a running job has left).
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

void Scheduler::Rekey(Time now) {
  state_->pending.Rekey(
      [&](JobId pending) { return state_->job_order->Key(state_->jobs.at(pending), now); });
}

void Scheduler::LearnEnded(const JobSpec& spec, Time ran, Time ended) {
  Job job;
  job.spec = spec;
  job.home_pool = spec.pool.empty() ? -1 : state_->cluster.spec().PoolIndex(spec.pool);
  job.work_done = ran;
  job.state = JobState::kDone;
  if (state_->job_order->Observe(job, {ended, &state_->jobs})) Rekey(ended);
}

std::optional<Time> Scheduler::LearnedRemaining(const Job& job, Time now) const {
  if (!state_->policy.learned_estimates) return std::nullopt;
  return state_->job_order->PredictRemaining(job, now);
}

}  // namespace squeeze
