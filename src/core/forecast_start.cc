#include "core/forecast_start.h"

#include <algorithm>
#include <set>

namespace squeeze {
namespace {

// How long (wall time) a run of `job` needs from `now`: what is left of its restart overhead,
// then its estimate's remaining work at its speed, or without an estimate (under a policy
// that learns run times) the median of what jobs like it ran beyond what it has run; nullopt:
// nobody knows.
std::optional<Time> RemainingRun(const Scheduler& sim, const Job& job, Time now) {
  const Time overhead_left = std::max<Time>(0, job.run_start + job.run_overhead - now);
  if (!job.spec.estimate) {
    auto learned = sim.LearnedRemaining(job, now);
    if (!learned) return std::nullopt;
    return overhead_left + *learned;
  }
  const Time work_left = *job.spec.estimate - job.work_done - job.RunProgress(now);
  return overhead_left + job.TimeForWork(std::max<Time>(0, work_left));
}

// The forecast's events: a run that ends (its estimate used up), a stop that completes, or a
// run's minimum runtime over (it may be preempted from then: the live queue's cycle, which
// runs every second while jobs run, sees it at once). The forecast moves in whole seconds, as
// that cycle does: an event comes at least a second after what caused it.
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

}  // namespace

// Plays the daemon's part for the copy: what each run will do and when.
struct QueueForecast::Driver {
  Scheduler& sim;
  std::set<Event> events;
  std::set<JobId> endless;  // running in the forecast with no estimate

  // A run that started, or was asked to stop, at `t`: its end, its stop or its minimum runtime.
  void Follow(const Job& job, Time t) {
    const JobId id = job.spec.id;
    if (job.state == JobState::kCheckpointing) {
      events.insert({t + std::max<Time>(kSecond, job.StopTakes(t)), id, EventKind::kStopped,
                     job.run_start});
      return;
    }
    if (job.spec.preemptible && job.min_runtime_until > t) {
      events.insert({job.min_runtime_until, id, EventKind::kMayPreempt, job.run_start});
    }
    if (auto left = RemainingRun(sim, job, t)) {
      events.insert({t + std::max<Time>(kSecond, *left), id, EventKind::kEnd, job.run_start});
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

QueueForecast::QueueForecast(std::unique_ptr<Scheduler> copy, Time now,
                             const ForecastOptions& options)
    : sim_(std::move(copy)), options_(options), now_(now), t_(now) {
  driver_ = std::make_unique<Driver>(Driver{*sim_, {}, {}});
  sim_->ForEachWaiting([&](const Job& j) {
    waiting_.insert(j.spec.id);
    return true;
  });
  sim_->ForEachJob([&](const Job& job) {
    if (!job.IsActive()) return;
    if (job.state == JobState::kRunning && job.spec.estimate &&
        RemainingRun(*sim_, job, now) == 0) {
      overrun_.push_back(job.spec.id);
    }
    driver_->Follow(job, now);
  });
  std::sort(overrun_.begin(), overrun_.end());
}

QueueForecast::~QueueForecast() = default;

void QueueForecast::Until(JobId id) {
  while (!over_ && (id == 0 || !starts_.count(id))) Step();
}

// One cycle at t_, then the clock moves to the next event (or the forecast is over).
void QueueForecast::Step() {
  if (cycles_ >= options_.max_cycles) {
    over_ = true;
    return;
  }
  ++cycles_;
  for (const Decision& d : sim_->Cycle(t_)) {
    const Job* job = sim_->Find(d.job);
    if (job == nullptr) continue;
    if (d.kind == Decision::Kind::kStop) {
      ++stops_;
      driver_->endless.erase(d.job);
    } else {
      if (starts_.emplace(d.job, t_ - now_).second) {
        start_order_.emplace(d.job, static_cast<int>(start_order_.size()));
      }
      stops_before_.emplace(d.job, stops_);
    }
    driver_->Follow(*job, t_);
  }
  const Time next = std::min(sim_->NextWakeup(),
                             driver_->events.empty() ? kNever : driver_->events.begin()->at);
  if (next == kNever || next - now_ > options_.horizon || sim_->PendingCount() == 0) {
    over_ = true;
    return;
  }
  t_ = std::max(next, t_ + kSecond);
  driver_->Advance(t_);
}

StartForecast QueueForecast::Of(JobId id, bool starts) const {
  StartForecast out;
  out.overrun = overrun_;
  out.cycles = cycles_;
  auto start = starts_.find(id);
  out.started_first = static_cast<int>(starts_.size());
  if (start != starts_.end()) out.started_first = start_order_.at(id);
  for (const auto& [job, in] : starts_) {
    if (!starts) break;
    if (start != starts_.end() && in > start->second) continue;
    out.starts_in.emplace(job, in);
    out.stops_before.emplace(job, stops_before_.at(job));
  }
  if (start != starts_.end()) {
    out.starts_after = start->second;
    out.stops = stops_before_.at(id);
    return out;
  }
  out.stops = stops_;
  if (cycles_ >= options_.max_cycles) out.not_before = t_ - now_;
  if (!driver_->endless.empty()) out.missing_estimate = *driver_->endless.begin();
  return out;
}

Result<StartForecast> ForecastStart(const Scheduler& live, JobId target, Time now,
                                    const ForecastOptions& options) {
  const Job* asked = live.Find(target);
  if (asked == nullptr || asked->IsActive()) {
    return Status::Error("job " + std::to_string(target) + " is not waiting");
  }
  QueueForecast forecast(live.Clone(), now, options);
  forecast.Until(target);
  return forecast.Of(target, /*starts=*/true);
}

}  // namespace squeeze
