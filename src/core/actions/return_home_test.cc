// The return_home action, and the long-job bridge on spot it ends.
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


// Pool home (one 4-GPU node) and a spot pool (two 4-GPU nodes) reclaimed every `mean` per
// node, with a 30-s warning.
ClusterSpec WithSpot(Time mean = 6 * kHour) {
  ClusterSpec spec = Cluster({{"home", 1, 4}, {"spot", 2, 4}});
  spec.pools[1].kind = PoolKind::kSpot;
  spec.pools[1].spot.mean_reclaim_interval = mean;
  spec.pools[1].spot.warning = 30 * kSecond;
  return spec;
}

Policy Policy_(bool aware = true, bool bridge = true) {
  return MakePolicy("fifo", {{"actions", "spot|allocate|return_home"},
                             {"learned_estimates", "false"},
                             {"spot_aware", aware ? "true" : "false"},
                             {"spot_long_job_bridge", bridge ? "true" : "false"}});
}

TEST(ReturnHomeTest, ALongJobBridgesItsWaitOnSpotAndComesHomeAtTheFirstRoom) {
  Scenario s(WithSpot(), Policy_());
  s.Add(NewJob(1, 4, 0).Pool("home").Estimate(4 * kHour));
  s.Cycle(0);
  // 24 h of work, a 60-s checkpoint: Daly's interval (26 min) breaks the 12-h rule, but the
  // wait at home (4 h) can be bridged on spot.
  s.Add(NewJob(2, 2, 0).Pool("home").Elastic().CheckpointCost(60 * kSecond).Estimate(24 * kHour));
  const auto lines = s.Cycle(0);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], StartsWith("start 2 on spot0:0,1 (on spot pool spot:"));
  EXPECT_THAT(lines[0], HasSubstr("a long job, there until its home has room"));
  EXPECT_TRUE(s.job(2).bridging);
  // Without the bridge the rule keeps it off.
  Scenario off(WithSpot(), Policy_(true, false));
  off.Add(NewJob(1, 4, 0).Pool("home").Estimate(4 * kHour));
  off.Cycle(0);
  off.Add(NewJob(2, 2, 0).Pool("home").Elastic().CheckpointCost(60 * kSecond).Estimate(24 * kHour));
  EXPECT_THAT(off.Cycle(0), IsEmpty());

  // Home has room at 4 h: the job checkpoints on spot and restarts there, where it was held.
  s.Finish(1, 4 * kHour);
  EXPECT_THAT(s.Cycle(4 * kHour), ElementsAre("stop 2: return home: room in its home pool"));
  EXPECT_EQ(s.sched().counters().returned_home, 1);
  s.Stop(2, 4 * kHour + kMinute);
  EXPECT_EQ(s.job(2).bridged, 4 * kHour + kMinute);
  EXPECT_FALSE(s.job(2).bridging);
  EXPECT_THAT(s.Cycle(4 * kHour + kMinute), ElementsAre(StartsWith("start 2 on home0:0,1 resume")));
  EXPECT_EQ(s.job(2).preemptions, 0);  // a move, not a preemption
}

TEST(ReturnHomeTest, ABridgeEndsAfterTwelveHoursOnSpotAndIsNotTakenAgain) {
  Scenario s(WithSpot(), Policy_());
  s.Add(NewJob(1, 4, 0).Pool("home").Estimate(48 * kHour));
  s.Cycle(0);
  s.Add(NewJob(2, 2, 0).Pool("home").Elastic().CheckpointCost(60 * kSecond).Estimate(24 * kHour));
  EXPECT_THAT(s.Cycle(0), ElementsAre(StartsWith("start 2 on spot0:0,1")));
  EXPECT_THAT(s.Cycle(12 * kHour - kSecond), IsEmpty());
  EXPECT_THAT(s.Cycle(12 * kHour),
              ElementsAre("stop 2: bridge on spot over: 12h on spot for a job longer than that"));
  s.Stop(2, 12 * kHour + kMinute);
  EXPECT_GT(s.job(2).work_done, 0);  // what it did on spot is kept
  // It has used its 12 h: it waits at home now.
  EXPECT_THAT(s.Cycle(12 * kHour + kMinute), IsEmpty());
  EXPECT_EQ(s.job(2).state, JobState::kPending);
}

TEST(ReturnHomeTest, AJobNearItsEndStaysWhereItRuns) {
  Scenario s(WithSpot(), Policy_());
  s.Add(NewJob(1, 4, 0).Pool("home").Estimate(4 * kHour));
  s.Cycle(0);
  s.Add(NewJob(2, 2, 0).Pool("home").Elastic().CheckpointCost(60 * kSecond).Estimate(kHour));
  EXPECT_THAT(s.Cycle(0), ElementsAre(StartsWith("start 2 on spot0:0,1")));
  s.Finish(1, 3300 * kSecond);
  // A few minutes of work left: the stop's checkpoint and a restart would cost more than the
  // reclaims it risks by staying.
  ASSERT_LT(*s.job(2).EstimatedRemaining(3300 * kSecond), 10 * kMinute);
  EXPECT_THAT(s.Cycle(3300 * kSecond), IsEmpty());
  EXPECT_EQ(s.sched().counters().returned_home, 0);
}

TEST(ReturnHomeTest, ALongJobThatIsNotABridgeComesHomeWhenSpotIsRiskier) {
  // Reclaimed every 20 min on average: Daly's interval is under 5 min, so a 24-h job may stay
  // on spot by the rule, but home (when it has room) finishes it sooner.
  Scenario s(WithSpot(20 * kMinute), Policy_());
  s.Add(NewJob(1, 4, 0).Pool("home").Estimate(48 * kHour));
  s.Cycle(0);
  s.Add(NewJob(2, 2, 0).Pool("home").Elastic().CheckpointCost(40 * kSecond).Estimate(24 * kHour));
  EXPECT_THAT(s.Cycle(0), ElementsAre(StartsWith("start 2 on spot0:0,1")));
  EXPECT_FALSE(s.job(2).bridging);
  s.Finish(1, kHour);  // long before its estimate
  EXPECT_THAT(s.Cycle(kHour), ElementsAre("stop 2: return home: room in its home pool"));
}

TEST(ReturnHomeTest, NaiveSpotUseNeverComesHome) {
  Scenario s(WithSpot(), Policy_(false));
  s.Add(NewJob(1, 4, 0).Pool("home").Estimate(4 * kHour));
  s.Cycle(0);
  s.Add(NewJob(2, 2, 0).Pool("home").Elastic().CheckpointCost(60 * kSecond).Estimate(24 * kHour));
  EXPECT_THAT(s.Cycle(0), ElementsAre(StartsWith("start 2 on spot0:0,1")));
  s.Finish(1, kHour);
  EXPECT_THAT(s.Cycle(kHour), IsEmpty());
}

TEST(ReturnHomeTest, AColocatedJobComesHomeToRunAtFullSpeed) {
  ClusterSpec spec = Cluster({{"home", 1, 2}, {"infer", 1, 2}});
  spec.pools[1].kind = PoolKind::kColocated;
  spec.pools[1].colocation.evict_within = kMinute;
  Scenario s(spec, MakePolicy("fifo", {{"actions", "colocate|allocate|return_home"},
                                       {"learned_estimates", "false"}}));
  s.Add(NewJob(1, 2, 0).Pool("home").Estimate(2 * kHour));
  s.Add(NewJob(2, 1, 0).Pool("home").Elastic().CheckpointCost(20 * kSecond).Estimate(6 * kHour));
  ASSERT_TRUE(s.sched().SetInferenceLoad(1, 0, 0.1, 0).ok());
  ASSERT_TRUE(s.sched().SetInferenceLoad(1, 1, 0.1, 0).ok());
  EXPECT_THAT(s.Cycle(0), ElementsAre(StartsWith("start 2 on infer0:"), "start 1 on home0:0,1"));
  EXPECT_NEAR(s.last()[0].speed, 0.6, 1e-9);
  s.Finish(1, 600 * kSecond);
  // Almost 6 h of work left at 60% speed there, against a 20-s checkpoint and a restart.
  EXPECT_THAT(s.Cycle(600 * kSecond), ElementsAre("stop 2: return home: room in its home pool"));
  s.Stop(2, 620 * kSecond);
  EXPECT_EQ(s.job(2).work_done, 360 * kSecond);  // 600 s at 0.6, all saved
  EXPECT_THAT(s.Cycle(620 * kSecond), ElementsAre(StartsWith("start 2 on home0:0 resume")));
  EXPECT_NEAR(s.last()[0].speed, 1.0, 1e-9);
}

}  // namespace
}  // namespace squeeze
