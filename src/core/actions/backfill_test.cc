// Scenario tests of the backfill action: a blocked job gets a reservation (when it is expected
// to start and on which nodes); later jobs start only where they do not delay it.
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

// a0 (8 GPUs): job 1 holds 6 GPUs until 100 by estimate; job 2 needs 7 and waits for it, so
// its reservation (shadow time 100) leaves 1 GPU of a0 to jobs that run past 100.
void Reserve(Scenario& s) {
  s.Add(NewJob(1, 6, 0).Estimate(100 * kSecond));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3,4,5"));
  s.Add(NewJob(2, 7, kSecond));
}

TEST(BackfillTest, JobThatEndsBeforeTheShadowTimeStarts) {
  Scenario s(Cluster({{"a", 1, 8}}), "backfill");
  Reserve(s);
  s.Add(NewJob(3, 2, 2 * kSecond).Estimate(50 * kSecond));
  EXPECT_THAT(s.Cycle(2 * kSecond), ElementsAre("start 3 on a0:6,7"));
  s.Finish(3, 52 * kSecond);
  EXPECT_THAT(s.Cycle(52 * kSecond), IsEmpty());
  // The reserved job starts when its shadow time comes.
  s.Finish(1, 100 * kSecond);
  EXPECT_THAT(s.Cycle(100 * kSecond), ElementsAre("start 2 on a0:0,1,2,3,4,5,6"));
}

TEST(BackfillTest, JobEndingExactlyAtTheShadowTimeStarts) {
  Scenario s(Cluster({{"a", 1, 8}}), "backfill");
  Reserve(s);
  s.Add(NewJob(3, 2, 2 * kSecond).Estimate(98 * kSecond));
  EXPECT_THAT(s.Cycle(2 * kSecond), ElementsAre("start 3 on a0:6,7"));
}

TEST(BackfillTest, JobThatWouldDelayTheReservationWaits) {
  Scenario s(Cluster({{"a", 1, 8}}), "backfill");
  Reserve(s);
  s.Add(NewJob(3, 2, 2 * kSecond).Estimate(99 * kSecond));
  EXPECT_THAT(s.Cycle(2 * kSecond), IsEmpty());
  EXPECT_EQ(s.job(3).state, JobState::kPending);
}

TEST(BackfillTest, WithoutBackfillTheStrictQueueWaits) {
  Scenario s(Cluster({{"a", 1, 8}}), "fifo");
  Reserve(s);
  s.Add(NewJob(3, 2, 2 * kSecond).Estimate(50 * kSecond));
  EXPECT_THAT(s.Cycle(2 * kSecond), IsEmpty());
}

// A time limit is a promise: a running job with a limit and no estimate ends by it, so the
// waiting job's reservation has a time, and a job whose limit ends before it backfills.
TEST(BackfillTest, TimeLimitsGiveTheReservationATimeAndLetShortJobsBackfill) {
  Scenario s(Cluster({{"a", 1, 8}}), "backfill");
  s.Add(NewJob(1, 6, 0).TimeLimit(100 * kSecond));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3,4,5"));
  s.Add(NewJob(2, 7, kSecond));
  s.Add(NewJob(3, 2, 2 * kSecond).TimeLimit(50 * kSecond));  // ends by 52: before 100
  s.Add(NewJob(4, 1, 3 * kSecond).TimeLimit(200 * kSecond));  // would run past it on job 2's GPU
  EXPECT_THAT(s.Cycle(3 * kSecond), ElementsAre("start 3 on a0:6,7"));
  EXPECT_EQ(s.job(4).state, JobState::kPending);
}

// Without limits (nor estimates) the same jobs cannot backfill: nothing says when job 1 ends.
TEST(BackfillTest, WithoutLimitsTheSameJobsWait) {
  Scenario s(Cluster({{"a", 1, 8}}), "backfill");
  s.Add(NewJob(1, 6, 0));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3,4,5"));
  s.Add(NewJob(2, 7, kSecond));
  s.Add(NewJob(3, 2, 2 * kSecond));
  EXPECT_THAT(s.Cycle(3 * kSecond), IsEmpty());
}

// An estimate longer than the limit counts for no more than the limit.
TEST(BackfillTest, TheLimitCapsALongerEstimate) {
  Scenario s(Cluster({{"a", 1, 8}}), "backfill");
  s.Add(NewJob(1, 6, 0).Estimate(1000 * kSecond).TimeLimit(100 * kSecond));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3,4,5"));
  s.Add(NewJob(2, 7, kSecond));
  s.Add(NewJob(3, 2, 2 * kSecond).Estimate(500 * kSecond).TimeLimit(60 * kSecond));
  EXPECT_THAT(s.Cycle(2 * kSecond), ElementsAre("start 3 on a0:6,7"));
}

TEST(BackfillTest, JobWithoutEstimateTakesOnlySpareGpusOfTheReservedNode) {
  Scenario s(Cluster({{"a", 1, 8}}), "backfill");
  Reserve(s);
  s.Add(NewJob(3, 1, 2 * kSecond));
  s.Add(NewJob(4, 1, 3 * kSecond));
  EXPECT_THAT(s.Cycle(3 * kSecond), ElementsAre("start 3 on a0:6"));
  EXPECT_THAT(s.Cycle(4 * kSecond), IsEmpty());  // 3 took the spare GPU; a0:7 is held for job 2
}

TEST(BackfillTest, JobWithoutEstimateUsesOtherNodes) {
  // a0 has 8 GPUs, a1 2; job 2 (7 GPUs) can only ever run on a0.
  Scenario s(Cluster({{"a", 1, 8}, {"a", 1, 2}}), "backfill");
  Reserve(s);
  s.Add(NewJob(3, 2, 2 * kSecond));
  s.Add(NewJob(4, 1, 3 * kSecond));
  s.Add(NewJob(5, 1, 4 * kSecond));
  EXPECT_THAT(s.Cycle(4 * kSecond), ElementsAre("start 3 on a1:0,1", "start 4 on a0:6"));
  EXPECT_EQ(s.job(5).state, JobState::kPending);
}

TEST(BackfillTest, WithoutEstimatesTheClosestNodeIsHeld) {
  // Nothing says when job 2 fits: a0 (closest to holding it) is kept from jobs without an
  // estimate; a job with an estimate cannot delay a reservation that has no time.
  Scenario s(Cluster({{"a", 1, 8}}), "backfill");
  s.Add(NewJob(1, 6, 0));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3,4,5"));
  s.Add(NewJob(2, 7, kSecond));
  s.Add(NewJob(3, 1, 2 * kSecond));
  s.Add(NewJob(4, 1, 3 * kSecond).Estimate(10 * kSecond));
  EXPECT_THAT(s.Cycle(3 * kSecond), ElementsAre("start 4 on a0:6"));
}

TEST(BackfillTest, ReservationInOnePoolDoesNotHoldAnother) {
  Scenario s(Cluster({{"a", 1, 8}, {"b", 1, 4}}), "backfill");
  s.Add(NewJob(1, 6, 0).Pool("a").Estimate(100 * kSecond));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3,4,5"));
  s.Add(NewJob(2, 7, kSecond).Pool("a"));
  s.Add(NewJob(3, 4, 2 * kSecond).Pool("b"));
  s.Add(NewJob(4, 2, 3 * kSecond).Pool("a"));
  EXPECT_THAT(s.Cycle(3 * kSecond), ElementsAre("start 3 on b0:0,1,2,3"));
}

// A job that ends before its own scope's shadow time may still run past another scope's:
// it must not take what that reservation holds. Pool a (model x) reserves a0 for job 2 from
// 100 on, leaving 1 spare GPU; job 4 (any pool, model y only) is reserved b0 from 1000 on.
// Job 5 (any pool, 2 GPUs until 502) ends before 1000 but would hold a0:6,7 past 100.
TEST(BackfillTest, EndingBeforeOwnShadowDoesNotTakeAnotherReservation) {
  Scenario s(Cluster({{"a", 1, 8, "x"}, {"b", 1, 8, "y"}}), "backfill");
  s.Add(NewJob(1, 6, 0).Pool("a").Estimate(100 * kSecond));
  s.Add(NewJob(3, 8, 0).Models({"y"}).Estimate(1000 * kSecond));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3,4,5", "start 3 on b0:0,1,2,3,4,5,6,7"));
  s.Add(NewJob(2, 7, kSecond).Pool("a"));
  s.Add(NewJob(4, 8, kSecond).Models({"y"}));
  s.Add(NewJob(5, 2, 2 * kSecond).Estimate(500 * kSecond));
  EXPECT_THAT(s.Cycle(2 * kSecond), IsEmpty());
  s.Finish(1, 100 * kSecond);
  EXPECT_THAT(s.Cycle(100 * kSecond), ElementsAre("start 2 on a0:0,1,2,3,4,5,6"));
}

// A job of two nodes: its shadow time is when the second of the running jobs ends.
TEST(BackfillTest, MultiNodeReservationWaitsForEnoughNodes) {
  Scenario s(Cluster({{"a", 2, 8}}), "backfill");
  s.Add(NewJob(1, 8, 0).Estimate(100 * kSecond));
  s.Add(NewJob(2, 4, 0).Estimate(200 * kSecond));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3,4,5,6,7", "start 2 on a1:0,1,2,3"));
  s.Add(NewJob(3, 16, kSecond));
  s.Add(NewJob(4, 1, 2 * kSecond).Estimate(300 * kSecond));  // would run past 200
  s.Add(NewJob(5, 1, 3 * kSecond).Estimate(150 * kSecond));  // ends at 153
  s.Add(NewJob(6, 1, 4 * kSecond));                // no estimate: a1 has no spare GPU at 200
  EXPECT_THAT(s.Cycle(4 * kSecond), ElementsAre("start 5 on a1:4"));
  s.Finish(1, 100 * kSecond);
  EXPECT_THAT(s.Cycle(100 * kSecond), IsEmpty());  // a0 is held for job 3
  s.Finish(2, 200 * kSecond);
  s.Finish(5, 200 * kSecond);
  EXPECT_THAT(s.Cycle(200 * kSecond),
              ElementsAre("start 3 on a0:0,1,2,3,4,5,6,7 a1:0,1,2,3,4,5,6,7"));
}

TEST(BackfillTest, YoungBlockedJobIsPassedUntilReserveAfter) {
  Scenario s(Cluster({{"a", 1, 8}}), MakePolicy("backfill", {{"reserve_after", "10m"}}));
  Reserve(s);
  s.Add(NewJob(3, 1, 2 * kSecond));
  s.Add(NewJob(4, 1, 3 * kSecond));
  // Job 2 waited less than 10 minutes: no reservation yet, both newcomers start.
  EXPECT_THAT(s.Cycle(3 * kSecond), ElementsAre("start 3 on a0:6", "start 4 on a0:7"));
  s.Finish(3, 600 * kSecond);
  s.Finish(4, 600 * kSecond);
  s.Add(NewJob(5, 1, 600 * kSecond));
  s.Add(NewJob(6, 1, 600 * kSecond));
  // At 601 job 2 has waited 600 s: its reservation keeps one of the two free GPUs.
  EXPECT_THAT(s.Cycle(601 * kSecond), ElementsAre("start 5 on a0:6"));
}

// learned_estimates: after twenty 1-GPU jobs of 100 s, the order has learned that a job like
// them runs about 100 s more. Job 100 (4 GPUs) runs; job 101 (8 GPUs) is blocked and reserves
// a0 for when 100 is expected to end (t=10100); job 102 (2 GPUs, no estimate) is expected to
// end by then (all three arrive at t=10000), so it may use the reserved node's free GPUs, which it may not without learning.
void LearnThenBlock(Scenario& s) {
  for (JobId id = 1; id <= 20; ++id) {
    s.Add(NewJob(id, 1, id * 1000 * kSecond));
    EXPECT_EQ(s.Cycle(id * 1000 * kSecond).size(), 1u);
    s.Finish(id, (id * 1000 + 100) * kSecond);
  }
  s.Add(NewJob(100, 4, 10000 * kSecond));
  s.Add(NewJob(101, 8, 10000 * kSecond));
  s.Add(NewJob(102, 2, 10000 * kSecond));
}

TEST(LearnedEstimatesTest, AJobExpectedToEndBeforeTheShadowBackfills) {
  Scenario s(Cluster({{"a", 1, 8}}),
             MakePolicy("backfill", {{"job_order", "gittins"}, {"learned_estimates", "true"}}));
  LearnThenBlock(s);
  EXPECT_THAT(s.Cycle(10000 * kSecond),
              ElementsAre("start 100 on a0:0,1,2,3", "start 102 on a0:4,5"));
}

TEST(LearnedEstimatesTest, WithoutLearningTheReservedNodeStaysClosed) {
  Scenario s(Cluster({{"a", 1, 8}}),
             MakePolicy("backfill", {{"job_order", "gittins"}, {"learned_estimates", "false"}}));
  LearnThenBlock(s);
  EXPECT_THAT(s.Cycle(10000 * kSecond), ElementsAre("start 100 on a0:0,1,2,3"));
}

}  // namespace
}  // namespace squeeze
