#include "core/pending_queue.h"

#include <set>
#include <vector>

namespace squeeze {

void PendingQueue::Add(QueuePosition position) {
  Remove(position.entry.id);
  queues_[Key(-position.band, position.scope, position.team)].insert(position.entry);
  if (position.scope >= static_cast<int>(stamps_.size())) stamps_.resize(position.scope + 1);
  ScopeStamp& stamp = stamps_[position.scope];
  ++stamp.version;
  ++stamp.jobs;
  if (!position.needs_gpus) ++stamp.cpu_only_jobs;
  if (position.shape < 0) ++stamp.shapeless_jobs;
  else ++shape_jobs_[position.shape];
  where_.emplace(position.entry.id, std::move(position));
}

void PendingQueue::Reshape(JobId id, const std::function<int(int scope)>& shape_of) {
  auto it = where_.find(id);
  if (it == where_.end()) return;
  QueuePosition reshaped = it->second;
  reshaped.shape = shape_of(reshaped.scope);
  if (reshaped.shape != it->second.shape) Add(std::move(reshaped));
}

bool PendingQueue::Remove(JobId id) {
  auto it = where_.find(id);
  if (it == where_.end()) return false;
  const QueuePosition& p = it->second;
  auto q = queues_.find(Key(-p.band, p.scope, p.team));
  q->second.erase(p.entry);
  if (q->second.empty()) queues_.erase(q);
  ScopeStamp& stamp = stamps_[p.scope];
  ++stamp.version;
  --stamp.jobs;
  if (!p.needs_gpus) --stamp.cpu_only_jobs;
  if (p.shape < 0) {
    --stamp.shapeless_jobs;
  } else if (--shape_jobs_[p.shape] == 0) {
    shape_jobs_.erase(p.shape);
  }
  where_.erase(it);
  return true;
}

void PendingQueue::Rekey(const std::function<double(JobId)>& key) {
  queues_.clear();
  for (auto& [id, pos] : where_) {
    pos.entry.key = key(id);
    queues_[Key(-pos.band, pos.scope, pos.team)].insert(pos.entry);
  }
  for (ScopeStamp& stamp : stamps_) ++stamp.version;
}

const QueuePosition* PendingQueue::Find(JobId id) const {
  auto it = where_.find(id);
  return it == where_.end() ? nullptr : &it->second;
}

void PendingQueue::Walk(const Visitor& visit, const TeamMeasure& team_measure) const {
  WalkScopes(-1, visit, team_measure);
}

void PendingQueue::WalkScope(int scope, const Visitor& visit,
                             const TeamMeasure& team_measure) const {
  WalkScopes(scope, visit, team_measure);
}

// Walks the scope `only_scope`, or every scope when it is negative.
void PendingQueue::WalkScopes(int only_scope, const Visitor& visit,
                              const TeamMeasure& team_measure) const {
  std::set<int> skipped_scopes;
  auto it = queues_.begin();
  while (it != queues_.end()) {
    const int neg_band = std::get<0>(it->first);
    const int scope = std::get<1>(it->first);
    // The sub-queues of one (band, scope): one per team.
    struct Cursor {
      const std::string* team;
      std::set<QueueEntry>::const_iterator pos, end;
    };
    const bool wanted = (only_scope < 0 || scope == only_scope) && !skipped_scopes.count(scope);
    std::vector<Cursor> cursors;
    for (; it != queues_.end() && std::get<0>(it->first) == neg_band &&
           std::get<1>(it->first) == scope;
         ++it) {
      if (!wanted) continue;
      cursors.push_back({&std::get<2>(it->first), it->second.begin(), it->second.end()});
    }
    if (!wanted) continue;
    // Team measures change only for the team just visited: keep them.
    const bool measured = team_measure && cursors.size() > 1;
    std::vector<double> measures(cursors.size(), 0);
    if (measured) {
      for (size_t i = 0; i < cursors.size(); ++i) measures[i] = team_measure(*cursors[i].team);
    }
    while (true) {
      Cursor* next = nullptr;
      double next_measure = 0;
      for (size_t i = 0; i < cursors.size(); ++i) {
        Cursor& c = cursors[i];
        if (c.pos == c.end) continue;
        const double m = measures[i];
        if (next == nullptr || m < next_measure ||
            (m == next_measure && *c.pos < *next->pos)) {
          next = &c;
          next_measure = m;
        }
      }
      if (next == nullptr) break;
      const QueuePosition& p = where_.at(next->pos->id);
      ++next->pos;
      const Visit v = visit(p);
      if (measured) measures[next - cursors.data()] = team_measure(*next->team);
      if (v == Visit::kStop) return;
      if (v == Visit::kSkipScope) {
        skipped_scopes.insert(scope);
        break;
      }
    }
  }
}

}  // namespace squeeze
