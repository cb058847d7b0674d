#include "sim/forecast_start.h"

#include <algorithm>
#include <set>

namespace squeeze {
namespace {

// Wall seconds a run of `job` needs from `now` to use up its estimate: what is left of its
// restart overhead, then its remaining work at its speed. nullopt without an estimate.
std::optional<Time> RemainingRun(const Job& job, Time now) {
  if (!job.spec.estimate) return std::nullopt;
  const Time overhead_left = std::max<Time>(0, job.run_start + job.run_overhead - now);
  const Time work_left = *job.spec.estimate - job.work_done - job.RunProgress(now);
  return overhead_left + job.TimeForWork(std::max<Time>(0, work_left));
}

// The forecast's events: a run that ends (its estimate used up), a stop that completes, or a
// run's minimum runtime over (it may be preempted from then: the live queue's cycle, which
// runs every second while jobs run, sees it at once).
enum class EventKind { kEnd, kStopped, kMayPreempt };
struct Event {
  Time at;
  JobId job;
  EventKind kind;
  Time run_start;  // the run it belongs to: an event of an earlier run is stale
  bool operator<(const Event& o) const {
    return std::tie(at, job, kind, run_start) < std::tie(o.at, o.job, o.kind, o.run_start);
  }
};

// The jobs behind `target` in the queue.
std::set<JobId> JobsBehind(const Scheduler& sched, JobId target) {
  std::set<JobId> behind;
  bool past = false;
  sched.ForEachWaiting([&](const Job& j) {
    if (past) behind.insert(j.spec.id);
    past |= j.spec.id == target;
    return true;
  });
  return behind;
}

// Plays the daemon's part for the copy: what each run will do and when.
struct Driver {
  Scheduler& sim;
  std::set<Event> events;
  std::set<JobId> endless;  // running in the forecast with no estimate

  // A run that started, or was asked to stop, at `t`: its end, its stop or its minimum runtime.
  void Follow(const Job& job, Time t) {
    const JobId id = job.spec.id;
    if (job.state == JobState::kCheckpointing) {
      events.insert({t + std::max<Time>(1, job.StopTakes(t)), id, EventKind::kStopped, job.run_start});
      return;
    }
    if (job.spec.preemptible && job.min_runtime_until > t) {
      events.insert({job.min_runtime_until, id, EventKind::kMayPreempt, job.run_start});
    }
    if (auto left = RemainingRun(job, t)) {
      events.insert({t + std::max<Time>(1, *left), id, EventKind::kEnd, job.run_start});
    } else {
      endless.insert(id);
    }
  }

  // Every event up to `t` happens.
  void Advance(Time t) {
    while (!events.empty() && events.begin()->at <= t) {
      const Event e = *events.begin();
      events.erase(events.begin());
      const Job* job = sim.Find(e.job);
      if (job == nullptr || !job->IsActive() || job->run_start != e.run_start) continue;
      if (e.kind == EventKind::kStopped) {
        if (job->state == JobState::kCheckpointing) (void)sim.Stopped(e.job, t);
      } else if (e.kind == EventKind::kEnd && job->state == JobState::kRunning) {
        // Not a real completion: the learned orders learn nothing from it (and do not re-rank
        // the queue at every forecast end).
        (void)sim.Finished(e.job, t, false);
      }
      // kMayPreempt only wakes the cycle; an end of a job asked to stop since gives way to its
      // stop (an event of its own).
    }
  }
};

}  // namespace

Result<StartForecast> ForecastStart(const Scheduler& live, JobId target, Time now,
                                    const ForecastOptions& options) {
  return ForecastStartOnCopy(live.Clone(), target, now, options);
}

Result<StartForecast> ForecastStartOnCopy(std::unique_ptr<Scheduler> sim, JobId target,
                                          Time now, const ForecastOptions& options) {
  const Job* asked = sim->Find(target);
  if (asked == nullptr || asked->IsActive()) {
    return Status::Error("job " + std::to_string(target) + " is not waiting");
  }
  // The jobs behind the target are left out: they take only what it cannot use when they
  // start (backfilling), so they do not move its start.
  for (JobId id : JobsBehind(*sim, target)) (void)sim->Cancel(id, now);
  StartForecast out;
  Driver driver{*sim, {}, {}};
  sim->ForEachJob([&](const Job& job) {
    if (!job.IsActive()) return;
    if (job.state == JobState::kRunning && job.spec.estimate && RemainingRun(job, now) == 0) {
      out.overrun.push_back(job.spec.id);
    }
    driver.Follow(job, now);
  });
  std::sort(out.overrun.begin(), out.overrun.end());
  Time t = now;
  while (out.cycles < options.max_cycles) {
    ++out.cycles;
    for (const Decision& d : sim->Cycle(t)) {
      const Job* job = sim->Find(d.job);
      if (job == nullptr) continue;
      if (d.kind == Decision::Kind::kStop) {
        ++out.stops;
        driver.endless.erase(d.job);
      } else {
        out.starts_in_s.emplace(d.job, t - now);
        out.stops_before.emplace(d.job, out.stops);
        if (d.job == target) {
          out.in_s = t - now;
          return out;
        }
      }
      driver.Follow(*job, t);
    }
    const Time next = std::min(sim->NextWakeup(),
                               driver.events.empty() ? kNever : driver.events.begin()->at);
    if (next == kNever || next - now > options.horizon) break;
    t = std::max(next, t + 1);
    driver.Advance(t);
  }
  if (out.cycles >= options.max_cycles) out.not_before_s = t - now;
  if (!driver.endless.empty()) out.missing_estimate = *driver.endless.begin();
  return out;
}

}  // namespace squeeze
