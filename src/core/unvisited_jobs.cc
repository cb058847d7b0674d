#include "core/unvisited_jobs.h"

namespace squeeze {

UnvisitedJobs::UnvisitedJobs(const PendingQueue& pending, size_t shapes, int scopes)
    : pending_(pending), left_(shapes, 0), shapeless_seen_(static_cast<size_t>(scopes), 0) {
  for (const auto& [id, jobs] : pending.ShapeJobs()) left_[static_cast<size_t>(id)] = jobs;
}

bool UnvisitedJobs::Visit(const QueuePosition& p) {
  if (p.shape < 0) {
    ++shapeless_seen_[static_cast<size_t>(p.scope)];
    return false;
  }
  return --left_[static_cast<size_t>(p.shape)] == 0;
}

bool UnvisitedJobs::ShapelessLeft(int scope) const {
  for (size_t s = 0; s < shapeless_seen_.size(); ++s) {
    if (scope >= 0 && static_cast<size_t>(scope) != s) continue;
    if (pending_.Stamp(static_cast<int>(s)).shapeless_jobs > shapeless_seen_[s]) return true;
  }
  return false;
}

}  // namespace squeeze
