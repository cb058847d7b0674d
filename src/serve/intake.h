// Intake: a job's way into the live queue, before the scheduling state holds it. The checks a
// submission passes without the scheduling lock (the core's feasibility rule, asked of an empty
// scheduler of the same cluster and policy; the account it would run as; where every pool it
// may use runs jobs on this machine, its workdir and command as that account), and the inbox
// the store's accepted jobs wait in until the next step takes them, so that a submission never
// waits for a cycle. Thread-safe.
#ifndef SQUEEZE_SERVE_INTAKE_H_
#define SQUEEZE_SERVE_INTAKE_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>

#include "core/scheduler.h"
#include "core/thread_annotations.h"
#include "exec/executor.h"
#include "serve/job_service.h"
#include "serve/run_as.h"
#include "store/stored_job.h"

namespace squeeze {

class Intake {
 public:
  // `feasibility`: an empty scheduler of the cluster and policy the queue schedules with;
  // `pools` and `run_as` outlive the intake; `local` runs the jobs of every pool not remote.
  // A workdir and command `local` found runnable by an account is not asked again for
  // `check_ttl`, nor is the account looked up again: a burst of one user's submissions of the
  // same command forks one check and reads the user database once (the start looks the
  // account up and checks again, as the account, whatever the intake found).
  Intake(std::unique_ptr<Scheduler> feasibility, const std::vector<PoolSpec>& pools,
         const RunAsPolicy& run_as, Executor& local,
         std::chrono::milliseconds check_ttl = std::chrono::seconds(10));
  Intake(const Intake&) = delete;
  Intake& operator=(const Intake&) = delete;

  // Pool `pool` runs its jobs elsewhere (a Slurm pool, whose nodes check for themselves).
  // Before the API serves.
  void SetRemotePool(int pool) { remote_pools_.insert(pool); }

  // Whether the scheduling core could ever run `spec`; the error says what the largest
  // request is.
  Status CheckFeasible(const JobSpec& spec) const EXCLUDES(feasibility_mu_);
  // Before a job of `owner` is accepted: feasible (else 400), the account it would run as may
  // run jobs (else 403), and where every pool the job may use runs jobs here, its workdir and
  // command as that account (else 400).
  ApiResult CheckSubmission(const std::string& owner, const JobRequest& request) const
      EXCLUDES(checks_mu_);

  // A job the store has just accepted.
  void Add(const StoredJob& job) EXCLUDES(mu_);
  // The jobs added since the last call, in the order they were added.
  std::deque<StoredJob> TakeAll() EXCLUDES(mu_);
  // The jobs waiting in the inbox, by urgency name.
  std::map<std::string, int64_t> WaitingByUrgency() const EXCLUDES(mu_);

 private:
  mutable Mutex feasibility_mu_;
  std::unique_ptr<Scheduler> feasibility_ PT_GUARDED_BY(feasibility_mu_);
  const std::vector<PoolSpec>& pools_;
  const RunAsPolicy& run_as_;
  Executor& local_;
  std::set<int> remote_pools_;  // set before the API serves, read without a lock after

  // `local`'s checks that found a job runnable, by account, workdir, command and PATH: when.
  // Whether `key` passed its check less than check_ttl_ before `now`.
  bool CheckedLately(const std::string& key, std::chrono::steady_clock::time_point now) const
      EXCLUDES(checks_mu_);

  static constexpr size_t kMaxChecksKept = 4096;
  const std::chrono::milliseconds check_ttl_;
  mutable Mutex checks_mu_;
  mutable std::unordered_map<std::string, std::chrono::steady_clock::time_point> checked_
      GUARDED_BY(checks_mu_);

  mutable Mutex mu_;
  std::deque<StoredJob> inbox_ GUARDED_BY(mu_);
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_INTAKE_H_
