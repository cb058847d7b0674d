// Jobs that wait on other jobs (Slurm's --dependency): which may go to the scheduler, and which
// can never start. The driver (simulator, live queue) tells it of every job that arrives, the
// first start of each, and each end; a job is given to the Scheduler only once its
// dependencies hold. It holds no ended job: a dependency on one the driver resolves through
// the lookup it passes to Add. Pure; not thread-safe.
#ifndef SQUEEZE_CORE_DEPENDENCY_GRAPH_H_
#define SQUEEZE_CORE_DEPENDENCY_GRAPH_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/job.h"
#include "core/status.h"

namespace squeeze {

class DependencyGraph {
 public:
  enum class Readiness { kReady, kWaiting, kNever };
  // How a job that the graph does not hold ended: true done, false otherwise (failed, timed
  // out, cancelled); nullopt: there is no such job.
  using EndedLookup = std::function<std::optional<bool>(JobId)>;

  // A job arrives (every job, so that singletons see their elders). Its dependencies name
  // jobs the graph holds or that ended (`ended` says how). kReady: it may be scheduled now;
  // kWaiting: it waits (Ready and Ended say when that changes); kNever: it can never start
  // (the driver ends it, and calls Ended(id, false) so that its own dependents learn it).
  // Error, adding nothing: an id in use, a job named that does not exist, a job naming
  // itself.
  Result<Readiness> Add(const JobSpec& spec, const EndedLookup& ended);

  struct Changes {
    std::vector<JobId> ready;  // may be scheduled now, in id order
    // Can never start now; each is already taken as ended not ok (its dependents learnt it),
    // so the driver ends it and does not call Ended for it. In id order.
    std::vector<JobId> never;
  };
  // `id` started its first run (after: satisfied).
  Changes Started(JobId id);
  // `id` ended: done (`ok`) or not. Also for a waiting job cancelled. Unknown ids: nothing.
  Changes Ended(JobId id, bool ok);

  bool Holds(JobId id) const { return jobs_.count(id) > 0; }
  // Whether `id` waits on its dependencies.
  bool Waiting(JobId id) const;
  // What `id` still waits for, in words ("afterok:12 (12 runs), afterany:14 (14 waits)");
  // empty when it does not wait.
  std::string Describe(JobId id) const;
  // The clauses `id` still waits on (not met, not broken): their kind and the jobs they name;
  // `any` (when given) says whether one of them is enough (Slurm's '?').
  std::vector<std::pair<DependencyKind, std::vector<JobId>>> Awaited(JobId id,
                                                                     bool* any = nullptr) const;
  size_t size() const { return jobs_.size(); }

 private:
  struct Clause {
    DependencyKind kind = DependencyKind::kAfterAny;
    std::vector<JobId> jobs;  // as given (singleton: as found)
    int left = 0;             // jobs that have not done what it waits for yet
    bool broken = false;      // can no longer hold
  };
  struct Node {
    std::pair<std::string, std::string> user_name;
    bool started = false;
    bool waiting = false;
    bool any = false;
    std::vector<Clause> clauses;
  };
  struct Edge {
    JobId job = 0;  // the dependent
    int clause = 0;
  };
  Readiness Judge(const Node& n) const;
  // A job named by a clause of `dependent` did what it waits for (met) or can no longer
  // (!met); newly ready or never jobs go to `changes`.
  void Resolve(const Edge& e, bool met, Changes& changes, std::vector<JobId>& ended_now);
  void Drop(JobId id);
  void Settle(Changes& changes, std::vector<JobId>& ended_now);

  std::unordered_map<JobId, Node> jobs_;
  std::unordered_map<JobId, std::vector<Edge>> waiters_;  // job -> the clauses that name it
  std::map<std::pair<std::string, std::string>, std::set<JobId>> by_name_;  // (user, name)
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_DEPENDENCY_GRAPH_H_
