#include "serve/intake.h"

#include <utility>

namespace squeeze {

Intake::Intake(std::unique_ptr<Scheduler> feasibility, const std::vector<PoolSpec>& pools,
               const RunAsPolicy& run_as, Executor& local)
    : feasibility_(std::move(feasibility)), pools_(pools), run_as_(run_as), local_(local) {}

Status Intake::CheckFeasible(const JobSpec& spec) const {
  MutexLock lock(feasibility_mu_);
  return feasibility_->CheckFeasible(spec);
}

ApiResult Intake::CheckSubmission(const std::string& owner, const JobRequest& request) const {
  if (Status s = CheckFeasible(request.spec); !s.ok()) return ApiResult::Fail(400, s.message());
  Result<std::string> account = run_as_.AccountFor(owner);
  if (!account.ok()) return ApiResult::Fail(403, account.status().message());
  bool all_here = true;
  for (size_t i = 0; i < pools_.size(); ++i) {
    if (!request.spec.pool.empty() && pools_[i].name != request.spec.pool) continue;
    all_here &= !remote_pools_.count(static_cast<int>(i));
  }
  if (!all_here) return ApiResult::Ok(nullptr);  // a Slurm node checks for itself
  JobRequest as = request;
  as.run_as = *account;
  if (Status s = local_.CheckRunnable(as); !s.ok()) return ApiResult::Fail(400, s.message());
  return ApiResult::Ok(nullptr);
}

void Intake::Add(const StoredJob& job) {
  MutexLock lock(mu_);
  inbox_.push_back(job);
}

std::deque<StoredJob> Intake::TakeAll() {
  std::deque<StoredJob> out;
  MutexLock lock(mu_);
  out.swap(inbox_);
  return out;
}

std::map<std::string, int64_t> Intake::WaitingByUrgency() const {
  std::map<std::string, int64_t> out;
  MutexLock lock(mu_);
  for (const StoredJob& s : inbox_) ++out[std::string(UrgencyName(s.request.spec.urgency))];
  return out;
}

}  // namespace squeeze
