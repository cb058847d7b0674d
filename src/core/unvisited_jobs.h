// The jobs of the pending queue a walk has not visited yet: by shape (core/job_shape.h) and,
// for jobs of no shape, by scope. A walk that knows that no job left in it could change what
// it does may stop there (the fragmentation meter, backfill). Plain data; one per walk, over a
// queue that does not change during it.
#ifndef SQUEEZE_CORE_UNVISITED_JOBS_H_
#define SQUEEZE_CORE_UNVISITED_JOBS_H_

#include <cstddef>
#include <vector>

#include "core/pending_queue.h"

namespace squeeze {

class UnvisitedJobs {
 public:
  // `shapes`: how many shape ids there are; `scopes`: the pool count plus one (any pool).
  UnvisitedJobs(const PendingQueue& pending, size_t shapes, int scopes);

  // Counts `p` as visited; true when it was the last job of its shape left.
  bool Visit(const QueuePosition& p);
  // Jobs of shape `id` not visited yet.
  size_t Left(int id) const { return left_[static_cast<size_t>(id)]; }
  // Whether jobs of no shape are left in `scope` (-1: in any scope).
  bool ShapelessLeft(int scope) const;

 private:
  const PendingQueue& pending_;
  std::vector<size_t> left_;           // by shape
  std::vector<size_t> shapeless_seen_;  // by scope
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_UNVISITED_JOBS_H_
