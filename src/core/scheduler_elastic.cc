// The scheduler's elastic jobs (core/elastic.h): what Submit accepts of a range, and the
// throughput a job reports at the widths it ran at.
#include <cmath>

#include "core/scheduler.h"

namespace squeeze {

Status Scheduler::CheckElasticFeasible(const JobSpec& spec) const {
  if (Status st = ValidateElastic(spec.elastic); !st.ok()) return st;
  if (spec.gpu_milli != kMilliPerGpu) {
    return Status::Error("an elastic job (gpus " + GpuRangeText(spec.elastic) +
                         ") takes whole GPUs, not gpu_milli " + std::to_string(spec.gpu_milli));
  }
  JobSpec at_min = spec;
  at_min.elastic = ElasticSpec{};
  at_min.gpus = spec.elastic.min;
  return CheckFeasible(at_min);
}

Status Scheduler::ReportRate(JobId id, double rate) {
  auto it = state_->jobs.find(id);
  if (it == state_->jobs.end() || !it->second.IsActive()) {
    return Status::Error("job " + std::to_string(id) + " is not running");
  }
  Job& job = it->second;
  if (!job.spec.elastic.enabled()) {
    return Status::Error("job " + std::to_string(id) + " is not elastic");
  }
  if (!(rate > 0) || !std::isfinite(rate)) {
    return Status::Error("rate " + std::to_string(rate) + " must be a positive number");
  }
  job.measured_rates[job.spec.gpus] = rate;
  return Status::Ok();
}

}  // namespace squeeze
