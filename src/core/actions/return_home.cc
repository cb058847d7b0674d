// The return_home action: a job running on capacity that may be taken away (a spot pool's
// nodes, a colocated pool's GPUs) moves to its home pool once GPUs there are left free after
// the waiting jobs had their turn, when finishing at home (the stop's checkpoint and the
// restart included) is expected to be sooner than staying. A long job bridging its wait on
// spot (see the spot action) comes home at the first room, and is stopped once its time on
// spot reaches the policy's spot_long_job. A run in a GPU owner's idle window that would not
// finish in it leaves (home, or back to the queue) with a checkpoint when the window is
// predicted to end.
#include <algorithm>
#include <set>
#include <string>

#include "core/actions/actions.h"
#include "core/duration.h"
#include "core/spot_math.h"

namespace squeeze {
namespace {

// Work the running job still has to do, by estimate or what the order learned (kNever).
Time RemainingWork(const CycleContext& c, const Job& job) {
  if (auto r = job.EstimatedRemaining(c.now)) return *r;
  if (!c.s.policy.learned_estimates) return kNever;
  auto learned = c.s.job_order->PredictRemaining(job, c.now);
  return learned ? *learned : kNever;
}

// Seconds the job is expected to need if it stays where it runs (core/spot_math.h).
double ExpectedStay(const CycleContext& c, const Job& job, int pool, Time work) {
  const PoolSpec& spec = c.s.cluster.spec().pools[pool];
  const double mtbt = PlacementTimeBetweenTakes(c.s, pool, job.placement, c.now);
  const double speed = spec.kind == PoolKind::kColocated ? spec.colocation.TrainingSpeed() : 1.0;
  const double wall = ToSeconds(work) / speed;
  const bool on_notice = job.spec.checkpoint_cost <=
                         (spec.kind == PoolKind::kSpot ? spec.spot.warning : spec.colocation.evict_within);
  return ExpectedRunTimeOf(job.spec, wall, ToSeconds(job.CheckpointInterval()), mtbt, on_notice);
}

}  // namespace

void RunReturnHome(CycleContext& c) {
  std::set<JobId> away;
  for (int node = 0; node < static_cast<int>(c.s.node_jobs.size()); ++node) {
    if (!Opportunistic(c.s, c.s.cluster.node(node).pool)) continue;
    for (JobId id : c.s.node_jobs[node]) away.insert(id);
  }
  for (JobId id : away) {
    const Job& job = c.job(id);
    if (job.state != JobState::kRunning || job.placement.shares.empty()) continue;
    if (job.must_leave_by != kNever || c.withdrawn.count(id) || c.s.moves.count(id)) continue;
    if (!job.spec.checkpointable) continue;
    const int pool = c.s.cluster.node(job.placement.shares[0].node).pool;
    const PoolKind kind = c.s.cluster.spec().pools[pool].kind;
    if (kind == PoolKind::kSpot ? !c.s.policy.spot_aware || !c.s.policy.Has("spot")
                                : !c.s.policy.Has("colocate")) {
      continue;
    }
    if (job.home_pool == pool || (job.home_pool >= 0 && Opportunistic(c.s, job.home_pool))) continue;
    const Time spot_time = job.bridged + (c.now - job.run_start);
    const bool bridge_over = job.bridging && spot_time >= c.s.policy.spot_long_job;
    const bool window_over = job.leave_window_at <= c.now;
    auto placed = PlaceAtHome(c, job, &c.caps);
    if (!placed) {
      Statement st(c);
      if (bridge_over) {
        st.Evict(id, "bridge on spot over: " + FormatDuration(c.s.policy.spot_long_job) +
                         " on spot for a job longer than that", StopKind::kOther);
      } else if (window_over) {
        st.Evict(id, "idle window ends: it leaves before the GPU's owner is predicted back",
                 StopKind::kOther);
      }
      st.Commit();
      continue;
    }
    const Time work = RemainingWork(c, job);
    const bool must_go = job.bridging || window_over;
    if (work == kNever && !must_go) continue;
    if (!must_go) {
      const double stay = ExpectedStay(c, job, pool, work);
      const double home = ToSeconds(job.spec.checkpoint_cost + RestartOverhead(job.spec) + work);
      if (home >= stay) continue;
    }
    c.ChargeCaps(placed->placement);
    Statement st(c);
    st.Evict(id, "return home: room in its home pool", StopKind::kOther);
    st.MoveTo(id, std::move(placed->placement), placed->borrowed, MoveKind::kReturnHome);
    st.Commit();
  }
}

}  // namespace squeeze
