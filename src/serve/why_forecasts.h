// The forecasts `squeeze why` answers from: one whole-queue forecast (core/forecast_start.h) per
// published state of the scheduler, shared by every why of that state and driven only as far
// as the questions need. In the background mode (the daemon's) a why is answered at once from
// the latest forecast, even of an earlier state (made at most max_stale ago), while a thread
// forecasts the newest state; a why that nothing recent answers forecasts in its own thread.
// Thread-safe. Owns its thread (joined when destroyed).
#ifndef SQUEEZE_SERVE_WHY_FORECASTS_H_
#define SQUEEZE_SERVE_WHY_FORECASTS_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "core/scheduler.h"
#include "core/forecast_start.h"

namespace squeeze {

// A published state of the live scheduler: an immutable copy and its number (higher: newer).
struct SchedulerState {
  uint64_t generation = 0;
  std::shared_ptr<const Scheduler> scheduler;
};

class WhyForecasts {
 public:
  struct Options {
    bool background = false;
    Time max_stale = kMinute;  // background: the oldest forecast (by its now) a why answers from
    ForecastOptions forecast;
  };
  explicit WhyForecasts(Options options) : options_(options) {}
  ~WhyForecasts();
  WhyForecasts(const WhyForecasts&) = delete;
  WhyForecasts& operator=(const WhyForecasts&) = delete;

  struct Answer {
    StartForecast forecast;  // its times counted from made_at
    Time made_at = 0;        // the forecast's now
    uint64_t generation = 0;  // of the state it was made of
  };
  // What a forecast says of `id`, waiting in `state`, asked at `now`.
  Answer Of(const SchedulerState& state, JobId id, Time now);
  // Forecasts made so far, in the background and in the callers' threads (for tests, benches).
  int64_t Made() const;

 private:
  struct Memo {
    uint64_t generation = 0;
    std::mutex mu;  // whoever drives the forecast further holds it
    std::unique_ptr<QueueForecast> forecast;
  };
  std::shared_ptr<Memo> NewMemo(const SchedulerState& state, Time now) const;
  // Keeps `memo` as the latest unless a newer one is there. Under mu_.
  void Keep(std::shared_ptr<Memo> memo);
  // Asks the thread for a forecast of `state` (started on first use). Under mu_.
  void Want(const SchedulerState& state, Time now);
  void Loop();

  const Options options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::shared_ptr<Memo> latest_;
  SchedulerState wanted_;
  Time wanted_now_ = 0;
  bool stop_ = false;
  int64_t made_ = 0;
  std::thread thread_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_WHY_FORECASTS_H_
