// WhyForecasts: one whole-queue forecast per published state answers every why of it; in the
// background mode a why of a newer state is answered at once from the last forecast (no older
// than max_stale) while the thread forecasts the new state.
#include "serve/why_forecasts.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using testing::Cluster;
using testing::NewJob;

// One node of 4 GPUs: job 1 holds it from 0 for 600 s; jobs 2 (2 GPUs) and 3 (4 GPUs) wait.
class WhyForecastsTest : public ::testing::Test {
 protected:
  WhyForecastsTest() {
    sched_ = std::move(Scheduler::Create(Cluster({{"local", 1, 4}}), *NamedPolicy("fifo")).value());
    Submit(NewJob(1, 4, 0).Estimate(600 * kSecond), 0);
    Submit(NewJob(2, 2, 50 * kSecond).Estimate(100 * kSecond), 50 * kSecond);
    Submit(NewJob(3, 4, 60 * kSecond).Estimate(50 * kSecond), 60 * kSecond);
  }
  void Submit(const JobSpec& spec, Time now) {
    ASSERT_TRUE(sched_->Submit(spec, now).ok());
    (void)sched_->Cycle(now);
  }
  SchedulerState Publish() { return {++generation_, std::shared_ptr<const Scheduler>(sched_->Clone())}; }
  static bool WaitForMade(const WhyForecasts& f, int64_t made) {
    for (int i = 0; i < 500 && f.Made() < made; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return f.Made() >= made;
  }

  std::unique_ptr<Scheduler> sched_;
  uint64_t generation_ = 0;
};

TEST_F(WhyForecastsTest, OneForecastAnswersEveryWhyOfAState) {
  WhyForecasts forecasts({});
  const SchedulerState state = Publish();
  const WhyForecasts::Answer c = forecasts.Of(state, 3, 100 * kSecond);
  EXPECT_EQ(c.forecast.starts_after, 600 * kSecond);
  EXPECT_EQ(c.made_at, 100 * kSecond);
  const int cycles = c.forecast.cycles;
  const WhyForecasts::Answer b = forecasts.Of(state, 2, 110 * kSecond);  // ahead of 3: found
  EXPECT_EQ(b.forecast.starts_after, 500 * kSecond);
  EXPECT_EQ(b.made_at, 100 * kSecond) << "not the forecast made for job 3";
  EXPECT_EQ(b.forecast.cycles, cycles) << "the forecast was driven again";
  EXPECT_EQ(forecasts.Made(), 1);
  // A new state: a new forecast, of it.
  Submit(NewJob(4, 1, 200 * kSecond).Estimate(10 * kSecond), 200 * kSecond);
  const SchedulerState next = Publish();
  const WhyForecasts::Answer again = forecasts.Of(next, 2, 200 * kSecond);
  EXPECT_EQ(again.generation, next.generation);
  EXPECT_EQ(again.made_at, 200 * kSecond);
  EXPECT_EQ(again.forecast.starts_after, 400 * kSecond);
  EXPECT_EQ(forecasts.Made(), 2);
}

TEST_F(WhyForecastsTest, InTheBackgroundAWhyOfANewStateIsAnsweredFromTheLastForecast) {
  WhyForecasts forecasts({.background = true, .max_stale = kMinute});
  const SchedulerState first = Publish();
  // None yet: made by the why.
  EXPECT_EQ(forecasts.Of(first, 2, 100 * kSecond).forecast.starts_after, 500 * kSecond);
  const SchedulerState second = Publish();
  const WhyForecasts::Answer stale = forecasts.Of(second, 2, 130 * kSecond);
  EXPECT_EQ(stale.generation, first.generation);
  EXPECT_EQ(stale.made_at, 100 * kSecond);
  EXPECT_EQ(stale.forecast.starts_after, 500 * kSecond)
      << "counted from when it was made (the caller subtracts)";
  ASSERT_TRUE(WaitForMade(forecasts, 2)) << "no forecast of the new state in the background";
  const WhyForecasts::Answer fresh = forecasts.Of(second, 2, 131 * kSecond);
  EXPECT_EQ(fresh.generation, second.generation);
  EXPECT_EQ(fresh.made_at, 130 * kSecond);
  EXPECT_EQ(fresh.forecast.starts_after, 470 * kSecond);
}

TEST_F(WhyForecastsTest, AForecastOlderThanMaxStaleOrWithoutTheJobIsNotUsed) {
  WhyForecasts forecasts({.background = true, .max_stale = kMinute});
  const SchedulerState first = Publish();
  (void)forecasts.Of(first, 2, 100 * kSecond);
  const SchedulerState second = Publish();
  // 100 s after: too old.
  const WhyForecasts::Answer late = forecasts.Of(second, 2, 200 * kSecond);
  EXPECT_EQ(late.generation, second.generation);
  EXPECT_EQ(late.made_at, 200 * kSecond);
  EXPECT_EQ(late.forecast.starts_after, 400 * kSecond);
  // Not in any forecast so far.
  Submit(NewJob(5, 1, 205 * kSecond).Estimate(10 * kSecond), 205 * kSecond);
  const SchedulerState third = Publish();
  const WhyForecasts::Answer new_job = forecasts.Of(third, 5, 210 * kSecond);
  EXPECT_EQ(new_job.generation, third.generation);
  EXPECT_TRUE(new_job.forecast.starts_after.has_value());
}

}  // namespace
}  // namespace squeeze
