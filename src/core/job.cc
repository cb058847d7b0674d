#include "core/job.h"

#include <algorithm>

namespace squeeze {
namespace {

// Down or up to a whole second (toward the past or the future, also below 0). Progress at a
// partial speed is counted in whole seconds, so that it is the same whatever the tick.
Time FloorToSecond(Time t) { return Seconds(WholeSeconds(t)); }
Time CeilToSecond(Time t) { return -FloorToSecond(-t); }

}  // namespace

std::string_view DependencyKindName(DependencyKind kind) {
  switch (kind) {
    case DependencyKind::kAfter: return "after";
    case DependencyKind::kAfterAny: return "afterany";
    case DependencyKind::kAfterOk: return "afterok";
    case DependencyKind::kAfterNotOk: return "afternotok";
    case DependencyKind::kSingleton: return "singleton";
  }
  return "?";
}

Time DefaultRestartOverhead(int gpus) {
  if (gpus <= 1) return 7 * kSecond;
  if (gpus <= 8) return 30 * kSecond;
  return 60 * kSecond;
}

Time RestartOverhead(const JobSpec& spec) {
  return spec.restart_overhead.value_or(DefaultRestartOverhead(spec.gpus));
}

Time CheckpointPause(Time checkpoint_cost, std::optional<Time> checkpoint_stall) {
  return std::min(checkpoint_stall.value_or(checkpoint_cost), checkpoint_cost);
}

Time PeriodicCheckpointStall(const JobSpec& spec) {
  return CheckpointPause(spec.checkpoint_cost, spec.checkpoint_stall);
}

Time CheckpointPersistLag(const JobSpec& spec) {
  return spec.checkpoint_cost - PeriodicCheckpointStall(spec);
}

Time Job::RunProgress(Time now) const {
  if (!IsActive()) return 0;
  const Time elapsed = std::max<Time>(0, now - run_start - run_overhead);
  return ProgressAtSpeed(elapsed, run_speed_milli);
}

Time ProgressAtSpeed(Time elapsed, int speed_milli) {
  return speed_milli == 1000 ? elapsed : FloorToSecond(elapsed * speed_milli / 1000);
}

bool Job::CanCheckpointNow(Time now) const {
  return spec.checkpointable && (must_leave_by == kNever || now + spec.checkpoint_cost <= must_leave_by);
}

Time Job::StopTakes(Time now) const {
  if (CanCheckpointNow(now)) return spec.checkpoint_cost;
  // A checkpoint that would not end in time is still attempted until the GPUs go away.
  if (spec.checkpointable && must_leave_by != kNever) return std::max<Time>(0, must_leave_by - now);
  return 0;
}

Time Job::SavedWorkIfStopped(Time now) const {
  const Time progress = RunProgress(now);
  if (CanCheckpointNow(now)) return work_done + progress;
  // The last periodic checkpoint on disk: an asynchronous one only once its save is done.
  const Time interval = CheckpointInterval();
  const Time on_disk = progress - CheckpointPersistLag(spec);
  if (interval > 0 && on_disk > 0) return work_done + on_disk / interval * interval;
  return work_done;
}

double Job::LostGpuSecondsIfStopped(Time now) const {
  const Time lost = work_done + RunProgress(now) - SavedWorkIfStopped(now);
  const Time cost = (CanCheckpointNow(now) ? spec.checkpoint_cost : 0) + RestartOverhead(spec);
  return ToSeconds(lost + cost) * spec.gpus * spec.gpu_milli / kMilliPerGpu;
}

Time Job::UncheckpointedSeconds(Time now, bool tracked) const {
  if (!tracked || !IsActive()) return 0;
  const Time since = last_checkpoint == kNever ? run_start : std::max(run_start, last_checkpoint);
  return std::max<Time>(0, now - since);
}

double Job::AttainedGpuSeconds(Time now) const {
  double a = attained_gpu_s;
  if (IsActive()) {
    a += ToSeconds(now - run_start) * spec.gpus * spec.gpu_milli / kMilliPerGpu;
  }
  return a;
}

int Job::MovesSince(Time since) const {
  return static_cast<int>(move_times.end() -
                          std::upper_bound(move_times.begin(), move_times.end(), since));
}

std::optional<Time> Job::EstimatedRemaining(Time now) const {
  if (!spec.estimate) return std::nullopt;
  const Time done = work_done + RunProgress(now);
  return std::max<Time>(0, *spec.estimate - done);
}

Time Job::EstimatedEnd() const {
  if (!IsActive()) return kNever;
  const Time limit = spec.time_limit ? run_start + *spec.time_limit : kNever;
  if (!spec.estimate) return limit;
  return std::min(limit, run_start + run_overhead +
                             TimeForWork(std::max<Time>(0, *spec.estimate - work_done)));
}

Time Job::TimeForWork(Time work) const {
  // Faster than full speed too (an elastic job wider than its reference width), the time is
  // whole seconds: the progress at its end may pass `work` by less than the speed's seconds.
  if (run_speed_milli == 1000) return work;
  return CeilToSecond((work * 1000 + run_speed_milli - 1) / run_speed_milli);
}

}  // namespace squeeze
