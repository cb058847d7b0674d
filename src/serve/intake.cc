#include "serve/intake.h"

#include <utility>

namespace squeeze {

namespace {

// What the local check of a job looks at: the account, the workdir, the command's first word
// and the PATH it is looked up in.
std::string CheckKey(const JobRequest& r) {
  auto path = r.env.find("PATH");
  std::string key = r.run_as;
  for (const std::string* part :
       {&r.workdir, &r.command.front(), path == r.env.end() ? nullptr : &path->second}) {
    key += '\0';
    if (part != nullptr) key += *part;
  }
  return key;
}

}  // namespace

Intake::Intake(std::unique_ptr<Scheduler> feasibility, const std::vector<PoolSpec>& pools,
               const RunAsPolicy& run_as, Executor& local, std::chrono::milliseconds check_ttl)
    : feasibility_(std::move(feasibility)), pools_(pools), run_as_(run_as), local_(local),
      check_ttl_(check_ttl) {}

Status Intake::CheckFeasible(const JobSpec& spec) const {
  MutexLock lock(feasibility_mu_);
  return feasibility_->CheckFeasible(spec);
}

bool Intake::CheckedLately(const std::string& key, std::chrono::steady_clock::time_point now) const {
  MutexLock lock(checks_mu_);
  auto it = checked_.find(key);
  return it != checked_.end() && now - it->second < check_ttl_;
}

ApiResult Intake::CheckSubmission(const std::string& owner, const JobRequest& request) const {
  if (Status s = CheckFeasible(request.spec); !s.ok()) return ApiResult::Fail(400, s.message());
  bool all_here = true;
  for (size_t i = 0; i < pools_.size(); ++i) {
    if (!request.spec.pool.empty() && pools_[i].name != request.spec.pool) continue;
    all_here &= !remote_pools_.count(static_cast<int>(i));
  }
  JobRequest as = request;
  const auto now = std::chrono::steady_clock::now();
  // A check passed lately by the account of the same name (AccountFor answers the owner's
  // name) answers without the account's lookup either: it found the account then.
  as.run_as = run_as_.owners ? owner : std::string();
  if (all_here && !as.command.empty() && CheckedLately(CheckKey(as), now)) {
    return ApiResult::Ok(nullptr);
  }
  Result<std::string> account = run_as_.AccountFor(owner);
  if (!account.ok()) return ApiResult::Fail(403, account.status().message());
  if (!all_here) return ApiResult::Ok(nullptr);  // a Slurm node checks for itself
  if (as.command.empty()) return ApiResult::Fail(400, "command: the job has no command");
  const bool same_name = as.run_as == *account;  // then its key was looked for above
  as.run_as = *account;
  const std::string key = CheckKey(as);
  if (!same_name && CheckedLately(key, now)) return ApiResult::Ok(nullptr);
  if (Status s = local_.CheckRunnable(as); !s.ok()) return ApiResult::Fail(400, s.message());
  MutexLock lock(checks_mu_);
  if (checked_.size() >= kMaxChecksKept) checked_.clear();  // (many different ones: a flood)
  checked_[key] = now;
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
