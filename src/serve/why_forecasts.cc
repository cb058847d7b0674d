#include "serve/why_forecasts.h"

#include <utility>

#include "exec/command_runner.h"

namespace squeeze {

WhyForecasts::~WhyForecasts() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<WhyForecasts::Memo> WhyForecasts::NewMemo(const SchedulerState& state,
                                                          Time now) const {
  auto memo = std::make_shared<Memo>();
  memo->generation = state.generation;
  memo->forecast =
      std::make_unique<QueueForecast>(state.scheduler->Clone(), now, options_.forecast);
  return memo;
}

void WhyForecasts::Keep(std::shared_ptr<Memo> memo) {
  ++made_;
  if (!latest_ || latest_->generation < memo->generation ||
      (latest_->generation == memo->generation &&
       latest_->forecast->now() < memo->forecast->now())) {
    latest_ = std::move(memo);
  }
}

void WhyForecasts::Want(const SchedulerState& state, Time now) {
  if (wanted_.scheduler && wanted_.generation >= state.generation) return;
  wanted_ = state;
  wanted_now_ = now;
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  cv_.notify_all();
}

void WhyForecasts::Loop() {
  LowerThisThreadsPriority(kBackgroundNicer);  // the whys it serves answer from what it made
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || wanted_.scheduler != nullptr; });
    if (stop_) return;
    SchedulerState state = std::move(wanted_);
    wanted_ = {};
    const Time now = wanted_now_;
    if (latest_ && latest_->generation >= state.generation) continue;
    lock.unlock();
    std::shared_ptr<Memo> memo = NewMemo(state, now);
    memo->forecast->Until(0);  // the whole queue, as far as the forecast goes
    lock.lock();
    Keep(std::move(memo));
  }
}

WhyForecasts::Answer WhyForecasts::Of(const SchedulerState& state, JobId id, Time now) {
  std::shared_ptr<Memo> memo;
  {
    std::lock_guard lock(mu_);
    const bool covers = latest_ && latest_->forecast->Covers(id);
    if (covers && latest_->generation >= state.generation) {
      memo = latest_;
    } else if (covers && options_.background && now - latest_->forecast->now() <= options_.max_stale) {
      memo = latest_;
      Want(state, now);
    }
  }
  if (!memo) {
    memo = NewMemo(state, now);
    std::lock_guard lock(mu_);
    Keep(memo);
  }
  std::lock_guard drive(memo->mu);
  memo->forecast->Until(id);
  return {memo->forecast->Of(id), memo->forecast->now(), memo->generation};
}

int64_t WhyForecasts::Made() const {
  std::lock_guard lock(mu_);
  return made_;
}

}  // namespace squeeze
