// The scheduler's job arrays: a task beyond its array's `%` limit is parked, not queued, and
// the next parked task is queued as one leaves (Scheduler::Admit, Scheduler::LeaveArray).
#include "core/scheduler.h"

namespace squeeze {

void Scheduler::Admit(Job& job, Time now) {
  const JobSpec& spec = job.spec;
  if (spec.array_id == 0 || spec.array_limit <= 0) {
    Enqueue(job, now);
    return;
  }
  EngineState::ArrayTasks& array = state_->arrays[spec.array_id];
  if (array.admitted >= spec.array_limit) {
    job.parked = true;
    array.parked.insert({spec.array_task, spec.id});
    return;
  }
  ++array.admitted;
  Enqueue(job, now);
}

void Scheduler::LeaveArray(const Job& job, Time now) {
  const JobSpec& spec = job.spec;
  if (spec.array_id == 0 || spec.array_limit <= 0) return;
  auto it = state_->arrays.find(spec.array_id);
  if (it == state_->arrays.end()) return;
  EngineState::ArrayTasks& array = it->second;
  if (job.parked) {
    array.parked.erase({spec.array_task, spec.id});
  } else {
    --array.admitted;
  }
  while (array.admitted < spec.array_limit && !array.parked.empty()) {
    Job& next = state_->jobs.at(array.parked.begin()->second);
    array.parked.erase(array.parked.begin());
    next.parked = false;
    ++array.admitted;
    Enqueue(next, now);
  }
  if (array.admitted <= 0 && array.parked.empty()) state_->arrays.erase(it);
}

}  // namespace squeeze
