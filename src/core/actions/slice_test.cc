// Scenario tests of the slice action: a checkpointable, preemptible job runs in slices; at a
// slice end it yields to a waiting job that ranks ahead of it, or runs another slice.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;

// LAS with the default thresholds (3600, 36000, ... GPU-seconds) and 1800 s slices.
Policy Slicing() {
  return MakePolicy("fifo", {{"job_order", "las"}, {"actions", "allocate|slice"}});
}

TEST(SliceTest, YieldsAtSliceEndToAJobThatRanksAhead) {
  Scenario s(Cluster({{"a", 1, 4}}), Slicing());
  s.Add(NewJob(1, 4, 0).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3 slice_end=1800"));
  EXPECT_EQ(s.sched().NextWakeup(), 1800 * kSecond);
  s.Add(NewJob(2, 4, 100 * kSecond));
  EXPECT_THAT(s.Cycle(100 * kSecond), IsEmpty());
  EXPECT_THAT(s.Cycle(1799 * kSecond), IsEmpty());
  // At 1800 job 1 attained 7200 GPU-s (LAS level 1); job 2 is in level 0.
  EXPECT_THAT(s.Settle(1800 * kSecond),
              ElementsAre("stop 1: slice ended; yields to 2", "start 2 on a0:0,1,2,3"));
  EXPECT_EQ(s.sched().counters().slice_yields, 1);
  EXPECT_EQ(s.sched().counters().preemptions, 0);
  EXPECT_EQ(s.job(1).work_done, 1800 * kSecond);
  EXPECT_EQ(s.job(1).preemptions, 1);
  EXPECT_EQ(s.sched().NextWakeup(), kNever);  // job 2 is not sliced
  // Resumed, its next slice starts after the restart overhead.
  s.Finish(2, 2000 * kSecond);
  EXPECT_THAT(s.Cycle(2000 * kSecond),
              ElementsAre("start 1 on a0:0,1,2,3 resume overhead=30 slice_end=3830"));
  EXPECT_EQ(s.sched().NextWakeup(), 3830 * kSecond);
}

// A run whose backend starts its process late (a Slurm batch launch): its slice and minimum
// runtime count from the launch.
TEST(SliceTest, ASliceCountsFromTheLaunchOfARunThatAwaitsIt) {
  Policy policy = Slicing();
  policy.min_runtime = 10 * kMinute;
  Scenario s(Cluster({{"a", 1, 4}}), policy);
  s.Add(NewJob(1, 4, 0).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3 slice_end=1800"));
  ASSERT_TRUE(s.sched().AwaitLaunch(1).ok());
  EXPECT_EQ(s.job(1).slice_end, kNever);
  EXPECT_EQ(s.sched().NextWakeup(), kNever);
  s.Add(NewJob(2, 4, 100 * kSecond));
  EXPECT_THAT(s.Cycle(1800 * kSecond), IsEmpty());  // not launched: its slice has not begun
  ASSERT_TRUE(s.sched().Launched(1, 1900 * kSecond).ok());
  EXPECT_EQ(s.job(1).slice_end, 3700 * kSecond);
  EXPECT_EQ(s.job(1).min_runtime_until, 2500 * kSecond);
  EXPECT_EQ(s.job(1).run_overhead, 0);  // its expected end is where it was
  EXPECT_EQ(s.sched().NextWakeup(), 3700 * kSecond);
  // A second report of the same launch changes nothing.
  ASSERT_TRUE(s.sched().Launched(1, 2000 * kSecond).ok());
  EXPECT_EQ(s.job(1).slice_end, 3700 * kSecond);
  EXPECT_THAT(s.Cycle(3699 * kSecond), IsEmpty());
  EXPECT_THAT(s.Settle(3700 * kSecond),
              ElementsAre("stop 1: slice ended; yields to 2", "start 2 on a0:0,1,2,3"));
  EXPECT_FALSE(s.sched().AwaitLaunch(1).ok());  // waiting, not running
  EXPECT_FALSE(s.sched().Launched(9, 0).ok());  // unknown
}

TEST(SliceTest, AJobHeldButIdleYieldsToItsOwnClassWhenThePolicySaysSo) {
  // FIFO within urgency classes: job 1 (earlier) ranks ahead of job 2 and keeps its GPUs at
  // its slice end, until it is reported held but idle.
  for (const bool yields : {false, true}) {
    SCOPED_TRACE(yields);
    Scenario s(Cluster({{"a", 1, 4}}),
               MakePolicy("fifo", {{"actions", "allocate|slice"}, {"priority", "true"},
                                   {"held_idle_yields", yields ? "true" : "false"}}));
    s.Add(NewJob(1, 4, 0).Elastic());
    s.Cycle(0);
    s.Add(NewJob(2, 4, 100 * kSecond));
    EXPECT_THAT(s.Cycle(1800 * kSecond), IsEmpty());  // nothing is idle yet: job 1 goes on
    ASSERT_TRUE(s.sched().SetHeldIdle(1, true).ok());
    if (yields) {
      EXPECT_THAT(s.Settle(kHour),
                  ElementsAre("stop 1: slice ended; yields to 2", "start 2 on a0:0,1,2,3"));
      EXPECT_FALSE(s.job(1).held_idle);  // a new run starts afresh
    } else {
      EXPECT_THAT(s.Cycle(kHour), IsEmpty());
    }
  }
  Scenario s(Cluster({{"a", 1, 4}}), Slicing());
  EXPECT_FALSE(s.sched().SetHeldIdle(7, true).ok());  // no such job
}

TEST(SliceTest, ContinuesWhenNothingWaits) {
  Scenario s(Cluster({{"a", 1, 4}}), Slicing());
  s.Add(NewJob(1, 4, 0).Elastic());
  s.Cycle(0);
  EXPECT_THAT(s.Cycle(1800 * kSecond), IsEmpty());
  EXPECT_EQ(s.job(1).slice_end, kHour);
  EXPECT_EQ(s.job(1).slices, 1);
  EXPECT_EQ(s.sched().NextWakeup(), kHour);
  // A late cycle moves the slice end past now.
  EXPECT_THAT(s.Cycle(7300 * kSecond), IsEmpty());
  EXPECT_EQ(s.job(1).slice_end, 9000 * kSecond);
  EXPECT_EQ(s.job(1).slices, 2);
  EXPECT_EQ(s.sched().NextWakeup(), 9000 * kSecond);
}

TEST(SliceTest, ContinuesWhenTheWaitingJobRanksBehind) {
  Scenario s(Cluster({{"a", 1, 1}}), Slicing());
  s.Add(NewJob(1, 1, 0).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0 slice_end=1800"));
  s.Add(NewJob(2, 1, 100 * kSecond));
  // 1800 GPU-s: both in LAS level 0, and 1 arrived first.
  EXPECT_THAT(s.Settle(1800 * kSecond), IsEmpty());
  EXPECT_EQ(s.job(1).slice_end, kHour);
  // 3600 GPU-s: level 1, behind job 2.
  EXPECT_THAT(s.Settle(kHour), ElementsAre("stop 1: slice ended; yields to 2", "start 2 on a0:0"));
}

TEST(SliceTest, OnlyCheckpointablePreemptibleJobsAreSliced) {
  Scenario s(Cluster({{"a", 1, 4}}), Slicing());
  s.Add(NewJob(1, 1, 0).Preemptible());
  s.Add(NewJob(2, 1, 0).Checkpointable());
  s.Add(NewJob(3, 1, 0).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0", "start 2 on a0:1",
                                      "start 3 on a0:2 slice_end=1800"));
}

TEST(SliceTest, NoSliceWithoutTheAction) {
  Scenario s(Cluster({{"a", 1, 4}}), "fifo");
  s.Add(NewJob(1, 1, 0).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0"));
  EXPECT_EQ(s.sched().NextWakeup(), kNever);
}

TEST(SliceTest, SliceLengthIsAPolicyOption) {
  Policy p = Slicing();
  ASSERT_TRUE(SetPolicyOption(p, "slice", "10m").ok());
  ASSERT_TRUE(SetPolicyOption(p, "las_thresholds", "1000|10000").ok());
  Scenario s(Cluster({{"a", 1, 4}}), p);
  s.Add(NewJob(1, 4, 0).Elastic());
  EXPECT_THAT(s.Cycle(5 * kSecond), ElementsAre("start 1 on a0:0,1,2,3 slice_end=605"));
  s.Add(NewJob(2, 4, 6 * kSecond));
  EXPECT_THAT(s.Settle(604 * kSecond), IsEmpty());
  EXPECT_THAT(s.Settle(605 * kSecond),  // 2400 GPU-s: level 1
              ElementsAre("stop 1: slice ended; yields to 2", "start 2 on a0:0,1,2,3"));
}

TEST(SliceTest, UrgentWaitingJobRanksAheadWithPriority) {
  Scenario s(Cluster({{"a", 1, 1}}),
             MakePolicy("fifo", {{"priority", "true"}, {"actions", "allocate|slice"}}));
  s.Add(NewJob(1, 1, 0).Elastic());
  s.Cycle(0);
  s.Add(NewJob(2, 1, 10 * kSecond).Urgency(Urgency::kLow));
  EXPECT_THAT(s.Settle(1800 * kSecond), IsEmpty());
  s.Add(NewJob(3, 1, 2000 * kSecond).Urgency(Urgency::kHigh));
  // No preempt action: it waits for the slice end.
  EXPECT_THAT(s.Settle(2000 * kSecond), IsEmpty());
  EXPECT_THAT(s.Settle(kHour), ElementsAre("stop 1: slice ended; yields to 3", "start 3 on a0:0"));
}

}  // namespace
}  // namespace squeeze
