#include "core/actions/actions.h"

namespace squeeze {
void RunBackfill(CycleContext& c) {
  if (c.reservations.empty()) return;
  c.s.pending.Walk(
      [&](const QueuePosition& p) {
        auto r = c.reservations.find(p.scope);
        if (r == c.reservations.end() || r->second.job == p.entry.id) {
          return PendingQueue::Visit::kNext;
        }
        if (!c.ScopeHasFreeGpus(p.scope)) return PendingQueue::Visit::kSkipScope;
        Job& job = c.job(p.entry.id);
        if (c.s.awaiting_stops.count(job.spec.id)) return PendingQueue::Visit::kNext;
        const Time run = c.ExpectedRunTime(job);
        const bool ends_before_shadow = run != kNever && c.now + run <= r->second.shadow;
        auto placed = PlaceAtHome(c, job, ends_before_shadow ? nullptr : &c.caps);
        if (!placed) return PendingQueue::Visit::kNext;
        if (!ends_before_shadow) c.ChargeCaps(placed->placement);
        c.Start(job, std::move(placed->placement), placed->borrowed);
        return PendingQueue::Visit::kNext;
      },
      FairShareMeasure(c));
  c.FlushStarted();
}

}  // namespace squeeze
