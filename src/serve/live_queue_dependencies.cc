// LiveQueue's jobs that wait on other jobs (sbatch --dependency): the dependency graph
// (core/dependency_graph.h) holds every unfinished job; a job goes to the scheduler only once
// what it waits for holds, and ends cancelled (DependencyNeverSatisfied) when it never can.
#include "serve/live_queue.h"

namespace squeeze {

bool LiveQueue::DependsOnUnseen(const JobRequest& request) {
  for (const Dependency& d : request.spec.dependencies) {
    for (JobId t : d.jobs) {
      if (deps_.Holds(t) || EndedHere(t)) continue;
      auto stored = store_.Get(t);
      if (stored.ok() && !IsFinished(stored->state)) return true;
    }
  }
  return false;
}

void LiveQueue::Arrive(JobId id, LiveJob& job, std::optional<Time> not_before, bool started,
                       Time now) {
  JobSpec spec = job.request.spec;
  spec.id = id;
  spec.user = job.owner;
  if (started) spec.dependencies.clear();  // they held when it first started
  auto ready = deps_.Add(spec, [this](JobId t) REQUIRES(mu_) -> std::optional<bool> {
    // Ended here, its end perhaps not in the store yet (the journal carries it).
    if (std::optional<bool> done = EndedHere(t)) return *done;
    auto stored = store_.Get(t);
    if (!stored.ok()) return std::nullopt;
    // Unfinished but not held here: it cannot be waited for (it is not this queue's).
    return stored->state == JobState::kDone;
  });
  if (started) started_since_.push_back(id);
  if (!ready.ok()) {
    Log(ready.status().message());
    EndNeverSatisfied(id, ready.status().message(), now);
    return;
  }
  if (*ready == DependencyGraph::Readiness::kNever) {
    EndNeverSatisfied(id, job.request.dependency + " can no longer hold", now);
    ended_since_.emplace_back(id, false);  // the graph holds it: its dependents learn it
    return;
  }
  if (*ready == DependencyGraph::Readiness::kWaiting) {
    job.dependency_wait = true;
    if (not_before && *not_before > now) job.request.begin = not_before;
    return;
  }
  QueueUnlessHeld(id, job, not_before, now);
}

void LiveQueue::EndNeverSatisfied(JobId id, const std::string& why, Time now) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  if (scheduler_->Find(id)) (void)scheduler_->Cancel(id, now);
  if (it->second.retry_at) retries_.erase({*it->second.retry_at, id});
  Record([id, now, text = "DependencyNeverSatisfied: " + why](JobStore& s) {
    return s.SetState(id, JobState::kCancelled, text, now);
  });
  ++counters_.cancelled;
  jobs_.erase(it);
}

void LiveQueue::TrackStarted(JobId id, const LiveJob& job) {
  JobSpec spec = job.request.spec;
  spec.id = id;
  spec.user = job.owner;
  spec.dependencies.clear();  // they held when it first started
  (void)deps_.Add(spec, [](JobId) { return std::nullopt; });
  started_since_.push_back(id);
}

void LiveQueue::QueueUnlessHeld(JobId id, LiveJob& job, std::optional<Time> not_before,
                                Time now) {
  if (job.held) return;
  if (not_before && *not_before > now) {
    // Not before its begin time: it waits as a retry's back-off does (QueueDueRetries).
    job.retry_at = not_before;
    retries_.insert({*not_before, id});
    return;
  }
  Queue(id, job, now);  // may forget `job`
}

void LiveQueue::Forget(JobId id, bool ok) {
  jobs_.erase(id);
  ended_since_.emplace_back(id, ok);
  recent_ends_[id] = {ok, 0};  // until the journal has its end in the store (AppendEffects)
}

void LiveQueue::ApplyDependencies(Time now) {
  while (!ended_since_.empty() || !started_since_.empty()) {
    std::vector<DependencyGraph::Changes> all;
    for (JobId id : std::exchange(started_since_, {})) all.push_back(deps_.Started(id));
    for (const auto& [id, ok] : std::exchange(ended_since_, {})) all.push_back(deps_.Ended(id, ok));
    for (const DependencyGraph::Changes& changes : all) {
      for (JobId id : changes.never) {
        auto it = jobs_.find(id);
        if (it == jobs_.end()) continue;
        // The graph has taken it as ended already.
        EndNeverSatisfied(id, it->second.request.dependency + " can no longer hold", now);
      }
      for (JobId id : changes.ready) {
        auto it = jobs_.find(id);
        if (it == jobs_.end() || !it->second.dependency_wait) continue;
        it->second.dependency_wait = false;
        Record([id, now, text = it->second.request.dependency + " holds; queued"](JobStore& s) {
          return s.AppendEvent(id, now, "dependency", text);
        });
        QueueUnlessHeld(id, it->second, it->second.request.begin, now);
      }
    }
  }
}

}  // namespace squeeze
