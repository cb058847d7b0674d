#include "core/dependency_graph.h"

#include <algorithm>

namespace squeeze {
namespace {

// Whether a job that ended (done when `ok`) does what a clause of `kind` waits for.
bool EndMeets(DependencyKind kind, bool ok) {
  switch (kind) {
    case DependencyKind::kAfterOk: return ok;
    case DependencyKind::kAfterNotOk: return !ok;
    default: return true;  // after (ended without a start counts), afterany, singleton
  }
}

}  // namespace

Result<DependencyGraph::Readiness> DependencyGraph::Add(const JobSpec& spec,
                                                       const EndedLookup& ended) {
  const JobId id = spec.id;
  const std::string who = "job " + std::to_string(id);
  if (jobs_.count(id)) return Status::Error(who + ": id is already in use");
  Node node;
  node.user_name = {spec.user, spec.name};
  node.any = spec.dependency_any;
  std::vector<Edge> edges;
  for (const Dependency& d : spec.dependencies) {
    Clause c;
    c.kind = d.kind;
    if (d.kind == DependencyKind::kSingleton) {
      if (auto it = by_name_.find(node.user_name); it != by_name_.end()) {
        c.jobs.assign(it->second.begin(), it->second.end());
      }
    } else {
      c.jobs = d.jobs;
      std::sort(c.jobs.begin(), c.jobs.end());
      c.jobs.erase(std::unique(c.jobs.begin(), c.jobs.end()), c.jobs.end());
      if (c.jobs.empty()) {
        return Status::Error(who + ": dependency " + std::string(DependencyKindName(d.kind)) +
                             " names no job");
      }
    }
    const int index = static_cast<int>(node.clauses.size());
    for (JobId t : c.jobs) {
      if (t == id) return Status::Error(who + ": it depends on itself");
      if (auto it = jobs_.find(t); it != jobs_.end()) {
        if (c.kind == DependencyKind::kAfter && it->second.started) continue;
        ++c.left;
        edges.push_back({t, index});
        continue;
      }
      std::optional<bool> ok = ended(t);
      if (!ok) {
        return Status::Error(who + ": dependency " + std::string(DependencyKindName(c.kind)) +
                             " names job " + std::to_string(t) + ", which does not exist");
      }
      if (!EndMeets(c.kind, *ok)) c.broken = true;
    }
    node.clauses.push_back(std::move(c));
  }
  // Edges name their target in `job` until registered; the dependent is `id`.
  for (const Edge& e : edges) waiters_[e.job].push_back({id, e.clause});
  const Readiness r = Judge(node);
  node.waiting = r == Readiness::kWaiting;
  by_name_[node.user_name].insert(id);
  jobs_.emplace(id, std::move(node));
  return r;
}

DependencyGraph::Readiness DependencyGraph::Judge(const Node& n) const {
  if (n.clauses.empty()) return Readiness::kReady;
  int met = 0, broken = 0;
  for (const Clause& c : n.clauses) {
    if (c.broken) ++broken;
    else if (c.left == 0) ++met;
  }
  const int all = static_cast<int>(n.clauses.size());
  if (n.any) {
    if (met > 0) return Readiness::kReady;
    return broken == all ? Readiness::kNever : Readiness::kWaiting;
  }
  if (broken > 0) return Readiness::kNever;
  return met == all ? Readiness::kReady : Readiness::kWaiting;
}

bool DependencyGraph::Waiting(JobId id) const {
  auto it = jobs_.find(id);
  return it != jobs_.end() && it->second.waiting;
}

void DependencyGraph::Resolve(const Edge& e, bool met, Changes& changes,
                              std::vector<JobId>& ended_now) {
  auto it = jobs_.find(e.job);
  if (it == jobs_.end() || !it->second.waiting) return;
  Node& n = it->second;
  Clause& c = n.clauses[e.clause];
  if (met) --c.left;
  else c.broken = true;
  const Readiness r = Judge(n);
  if (r == Readiness::kWaiting) return;
  n.waiting = false;
  if (r == Readiness::kReady) {
    changes.ready.push_back(e.job);
  } else {
    changes.never.push_back(e.job);
    ended_now.push_back(e.job);
  }
}

void DependencyGraph::Drop(JobId id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  auto named = by_name_.find(it->second.user_name);
  if (named != by_name_.end()) {
    named->second.erase(id);
    if (named->second.empty()) by_name_.erase(named);
  }
  jobs_.erase(it);
}

// Ends the jobs in `ended_now` (not ok), and those their ends make impossible, in turn.
void DependencyGraph::Settle(Changes& changes, std::vector<JobId>& ended_now) {
  while (!ended_now.empty()) {
    const JobId id = ended_now.back();
    ended_now.pop_back();
    std::vector<Edge> edges;
    if (auto w = waiters_.find(id); w != waiters_.end()) {
      edges = std::move(w->second);
      waiters_.erase(w);
    }
    Drop(id);
    for (const Edge& e : edges) {
      auto it = jobs_.find(e.job);
      if (it == jobs_.end()) continue;
      Resolve(e, EndMeets(it->second.clauses[e.clause].kind, false), changes, ended_now);
    }
  }
  std::sort(changes.ready.begin(), changes.ready.end());
  std::sort(changes.never.begin(), changes.never.end());
}

DependencyGraph::Changes DependencyGraph::Started(JobId id) {
  Changes changes;
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second.started) return changes;
  it->second.started = true;
  auto w = waiters_.find(id);
  if (w == waiters_.end()) return changes;
  std::vector<JobId> ended_now;
  std::vector<Edge> kept;
  for (const Edge& e : w->second) {
    auto dep = jobs_.find(e.job);
    if (dep != jobs_.end() && dep->second.clauses[e.clause].kind == DependencyKind::kAfter) {
      Resolve(e, true, changes, ended_now);
    } else {
      kept.push_back(e);
    }
  }
  w->second = std::move(kept);
  if (w->second.empty()) waiters_.erase(w);
  Settle(changes, ended_now);
  return changes;
}

DependencyGraph::Changes DependencyGraph::Ended(JobId id, bool ok) {
  Changes changes;
  if (!jobs_.count(id)) return changes;
  std::vector<Edge> edges;
  if (auto w = waiters_.find(id); w != waiters_.end()) {
    edges = std::move(w->second);
    waiters_.erase(w);
  }
  Drop(id);
  std::vector<JobId> ended_now;
  for (const Edge& e : edges) {
    auto it = jobs_.find(e.job);
    if (it == jobs_.end()) continue;
    Resolve(e, EndMeets(it->second.clauses[e.clause].kind, ok), changes, ended_now);
  }
  Settle(changes, ended_now);
  return changes;
}

std::vector<std::pair<DependencyKind, std::vector<JobId>>> DependencyGraph::Awaited(
    JobId id, bool* any) const {
  std::vector<std::pair<DependencyKind, std::vector<JobId>>> out;
  auto it = jobs_.find(id);
  if (it == jobs_.end() || !it->second.waiting) return out;
  if (any != nullptr) *any = it->second.any;
  for (const Clause& c : it->second.clauses) {
    if (!c.broken && c.left > 0) out.emplace_back(c.kind, c.jobs);
  }
  return out;
}

std::string DependencyGraph::Describe(JobId id) const {
  auto it = jobs_.find(id);
  if (it == jobs_.end() || !it->second.waiting) return "";
  const Node& n = it->second;
  std::string out;
  for (const Clause& c : n.clauses) {
    if (!out.empty()) out += n.any ? "?" : ",";
    out += DependencyKindName(c.kind);
    constexpr size_t kShown = 4;
    for (size_t i = 0; i < c.jobs.size() && i < kShown; ++i) out += ":" + std::to_string(c.jobs[i]);
    if (c.jobs.size() > kShown) out += ":...(" + std::to_string(c.jobs.size()) + " jobs)";
    if (c.broken) out += " (can no longer hold)";
    else if (c.left > 0) out += " (" + std::to_string(c.left) + " of " +
                                std::to_string(c.jobs.size()) + " to go)";
    else out += " (met)";
  }
  return out;
}

}  // namespace squeeze
