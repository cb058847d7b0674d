#include "core/job_shape.h"

namespace squeeze {

Job JobShape::Example() const {
  Job job;
  job.home_pool = home_pool;
  job.spec.gpus = gpus;
  job.spec.gpu_milli = gpu_milli;
  job.spec.preemptible = preemptible;
  job.spec.team = team;
  return job;
}

int JobShapes::Intern(const Job& job, int scope) {
  const JobSpec& s = job.spec;
  if (!s.gpu_models.empty() || s.min_gpu_memory_mib != 0 || !s.regions.empty() ||
      s.cpu_milli != 0 || s.memory_mib != 0) {
    return kNone;
  }
  const bool timed = s.estimate.has_value() || s.time_limit.has_value();
  const Key key{scope, job.home_pool, s.gpus, s.gpu_milli, s.preemptible, timed, s.team};
  auto [it, added] = ids_.emplace(key, static_cast<int>(shapes_.size()));
  if (added) {
    shapes_.push_back({scope, job.home_pool, s.gpus, s.gpu_milli, s.preemptible, timed, s.team});
    examples_.push_back(shapes_.back().Example());
  }
  return it->second;
}

}  // namespace squeeze
