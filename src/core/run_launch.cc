// Scheduler::AwaitLaunch and Launched: a run whose process its backend starts later than the
// start decision (core/scheduler.h).
#include "core/scheduler.h"

namespace squeeze {

Status Scheduler::AwaitLaunch(JobId id) {
  auto it = state_->jobs.find(id);
  if (it == state_->jobs.end() || it->second.state != JobState::kRunning) {
    return Status::Error("job " + std::to_string(id) + " is not running");
  }
  Job& job = it->second;
  UnindexRunning(*state_, job);
  job.awaiting_launch = true;
  job.slice_end = kNever;
  IndexRunning(*state_, job);
  return Status::Ok();
}

Status Scheduler::Launched(JobId id, Time now) {
  auto it = state_->jobs.find(id);
  if (it == state_->jobs.end()) return Status::Error("job " + std::to_string(id) + " is not known");
  Job& job = it->second;
  if (!job.awaiting_launch) return Status::Ok();
  job.awaiting_launch = false;
  if (job.state != JobState::kRunning) return Status::Ok();  // already asked to stop
  UnindexRunning(*state_, job);
  job.min_runtime_until =
      std::max(job.min_runtime_until, now + job.run_overhead + state_->policy.min_runtime);
  const bool sliced =
      state_->policy.Has("slice") && job.spec.checkpointable && job.spec.preemptible;
  job.slice_end = sliced ? now + job.run_overhead + state_->policy.slice : kNever;
  job.slice_end = std::min(job.slice_end, job.leave_window_at);
  IndexRunning(*state_, job);
  return Status::Ok();
}

}  // namespace squeeze
