#include "core/actions/actions.h"

namespace squeeze {
void RunBackfill(CycleContext& c) {
  if (c.reservations.empty()) return;
  GpuBlockedScopes gpu_blocked(c);
  c.s.pending.Walk(
      [&](const QueuePosition& p) {
        if (gpu_blocked.Passed(p)) return PendingQueue::Visit::kNext;
        auto r = c.reservations.find(p.scope);
        if (r == c.reservations.end() || r->second.job == p.entry.id) {
          return PendingQueue::Visit::kNext;
        }
        if (p.needs_gpus && !c.ScopeHasFreeGpus(p.scope)) return gpu_blocked.BlockScope(p);
        const Job& job = c.job(p.entry.id);
        if (c.s.awaiting_stops.count(job.spec.id)) return PendingQueue::Visit::kNext;
        const Time run = c.ExpectedRunTime(job);
        const bool ends_before_shadow = run != kNever && c.now + run <= r->second.shadow;
        // A job that ends before a reservation's shadow time does not delay it; it must still
        // respect every reservation that comes due before it ends, and the nodes held for a
        // job that defrag makes room for.
        std::unordered_map<int, int> due_caps;
        if (ends_before_shadow) {
          for (const auto& [scope, other] : c.reservations) {
            if (other.shadow >= c.now + run) continue;
            for (const auto& [node, cap] : other.caps) due_caps.emplace(node, c.caps.at(node));
          }
          for (const auto& [held_for, nodes] : c.s.defrag_holds) {
            for (int node : nodes) due_caps.emplace(node, c.caps.at(node));
          }
        }
        auto placed = PlaceAtHome(c, job, ends_before_shadow ? &due_caps : &c.caps);
        if (!placed) return PendingQueue::Visit::kNext;
        StartPlaced(c, job.spec.id, std::move(*placed), /*charge_caps=*/!ends_before_shadow);
        return PendingQueue::Visit::kNext;
      },
      FairShareMeasure(c));
  c.FlushStarted();
}

}  // namespace squeeze
