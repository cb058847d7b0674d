// Recurring idle windows of colocated GPUs: the forecast from past weeks, and the colocate
// action placing only work that fits the window (ColocationSpec::idle_windows).
#include "core/idle_forecast.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;

// Pool home (one 2-GPU node) and pool lab (one 2-GPU node whose owner uses it 08:00-20:00
// every day: load 0.8, else 0).
ClusterSpec WithLab() {
  ClusterSpec spec = Cluster({{"home", 1, 2}, {"lab", 1, 2}});
  spec.pools[1].kind = PoolKind::kColocated;
  spec.pools[1].colocation.cap = 0.95;
  spec.pools[1].colocation.evict_within = 300 * kSecond;
  spec.pools[1].colocation.idle_windows = true;
  return spec;
}

// Owner days from day `from` to day `to` (exclusive) on both lab GPUs; day 0 starts idle.
void OwnerDays(Scenario& s, int from, int to) {
  for (int day = from; day < to; ++day) {
    for (int g = 0; g < 2; ++g) {
      ASSERT_TRUE(s.sched().SetInferenceLoad(1, g, 0.0, day * kDay).ok());
      ASSERT_TRUE(s.sched().SetInferenceLoad(1, g, 0.8, day * kDay + 8 * kHour).ok());
      ASSERT_TRUE(s.sched().SetInferenceLoad(1, g, 0.0, day * kDay + 20 * kHour).ok());
    }
  }
}

Policy Colocate() {
  return MakePolicy("fifo", {{"actions", "colocate|allocate"}, {"learned_estimates", "false"}});
}

TEST(IdleForecastTest, TheWindowIsWhatTheSameMomentOfThePastWeeksShowed) {
  Scenario s(WithLab(), Colocate());
  OwnerDays(s, 0, 13);
  // Under two weeks seen: no forecast.
  EXPECT_EQ(s.sched().PredictedIdleWindow(1, 0, 13 * kDay + 21 * kHour), std::nullopt);
  OwnerDays(s, 13, 15);
  // Day 14, 21:00 (two weeks on): open until 08:00 the day after in both past weeks.
  ASSERT_TRUE(s.sched().PredictedIdleWindow(1, 0, 14 * kDay + 21 * kHour).has_value());
  EXPECT_EQ(*s.sched().PredictedIdleWindow(1, 0, 14 * kDay + 21 * kHour), 11 * kHour);
  // Closed now (the owner is back at 08:00): no window.
  ASSERT_TRUE(s.sched().SetInferenceLoad(1, 0, 0.8, 15 * kDay + 8 * kHour).ok());
  EXPECT_EQ(s.sched().PredictedIdleWindow(1, 0, 15 * kDay + 10 * kHour), std::nullopt);
}

TEST(IdleForecastTest, AWeekThatBrokeThePatternCountsAgainstIt) {
  Scenario s(WithLab(), Colocate());
  OwnerDays(s, 0, 7);
  // Week 2: the owner also works day 8's night (until 04:00 on day 9).
  OwnerDays(s, 7, 8);
  ASSERT_TRUE(s.sched().SetInferenceLoad(1, 0, 0.0, 8 * kDay).ok());
  ASSERT_TRUE(s.sched().SetInferenceLoad(1, 0, 0.8, 8 * kDay + 8 * kHour).ok());
  ASSERT_TRUE(s.sched().SetInferenceLoad(1, 0, 0.0, 9 * kDay + 4 * kHour).ok());
  ASSERT_TRUE(s.sched().SetInferenceLoad(1, 0, 0.8, 9 * kDay + 8 * kHour).ok());
  ASSERT_TRUE(s.sched().SetInferenceLoad(1, 0, 0.0, 9 * kDay + 20 * kHour).ok());
  for (int day = 10; day < 16; ++day) {
    ASSERT_TRUE(s.sched().SetInferenceLoad(1, 0, 0.8, day * kDay + 8 * kHour).ok());
    ASSERT_TRUE(s.sched().SetInferenceLoad(1, 0, 0.0, day * kDay + 20 * kHour).ok());
  }
  // Day 15, 21:00: a week ago (day 8, 21:00) it was busy; two weeks ago open 11 h. With 0.8
  // of the weeks needed, the window is 0: the broken week counts.
  ASSERT_TRUE(s.sched().PredictedIdleWindow(1, 0, 15 * kDay + 21 * kHour).has_value());
  EXPECT_EQ(*s.sched().PredictedIdleWindow(1, 0, 15 * kDay + 21 * kHour), 0);
  // Day 16, 21:00: both past weeks were open until 08:00.
  ASSERT_TRUE(s.sched().SetInferenceLoad(1, 0, 0.8, 16 * kDay + 8 * kHour).ok());
  ASSERT_TRUE(s.sched().SetInferenceLoad(1, 0, 0.0, 16 * kDay + 20 * kHour).ok());
  EXPECT_EQ(*s.sched().PredictedIdleWindow(1, 0, 16 * kDay + 21 * kHour), 11 * kHour);
}

TEST(IdleForecastTest, ColocatePlacesOnlyLowUrgencyWorkThatFitsTheWindow) {
  Scenario s(WithLab(), Colocate());
  OwnerDays(s, 0, 15);
  const Time now = 14 * kDay + 21 * kHour;  // 11 h of window left
  s.Add(NewJob(1, 2, now).Pool("home").Estimate(48 * kHour));
  s.Cycle(now);  // home is full for two days
  // 5 h, checkpoints in 10 min (longer than evict_within): fits the window.
  s.Add(NewJob(2, 1, now).Pool("home").Elastic().CheckpointCost(10 * kMinute).Estimate(5 * kHour));
  // 20 h, same checkpoint: does not fit, and could not save when the owner comes back.
  s.Add(NewJob(3, 1, now).Pool("home").Elastic().CheckpointCost(10 * kMinute).Estimate(20 * kHour));
  // Urgent: stays off.
  s.Add(NewJob(4, 1, now).Pool("home").Elastic().Urgency(Urgency::kHigh).Estimate(kHour));
  const auto lines = s.Cycle(now);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], StartsWith("start 2 on lab0:"));
  EXPECT_THAT(lines[0], HasSubstr("idle window of 11h left"));
  // A 20-h job that saves within evict_within (60 s) goes for a useful part of the night, and
  // leaves with a checkpoint before the owner is predicted back (08:00, less its checkpoint).
  s.Add(NewJob(5, 1, now).Pool("home").Elastic().CheckpointCost(60 * kSecond).Estimate(20 * kHour));
  EXPECT_THAT(s.Cycle(now), ElementsAre(StartsWith("start 5 on lab0:")));
  EXPECT_EQ(s.last()[0].slice_end, now + 11 * kHour - 60 * kSecond);
  EXPECT_EQ(s.job(5).leave_window_at, now + 11 * kHour - 60 * kSecond);
  // Without idle_windows the 20-h job 3 would have gone too (Daly's expectation alone).
  ClusterSpec plain = WithLab();
  plain.pools[1].colocation.idle_windows = false;
  Scenario p(plain, Colocate());
  OwnerDays(p, 0, 15);
  p.Add(NewJob(1, 2, now).Pool("home").Estimate(48 * kHour));
  p.Cycle(now);
  p.Add(NewJob(3, 1, now).Pool("home").Elastic().CheckpointCost(10 * kMinute).Estimate(20 * kHour));
  EXPECT_THAT(p.Cycle(now), ElementsAre(StartsWith("start 3 on lab0:")));
}

TEST(IdleForecastTest, ARunThatWouldOutlastTheWindowLeavesBeforeTheOwnerIsBack) {
  Scenario s(WithLab(), MakePolicy("fifo", {{"actions", "colocate|allocate|return_home"},
                                            {"learned_estimates", "false"}}));
  OwnerDays(s, 0, 15);
  const Time now = 14 * kDay + 21 * kHour;
  s.Add(NewJob(1, 2, now).Pool("home").Estimate(48 * kHour));
  s.Cycle(now);
  s.Add(NewJob(2, 1, now).Pool("home").Elastic().CheckpointCost(60 * kSecond).Estimate(20 * kHour));
  EXPECT_THAT(s.Cycle(now), ElementsAre(StartsWith("start 2 on lab0:")));
  const Time leave = now + 11 * kHour - 60 * kSecond;
  EXPECT_EQ(s.sched().NextWakeup(), leave);
  EXPECT_THAT(s.Cycle(leave - kSecond), IsEmpty());
  EXPECT_THAT(s.Cycle(leave), ElementsAre("stop 2: idle window ends: it leaves before the GPU's "
                                          "owner is predicted back"));
  s.Stop(2, leave + 60 * kSecond);
  EXPECT_EQ(s.job(2).state, JobState::kPending);
  EXPECT_EQ(s.job(2).leave_window_at, kNever);
  EXPECT_EQ(s.sched().counters().inference_evictions, 0);  // it left before being evicted
}

}  // namespace
}  // namespace squeeze
