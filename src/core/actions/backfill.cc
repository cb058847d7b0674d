#include <algorithm>
#include <unordered_map>
#include <vector>

#include "core/actions/actions.h"
#include "core/unvisited_jobs.h"

namespace squeeze {
namespace {

// When backfill's walk may end early: once no job left in it could start. A job that gives no
// estimate nor time limit, under a policy without learned estimates, is expected to run for
// ever, so it may start only where no reservation is hurt (PlaceAtHome within the caps); that
// fits or not alike for every job of its shape (core/job_shape.h), and stays so until a job
// starts. Jobs of other shapes, or of none, keep the walk going.
class BackfillEnd {
 public:
  explicit BackfillEnd(const CycleContext& c)
      : c_(c), unvisited_(c.s.pending, c.s.shapes.size(), c.AnyScope() + 1),
        fails_(c.s.shapes.size(), 0), alike_failed_(c.s.shapes.size(), 0) {}

  // Before visiting `p`: whether nothing left (`p` included) could start.
  bool NothingLeftStarts(const QueuePosition& p) {
    if (review_ && !AnyLeftMayStart()) return true;
    if (unvisited_.Visit(p)) review_ = true;
    return false;
  }
  // Whether `p`'s shape is known to fit nowhere now (within the caps; it gives no end).
  bool Fails(const QueuePosition& p) const { return p.shape >= 0 && fails_[p.shape]; }
  // Jobs of a shape that gives no estimate nor limit and that have never run are alike to
  // backfill also under learned estimates (the same class, nothing attained: the same expected
  // run time, so the same caps): once one of them could not be placed, until a job starts,
  // neither can the others.
  bool Alike(const QueuePosition& p) const {
    return p.shape >= 0 && p.never_ran && !c_.s.shapes.at(p.shape).timed;
  }
  bool AlikeFailed(int shape) const { return alike_failed_[shape]; }
  void AlikeFails(int shape) { alike_failed_[shape] = 1; }
  // A job started: what fits has changed.
  void Started() {
    std::fill(fails_.begin(), fails_.end(), 0);
    std::fill(alike_failed_.begin(), alike_failed_.end(), 0);
    review_ = true;
  }

 private:
  bool AnyLeftMayStart() {
    review_ = false;
    bool any = false;
    for (const auto& [id, jobs] : c_.s.pending.ShapeJobs()) {
      if (unvisited_.Left(id) == 0) continue;
      fails_[id] = !MayStart(id);
      any = any || !fails_[id];
    }
    return any || unvisited_.ShapelessLeft(-1);
  }

  bool MayStart(int id) {
    const JobShape& shape = c_.s.shapes.at(id);
    if (shape.timed || c_.s.policy.learned_estimates) return true;
    const auto r = c_.reservations.find(shape.scope);
    if (r == c_.reservations.end()) return false;  // its jobs are passed over
    return PlaceAtHome(c_, c_.s.shapes.example(id), &c_.caps).has_value();
  }

  const CycleContext& c_;
  UnvisitedJobs unvisited_;
  std::vector<char> fails_;  // by shape: known to fit nowhere now
  std::vector<char> alike_failed_;  // by shape: a job of it that is Alike could not be placed
  bool review_ = true;
};

}  // namespace

void RunBackfill(CycleContext& c) {
  if (c.reservations.empty()) return;
  GpuBlockedScopes gpu_blocked(c);
  BackfillEnd end(c);
  c.s.pending.Walk(
      [&](const QueuePosition& p) {
        if (end.NothingLeftStarts(p)) return PendingQueue::Visit::kStop;
        if (gpu_blocked.Passed(p)) return PendingQueue::Visit::kNext;
        auto r = c.reservations.find(p.scope);
        if (r == c.reservations.end() || r->second.job == p.entry.id) {
          return PendingQueue::Visit::kNext;
        }
        if (p.needs_gpus && !c.ScopeHasFreeGpus(p.scope)) return gpu_blocked.BlockScope(p);
        if (end.Fails(p)) return PendingQueue::Visit::kNext;
        const bool alike = end.Alike(p);
        if (alike && end.AlikeFailed(p.shape)) return PendingQueue::Visit::kNext;
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
        if (!placed) {
          if (alike) end.AlikeFails(p.shape);
          return PendingQueue::Visit::kNext;
        }
        StartPlaced(c, job.spec.id, std::move(*placed), /*charge_caps=*/!ends_before_shadow);
        end.Started();
        return PendingQueue::Visit::kNext;
      },
      FairShareMeasure(c));
  c.FlushStarted();
}

}  // namespace squeeze
