#include <set>

#include "core/actions/actions.h"
#include "core/reservation.h"
#include "core/statement.h"

namespace squeeze {

namespace {

// Jobs whose victims have stopped start first on the room made for them: where it was chosen
// when they were evicted (held since, EngineState::pipelined), or, when that is gone (a node
// went down: Scheduler::Cycle drops it), wherever they fit now.
void StartClaims(CycleContext& c) {
  std::set<JobId> claims;
  claims.swap(c.claims);
  for (JobId id : claims) {
    auto it = c.s.jobs.find(id);
    if (it == c.s.jobs.end() || it->second.state != JobState::kPending) continue;
    if (c.s.pipelined.count(id)) {
      Statement st(c);
      const bool started = st.StartPipelined(id);
      st.Commit();
      if (started) continue;
    }
    if (auto placed = PlaceAtHome(c, it->second, &c.caps)) StartPlaced(c, id, std::move(*placed));
  }
  c.FlushStarted();
}

}  // namespace

bool GpuBlockedScopes::Passed(const QueuePosition& p) const {
  if (!p.needs_gpus) return false;
  auto it = blocked_.find(p.scope);
  if (it == blocked_.end()) return false;
  const Job& job = c_.s.jobs.at(p.entry.id);
  for (int g : c_.GroupsFor(job.spec, job.home_pool)) {
    if (it->second.count(g)) return true;
  }
  return false;
}

PendingQueue::Visit GpuBlockedScopes::Block(const QueuePosition& p) {
  if (!p.needs_gpus) return PendingQueue::Visit::kSkipScope;
  const Job& job = c_.s.jobs.at(p.entry.id);
  std::set<int>& blocked = blocked_[p.scope];
  for (int g : c_.GroupsFor(job.spec, job.home_pool)) blocked.insert(g);
  return AfterBlocking(p.scope);
}

PendingQueue::Visit GpuBlockedScopes::BlockScope(const QueuePosition& p) {
  std::set<int>& blocked = blocked_[p.scope];
  for (int g : c_.GroupsFor(JobSpec{}, p.scope < c_.AnyScope() ? p.scope : -1)) blocked.insert(g);
  return AfterBlocking(p.scope);
}

PendingQueue::Visit GpuBlockedScopes::AfterBlocking(int scope) {
  const std::set<int>& blocked = blocked_[scope];
  bool all = true;
  for (int g : c_.GroupsFor(JobSpec{}, scope < c_.AnyScope() ? scope : -1)) {
    all = all && blocked.count(g);
  }
  if (all && c_.s.pending.Stamp(scope).cpu_only_jobs == 0) return PendingQueue::Visit::kSkipScope;
  return PendingQueue::Visit::kNext;
}

void RunAllocate(CycleContext& c) {
  StartClaims(c);
  const bool reserve = c.s.policy.Has("backfill");
  const bool strict = reserve || c.s.policy.strict;
  GpuBlockedScopes gpu_blocked(c);
  c.s.pending.Walk(
      [&](const QueuePosition& p) {
        if (gpu_blocked.Passed(p)) return PendingQueue::Visit::kNext;
        const Job& job = c.job(p.entry.id);
        const bool can_fit = c.ScopeHasFreeGpus(p.scope) || job.spec.gpus == 0;
        if (!strict && !can_fit) return gpu_blocked.BlockScope(p);
        if (can_fit && !c.s.awaiting_stops.count(job.spec.id)) {
          if (auto placed = PlaceAtHome(c, job, &c.caps)) {
            StartPlaced(c, job.spec.id, std::move(*placed));
            return PendingQueue::Visit::kNext;
          }
        }
        if (!strict) return PendingQueue::Visit::kNext;
        if (reserve && c.now - job.spec.submit_time < c.s.policy.reserve_after) {
          // Young: later jobs may pass it, and it is not yet reserved for.
          return can_fit ? PendingQueue::Visit::kNext : gpu_blocked.BlockScope(p);
        }
        if (reserve && !c.reservations.count(p.scope)) {
          if (auto r = ComputeReservation(c, job)) c.AddReservation(std::move(*r));
        }
        return gpu_blocked.Block(p);
      },
      FairShareMeasure(c));
  c.FlushStarted();
}

}  // namespace squeeze
