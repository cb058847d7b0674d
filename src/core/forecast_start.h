// When waiting jobs are expected to start, for `squeeze why`: a copy of the live scheduler
// (Scheduler::Clone: the running jobs where they run, their preemptibility, minimum runtimes,
// slices, deadlines, reservations, down and reclaimed nodes, inference load, what the orders
// learned, and the whole queue) is driven forward through the same core, each job taken to
// run for its estimate (without one, under a policy that learns run times, for the median of
// what jobs like it ran beyond what it has run). The driver plays what the daemon would see: a run ends when its
// estimate is used up, a job asked to stop stops after its checkpoint (Job::StopTakes), and
// the cycle runs at each such event and whenever the core asks to be woken (a slice end, a
// minimum runtime over, a deadline at risk). Every waiting job is in it, those behind a job
// too (they may take GPUs before it, as they would live): one forecast answers for the whole
// queue. Pure: no clock, I/O or randomness; the live scheduler is not touched.
#ifndef SQUEEZE_CORE_FORECAST_START_H_
#define SQUEEZE_CORE_FORECAST_START_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "core/scheduler.h"
#include "core/status.h"
#include "core/types.h"

namespace squeeze {

struct ForecastOptions {
  Time horizon = 30 * kDay;  // no further ahead than this
  // nor more cycles than this (each is a whole cycle of the policy: a job deep in a long queue
  // gets a lower bound instead, not_before)
  int max_cycles = 300;
};

struct StartForecast {
  // How long from now until the target starts; nullopt when it does not start within the
  // horizon (see missing_estimate).
  std::optional<Time> starts_after;
  // The other waiting jobs' starts on the way (how long from now): the forecast of any
  // of them; for each, how many stops the policy had asked for before it started (0: it starts
  // on GPUs that free up by themselves). Filled only when asked for (QueueForecast::Of).
  std::map<JobId, Time> starts_in;
  std::map<JobId, int> stops_before;
  int started_first = 0;  // how many jobs started before it (or, not started, in all)
  // A job without an estimate that holds GPUs in the forecast when the target did not start:
  // nobody can say when it frees them.
  std::optional<JobId> missing_estimate;
  // Running jobs already past their estimate: the forecast takes them to end now.
  std::vector<JobId> overrun;
  // The forecast stopped at max_cycles before the target started: it starts no sooner than
  // this long from now (a Time).
  std::optional<Time> not_before;
  int stops = 0;            // stops the policy asks for (preemption, slices, ...) on the way
  int cycles = 0;
};

// A forecast of the whole queue from a copy of the scheduler, driven only as far as asked, so
// that what one question ran answers the next: Until(id) runs cycles until `id` starts (or the
// forecast ends: its horizon, its cycles, nothing more happening), and Of(id) reads what it
// found for `id`. Not thread-safe (one caller at a time; the copy is its own).
class QueueForecast {
 public:
  QueueForecast(std::unique_ptr<Scheduler> copy, Time now, const ForecastOptions& options = {});
  ~QueueForecast();
  QueueForecast(const QueueForecast&) = delete;
  QueueForecast& operator=(const QueueForecast&) = delete;

  Time now() const { return now_; }
  // Whether `id` was waiting in the copy when the forecast began.
  bool Covers(JobId id) const { return waiting_.count(id) > 0; }
  // Drives the copy until `id` has started, or the forecast is over (0: until it is over).
  void Until(JobId id);
  // What the forecast says of `id` so far (call Until(id) first); with `starts`, the starts of
  // the jobs that started before it on the way.
  StartForecast Of(JobId id, bool starts = false) const;
  bool Over() const { return over_; }
  int cycles() const { return cycles_; }

 private:
  void Step();

  std::unique_ptr<Scheduler> sim_;
  struct Driver;
  std::unique_ptr<Driver> driver_;
  ForecastOptions options_;
  Time now_ = 0;
  Time t_ = 0;
  std::set<JobId> waiting_;
  std::map<JobId, Time> starts_;
  std::map<JobId, int> stops_before_;
  std::map<JobId, int> start_order_;  // how many jobs had started before it
  std::vector<JobId> overrun_;
  int stops_ = 0;
  int cycles_ = 0;
  bool over_ = false;
};

// One target: the whole-queue forecast run until `target` starts. Errors: `target` is
// unknown or not waiting.
Result<StartForecast> ForecastStart(const Scheduler& live, JobId target, Time now,
                                    const ForecastOptions& options = {});

}  // namespace squeeze

#endif  // SQUEEZE_CORE_FORECAST_START_H_
