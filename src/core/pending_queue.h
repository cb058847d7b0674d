// The ordered set of pending jobs. Jobs are kept in sub-queues by (urgency band, scope, team),
// each ordered by the job order key, then submit time, then id. A walk visits bands from the
// most urgent down; within a band each scope (home pool) in turn; within a scope the teams are
// merged by a fair-share measure the caller supplies. Owned by the Scheduler; not thread-safe.
#ifndef SQUEEZE_CORE_PENDING_QUEUE_H_
#define SQUEEZE_CORE_PENDING_QUEUE_H_

#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/types.h"

namespace squeeze {

struct QueueEntry {
  double key = 0;
  Time submit = 0;
  JobId id = 0;
  bool operator<(const QueueEntry& o) const {
    return std::tie(key, submit, id) < std::tie(o.key, o.submit, o.id);
  }
};

struct QueuePosition {
  int band = 0;   // higher runs first
  int scope = 0;  // home pool index; the pool count for "any pool"
  std::string team;
  QueueEntry entry;
  bool needs_gpus = true;  // false: a job of no GPUs (CPU and memory only)
  int shape = -1;          // core/job_shape.h: the job's shape id, -1 for none
  bool never_ran = false;  // no start, no work done when it was queued
};

class PendingQueue {
 public:
  enum class Visit { kNext, kSkipScope, kStop };
  using Visitor = std::function<Visit(const QueuePosition&)>;
  using TeamMeasure = std::function<double(const std::string& team)>;

  void Add(QueuePosition position);
  bool Remove(JobId id);
  bool Contains(JobId id) const { return where_.count(id) > 0; }
  const QueuePosition* Find(JobId id) const;
  size_t size() const { return where_.size(); }
  bool empty() const { return where_.empty(); }
  // The most urgent band with a waiting job (0 when none waits).
  int TopBand() const { return queues_.empty() ? 0 : -std::get<0>(queues_.begin()->first); }
  // How many jobs a scope holds and a number that changes whenever its jobs or their order
  // change, for callers that keep what they derived from a scope.
  struct ScopeStamp {
    uint64_t version = 0;
    size_t jobs = 0;
    size_t cpu_only_jobs = 0;  // of them, jobs of no GPUs
    size_t shapeless_jobs = 0;  // of them, jobs of no shape (QueuePosition::shape -1)
  };
  ScopeStamp Stamp(int scope) const {
    return scope < static_cast<int>(stamps_.size()) ? stamps_[scope] : ScopeStamp{};
  }

  // How many waiting jobs have each shape (QueuePosition::shape), by shape id; shapes with
  // none are left out.
  const std::unordered_map<int, size_t>& ShapeJobs() const { return shape_jobs_; }

  // Gives job `id`, when it waits here, the shape `shape_of(its scope)` answers (a job whose
  // spec changed while it waits: core/job_shape.h).
  void Reshape(JobId id, const std::function<int(int scope)>& shape_of);

  // Takes every job's order key anew.
  void Rekey(const std::function<double(JobId)>& key);

  // Visits every pending job in order. A scope skipped in one band stays skipped in the lower
  // bands. `team_measure` (may be null) ranks teams within a scope: smaller first, and it is
  // read again after every visit so a team that just got GPUs yields to others.
  // The queue must not be modified during the walk.
  void Walk(const Visitor& visit, const TeamMeasure& team_measure) const;
  // Walk over one scope's jobs only; kSkipScope ends it.
  void WalkScope(int scope, const Visitor& visit, const TeamMeasure& team_measure) const;

 private:
  using Key = std::tuple<int, int, std::string>;  // (-band, scope, team)
  void WalkScopes(int only_scope, const Visitor& visit, const TeamMeasure& team_measure) const;

  std::map<Key, std::set<QueueEntry>> queues_;
  std::unordered_map<JobId, QueuePosition> where_;
  std::vector<ScopeStamp> stamps_;  // by scope
  std::unordered_map<int, size_t> shape_jobs_;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PENDING_QUEUE_H_
