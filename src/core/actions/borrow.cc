#include "core/actions/actions.h"

namespace squeeze {

void RunBorrow(CycleContext& c) {
  if (c.s.cluster.PoolCount() < 2) return;
  c.s.pending.Walk(
      [&](const QueuePosition& p) {
        if (c.s.cluster.FreeMilli() == 0) return PendingQueue::Visit::kStop;
        const Job& job = c.job(p.entry.id);
        if ((!job.spec.preemptible && !c.s.policy.borrow_any) || job.home_pool < 0 || c.s.awaiting_stops.count(job.spec.id)) {
          return PendingQueue::Visit::kNext;
        }
        for (int pool = 0; pool < c.s.cluster.PoolCount(); ++pool) {
          if (pool == job.home_pool || Opportunistic(c.s, pool)) continue;
          auto placement = c.Place(job, c.GroupsFor(job.spec, pool), &c.caps);
          if (!placement) continue;
          StartPlaced(c, job.spec.id, PoolPlacement{std::move(*placement), /*borrowed=*/true},
                      /*charge_caps=*/true);
          break;
        }
        return PendingQueue::Visit::kNext;
      },
      nullptr);
  c.FlushStarted();
}

}  // namespace squeeze
