// The spot and colocate actions: a waiting job starts on capacity that may be taken away (a
// spot pool's nodes, the GPUs a colocated pool's inference leaves free) when that is expected
// to finish it sooner than waiting at home. Aware (the default), the expected time there
// follows Daly's model with the learned time between takes, the checkpoint interval set for
// the run (Daly's), and the colocated training speed;
// fault-tolerant jobs take spot capacity first; a long job the 12-h rule keeps off spot may
// still bridge its wait at home there, for at most spot_long_job in all (return_home brings it
// home at the first room). Naive (policy spot_aware=false), any job that
// cannot start at home goes, checkpointing every spot_naive_interval.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "core/actions/actions.h"
#include "core/actions/home_wait.h"
#include "core/duration.h"
#include "core/idle_forecast.h"
#include "core/spot_math.h"

namespace squeeze {
namespace {

// What running a job on one pool of taken-away capacity is expected to take.
struct Outlook {
  bool allowed = true;
  std::string refusal;       // why not, when not allowed
  Time interval = 0;         // periodic checkpoints asked of the run (0: none)
  bool on_notice = false;    // it can save within the warning
  double mtbt = 0;           // mean time between takes of its placement, seconds
  double expected = 0;       // seconds to finish there (kNever-like when unknown work)
  bool bridge = false;       // a long job there only until its home has room
  bool comply = false;       // a long job asked to checkpoint every spot_long_job_checkpoint
  Time window = kNever;      // the predicted idle window left on its GPUs (idle_windows)
};

// The least predicted idle window left over the placement's GPUs; nullopt when one of them
// has too little history (core/idle_forecast.h).
std::optional<Time> IdleWindowLeft(const CycleContext& c, const Placement& placement) {
  Time least = kNever;
  for (const auto& share : placement.shares) {
    for (int g : share.gpus) {
      const auto w = PredictedOpenFor(c.s, ColocatedGpuKey(share.node, g), c.now);
      if (!w) return std::nullopt;
      least = std::min(least, *w);
    }
  }
  return least;
}

// A figure in seconds (core/spot_math.h's) as a Time of its whole seconds, rounded down (kNever
// when it is out of a Time's range).
Time WholeSecondsToTime(double seconds) {
  return seconds < ToSeconds(kNever) ? Seconds(static_cast<int64_t>(seconds)) : kNever;
}

Time WarningOf(const PoolSpec& pool) {
  return pool.kind == PoolKind::kSpot ? pool.spot.warning : pool.colocation.evict_within;
}

// How soon a run of known work is expected to finish there (o.expected, and o.comply, bridge
// and interval where the rule for long jobs makes it checkpoint every spot_long_job_checkpoint
// or bridge its wait at home); a run that does not fit the predicted idle window is refused.
void ExpectFinish(const CycleContext& c, const Job& job, const PoolSpec& spec, Time work,
                  Time wait, bool can_comply, Time useful, Outlook& o) {
  const Policy& p = c.s.policy;
  // In seconds, as core/spot_math.h reckons.
  const double cost = ToSeconds(job.spec.checkpoint_cost);
  const double restart = ToSeconds(RestartOverhead(job.spec));
  const double every = ToSeconds(p.spot_long_job_checkpoint);
  const double speed =
      spec.kind == PoolKind::kColocated ? spec.colocation.TrainingSpeed() : 1.0;
  const double wall = ToSeconds(work) / speed;
  o.expected = ExpectedRunTimeOf(job.spec, wall, ToSeconds(o.interval), o.mtbt, o.on_notice);
  if (o.window != kNever) {
    const bool fits = wall + restart <= ToSeconds(o.window);
    if (!fits && !(o.on_notice && o.window >= useful)) {
      o.allowed = false;
      o.refusal = "does not fit the predicted idle window (" + FormatDuration(o.window) + " left)";
      return;
    }
  }
  // On spot for `there` at the pace that takes `full` seconds for the whole work, then the
  // stop's checkpoint, the restart at home and the rest of the work there.
  const auto then_home = [&](Time there, double full) {
    const double w = ToSeconds(work);
    const double done = std::min(w, ToSeconds(there) * w / full);
    return ToSeconds(wait) + cost + restart + w - done;
  };
  if (o.bridge && wait != kNever) {
    // For the wait, at most what is left of spot_long_job.
    o.expected = then_home(std::min(wait, p.spot_long_job - job.bridged), o.expected);
  }
  if (can_comply) {
    // Checkpoints every spot_long_job_checkpoint, to the end or until its home has room
    // (return_home), whichever is expected sooner.
    const double full = ExpectedRunTimeOf(job.spec, wall, every, o.mtbt, false);
    const double comply = std::min(full, then_home(wait, full));
    if (!o.bridge || comply < o.expected) {
      o.bridge = false;
      o.comply = true;
      o.interval = p.spot_long_job_checkpoint;
      o.expected = comply;
    }
  }
}

Outlook Assess(const CycleContext& c, const Job& job, int pool, const Placement& placement,
               Time work, Time wait) {
  const Policy& p = c.s.policy;
  const PoolSpec& spec = c.s.cluster.spec().pools[pool];
  Outlook o;
  o.mtbt = PlacementTimeBetweenTakes(c.s, pool, placement, c.now);
  o.on_notice = job.spec.checkpointable && job.spec.checkpoint_cost <= WarningOf(spec);
  const bool naive = spec.kind == PoolKind::kSpot && !p.spot_aware;
  const bool long_job = work == kNever || work > p.spot_long_job;
  if (naive) {
    o.interval = p.spot_naive_interval;
  } else if (o.on_notice) {
    o.interval = 0;
  } else if (job.spec.checkpointable) {
    o.interval = DalyIntervalOf(job.spec, o.mtbt);
  } else {
    o.interval = job.spec.checkpoint_interval;
  }
  const bool rule_bound = !naive && spec.kind == PoolKind::kSpot && long_job && !o.on_notice &&
                          (o.interval == 0 || o.interval > p.spot_long_job_checkpoint);
  // A long job squeeze can ask to checkpoint every spot_long_job_checkpoint meets the rule.
  const double pause = ToSeconds(PeriodicCheckpointStall(job.spec));
  const double every = ToSeconds(p.spot_long_job_checkpoint);
  const bool can_comply = rule_bound && job.spec.checkpointable && work != kNever &&
                          wait != kNever &&
                          CheckpointsAffordable(pause, every, p.spot_long_job_comply);
  if (rule_bound) {
    // It may still bridge its wait at home, for what it has left of spot_long_job.
    o.bridge = p.spot_long_job_bridge && job.spec.checkpointable &&
               job.bridged + job.spec.checkpoint_cost + RestartOverhead(job.spec) < p.spot_long_job;
    if (!o.bridge && !can_comply) {
      o.allowed = false;
      o.refusal = "expected to run longer than " + FormatDuration(p.spot_long_job) +
                  " and does not checkpoint every " + FormatDuration(p.spot_long_job_checkpoint);
      return o;
    }
  }
  const bool windows = spec.kind == PoolKind::kColocated && spec.colocation.idle_windows;
  if (windows && job.spec.urgency > Urgency::kNormal) {
    o.allowed = false;
    o.refusal = "urgent work does not go to GPUs lent in their owner's idle windows";
    return o;
  }
  // A useful part of a run that checkpoints when the owner comes back.
  const Time useful =
      std::max<Time>(10 * kMinute, 10 * (job.spec.checkpoint_cost + RestartOverhead(job.spec)));
  if (windows) {
    if (auto w = IdleWindowLeft(c, placement)) o.window = *w;
  }
  if (work == kNever) {
    if (o.window != kNever && !(o.on_notice && o.window >= useful)) {
      o.allowed = false;
      o.refusal = "of unknown length, and cannot checkpoint in time in the predicted idle window";
    }
    return o;
  }
  ExpectFinish(c, job, spec, work, wait, can_comply, useful, o);
  return o;
}

std::string StartReason(const PoolSpec& pool, const Outlook& o, Time wait, Time work) {
  char text[384];
  const std::string what = pool.kind == PoolKind::kSpot ? "spot pool " : "inference GPUs of ";
  const std::string mtbt = FormatDuration(WholeSecondsToTime(o.mtbt));
  std::string saves =
      o.on_notice ? "saves within the warning"
                  : (o.interval > 0 ? "checkpoints every " + FormatDuration(o.interval)
                                    : "no checkpoints");
  if (o.bridge) saves += "; a long job, there until its home has room";
  if (o.comply) saves += " as the rule for long jobs asks";
  if (o.window != kNever) saves += "; idle window of " + FormatDuration(o.window) + " left";
  if (work == kNever || wait == kNever) {
    std::snprintf(text, sizeof text, "on %s%s: %s; a take every %s expected",
                  what.c_str(), pool.name.c_str(), saves.c_str(), mtbt.c_str());
  } else {
    std::snprintf(text, sizeof text,
                  "on %s%s: expected to finish in %s there (%s; a take every %s) against %s "
                  "waiting at home + %s running",
                  what.c_str(), pool.name.c_str(),
                  FormatDuration(WholeSecondsToTime(o.expected)).c_str(), saves.c_str(),
                  mtbt.c_str(), FormatDuration(wait).c_str(), FormatDuration(work).c_str());
  }
  return text;
}

void RunTakeable(CycleContext& c, PoolKind kind) {
  std::vector<int> pools;
  for (int pool = 0; pool < c.s.cluster.PoolCount(); ++pool) {
    if (c.s.cluster.spec().pools[pool].kind == kind) pools.push_back(pool);
  }
  if (pools.empty()) return;
  const Policy& p = c.s.policy;
  const bool naive = kind == PoolKind::kSpot && !p.spot_aware;
  std::map<int, FreeingSchedule> schedules;  // by home pool (-1: any)
  std::map<int, int> ahead;  // home pool -> whole GPUs wanted by waiting jobs walked so far
  c.s.pending.Walk(
      [&](const QueuePosition& qp) {
        bool room = false;
        for (int pool : pools) room = room || c.ScopeHasFreeGpus(pool);
        if (!room) return PendingQueue::Visit::kStop;
        const Job& job = c.job(qp.entry.id);
        if (c.s.awaiting_stops.count(job.spec.id)) return PendingQueue::Visit::kNext;
        if (job.home_pool >= 0 && Opportunistic(c.s, job.home_pool)) return PendingQueue::Visit::kNext;
        const int need = std::max(1, job.spec.gpus);
        int& before = ahead[job.home_pool];
        const int behind = before;
        before += need;
        // Colocated GPUs take only work that can leave at once and come back; aware spot use
        // only work that agreed to be stopped.
        if (kind == PoolKind::kColocated && !(job.spec.preemptible && job.spec.checkpointable)) {
          return PendingQueue::Visit::kNext;
        }
        if (kind == PoolKind::kSpot && !naive && !job.spec.preemptible) {
          return PendingQueue::Visit::kNext;
        }
        auto it = schedules.find(job.home_pool);
        if (it == schedules.end()) {
          it = schedules.emplace(job.home_pool, ScheduleOf(c, job.home_pool)).first;
        }
        const Time wait = WaitAtHome(c, job, it->second, behind);
        const bool prefers = kind == PoolKind::kSpot && !naive && job.spec.fault_tolerant;
        if (wait == 0 && !prefers) return PendingQueue::Visit::kNext;  // starts at home now
        const Time work = c.ExpectedRunTime(job);
        for (int pool : pools) {
          if (!c.ScopeHasFreeGpus(pool)) continue;
          auto placement = c.Place(job, c.GroupsFor(job.spec, pool), &c.caps);
          if (!placement) continue;
          const Outlook o = Assess(c, job, pool, *placement, work, wait);
          if (!o.allowed) continue;
          const bool sooner = wait == kNever || work == kNever ||
                              o.expected < ToSeconds(wait + work);
          if (!naive && !prefers && !sooner) continue;
          StartOptions how;
          how.kind = kind == PoolKind::kSpot ? StartKind::kSpot : StartKind::kColocated;
          how.charge_caps = true;
          how.checkpoint_interval = o.interval;
          how.bridging = o.bridge;
          how.long_job_every = o.comply;
          how.reason = StartReason(c.s.cluster.spec().pools[pool], o, wait, work);
          if (o.window != kNever && (work == kNever || work > o.window)) {
            // It leaves with a checkpoint before the owner is predicted back.
            how.leave_window_at = c.now + std::max<Time>(0, o.window - job.spec.checkpoint_cost);
          }
          before -= need;  // it no longer waits at home
          Statement st(c);
          st.Start(job.spec.id, std::move(*placement), how);
          st.Commit();
          break;
        }
        return PendingQueue::Visit::kNext;
      },
      FairShareMeasure(c));
  c.FlushStarted();
}

}  // namespace

void RunSpot(CycleContext& c) { RunTakeable(c, PoolKind::kSpot); }
void RunColocate(CycleContext& c) { RunTakeable(c, PoolKind::kColocated); }

void StopWithdrawn(CycleContext& c) {
  Statement st(c);
  for (const auto& [id, why] : c.withdrawn) {
    auto it = c.s.jobs.find(id);
    if (it == c.s.jobs.end() || it->second.state != JobState::kRunning) continue;
    st.Evict(id, why, StopKind::kOther);
  }
  st.Commit();
}

}  // namespace squeeze
