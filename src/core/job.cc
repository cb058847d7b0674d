#include "core/job.h"

#include <algorithm>

namespace squeeze {

Time DefaultRestartOverhead(int gpus) {
  if (gpus <= 1) return 7;
  if (gpus <= 8) return 30;
  return 60;
}

Time RestartOverhead(const JobSpec& spec) {
  return spec.restart_overhead.value_or(DefaultRestartOverhead(spec.gpus));
}

Time Job::RunProgress(Time now) const {
  if (!IsActive()) return 0;
  return std::max<Time>(0, now - run_start - run_overhead);
}

Time Job::SavedWorkIfStopped(Time now) const {
  const Time progress = RunProgress(now);
  if (spec.checkpointable) return work_done + progress;
  if (spec.checkpoint_interval > 0) {
    return work_done + progress / spec.checkpoint_interval * spec.checkpoint_interval;
  }
  return 0;
}

double Job::LostGpuSecondsIfStopped(Time now) const {
  const Time lost = work_done + RunProgress(now) - SavedWorkIfStopped(now);
  const Time cost = (spec.checkpointable ? spec.checkpoint_cost : 0) + RestartOverhead(spec);
  return static_cast<double>(lost + cost) * spec.gpus * spec.gpu_milli / kMilliPerGpu;
}

Time Job::UncheckpointedSeconds(Time now, bool tracked) const {
  if (!tracked || !IsActive()) return 0;
  const Time since = last_checkpoint == kNever ? run_start : std::max(run_start, last_checkpoint);
  return std::max<Time>(0, now - since);
}

double Job::AttainedGpuSeconds(Time now) const {
  double a = attained_gpu_s;
  if (IsActive()) {
    a += static_cast<double>(now - run_start) * spec.gpus * spec.gpu_milli / kMilliPerGpu;
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
  if (!IsActive() || !spec.estimate) return kNever;
  return run_start + run_overhead + std::max<Time>(0, *spec.estimate - work_done);
}

}  // namespace squeeze
