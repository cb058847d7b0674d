// Scenario tests of the allocate action: head-of-line order per pool, greedy allocation, and
// the judgements that order the queue it walks (fair share, deadline risk, urgency).
#include <memory>

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

// Pool a: 3 of 4 GPUs taken; a 2-GPU job waits at the head, a 1-GPU job that would fit behind
// it; pool b has a 1-GPU job.
void BlockPoolA(Scenario& s) {
  s.Add(NewJob(1, 3, 0).Pool("a"));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2"));
  s.Add(NewJob(2, 2, kSecond).Pool("a"));
  s.Add(NewJob(3, 1, 2 * kSecond).Pool("a"));
  s.Add(NewJob(4, 1, 3 * kSecond).Pool("b"));
}

TEST(AllocateTest, StrictBlocksOnlyTheBlockedJobsPool) {
  Scenario s(Cluster({{"a", 1, 4}, {"b", 1, 4}}), "fifo");
  BlockPoolA(s);
  EXPECT_THAT(s.Cycle(3 * kSecond), ElementsAre("start 4 on b0:0"));
  EXPECT_EQ(s.sched().PendingCount(), 2u);
  // The head starts first once it fits, then the job behind it.
  s.Finish(1, 10 * kSecond);
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("start 2 on a0:0,1", "start 3 on a0:2"));
}

TEST(AllocateTest, GreedyLetsLaterJobsPass) {
  Scenario s(Cluster({{"a", 1, 4}, {"b", 1, 4}}), MakePolicy("fifo", {{"strict", "false"}}));
  BlockPoolA(s);
  EXPECT_THAT(s.Cycle(3 * kSecond), ElementsAre("start 3 on a0:3", "start 4 on b0:0"));
  EXPECT_EQ(s.job(2).state, JobState::kPending);
}

TEST(AllocateTest, JobWithoutPoolTakesTheFirstPoolThatFits) {
  Scenario s(Cluster({{"a", 1, 4}, {"b", 1, 4}}), "fifo");
  s.Add(NewJob(1, 3, 0));
  s.Add(NewJob(2, 2, kSecond));
  s.Add(NewJob(3, 1, 2 * kSecond));
  EXPECT_THAT(s.Cycle(2 * kSecond),
              ElementsAre("start 1 on a0:0,1,2", "start 2 on b0:0,1", "start 3 on a0:3"));
}

TEST(AllocateTest, StartRecordsTheRun) {
  Scenario s(Cluster({{"a", 1, 4}}), "fifo");
  s.Add(NewJob(1, 4, 0));
  s.Add(NewJob(2, 2, 5 * kSecond).Elastic());
  EXPECT_THAT(s.Cycle(5 * kSecond), ElementsAre("start 1 on a0:0,1,2,3"));
  EXPECT_THAT(s.Cycle(6 * kSecond), IsEmpty());
  s.Finish(1, 50 * kSecond);
  EXPECT_THAT(s.Cycle(60 * kSecond), ElementsAre("start 2 on a0:0,1"));  // fifo has no slice action
  const Job& j = s.job(2);
  EXPECT_EQ(j.state, JobState::kRunning);
  EXPECT_EQ(j.first_start, 60 * kSecond);
  EXPECT_EQ(j.run_start, 60 * kSecond);
  EXPECT_EQ(j.run_overhead, 0);
  EXPECT_EQ(j.total_wait, 55 * kSecond);
  EXPECT_EQ(j.starts, 1);
  EXPECT_FALSE(j.borrowed);
  EXPECT_EQ(s.sched().cluster().node(0).whole_free, 2);
  EXPECT_EQ(s.sched().counters().starts, 2);
}

TEST(FairShareTest, TeamWithFewerRunningGpusGoesFirst) {
  for (bool fair : {false, true}) {
    SCOPED_TRACE(fair ? "fair share" : "fifo");
    Scenario s(Cluster({{"a", 1, 8}}),
               MakePolicy("fifo", {{"fair_share", fair ? "true" : "false"}}));
    s.Add(NewJob(1, 4, 0).Team("x"));
    EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3"));
    s.Add(NewJob(2, 4, kSecond).Team("x"));
    s.Add(NewJob(3, 4, 2 * kSecond).Team("y"));
    EXPECT_THAT(s.Cycle(2 * kSecond),
                ElementsAre(fair ? "start 3 on a0:4,5,6,7" : "start 2 on a0:4,5,6,7"));
  }
}

TEST(FairShareTest, TeamsAlternateAsTheyGetGpus) {
  Scenario s(Cluster({{"a", 1, 8}}), MakePolicy("fifo", {{"fair_share", "true"}}));
  s.Add(NewJob(1, 2, 0).Team("x"));
  s.Add(NewJob(2, 2, kSecond).Team("x"));
  s.Add(NewJob(3, 2, 2 * kSecond).Team("x"));
  s.Add(NewJob(4, 2, 3 * kSecond).Team("y"));
  s.Add(NewJob(5, 2, 4 * kSecond).Team("y"));
  EXPECT_THAT(s.Cycle(4 * kSecond), ElementsAre("start 1 on a0:0,1", "start 4 on a0:2,3",
                                                "start 2 on a0:4,5", "start 5 on a0:6,7"));
}

// Deadline: job 3 (estimate 1000, deadline 5000, margin 600) is at risk from 3400 on.
class DeadlineTest : public ::testing::Test {
 protected:
  void SetUpScenario(bool priority) {
    s_ = std::make_unique<Scenario>(
        Cluster({{"a", 1, 4}}),
        MakePolicy("fifo", {{"deadline", "true"}, {"priority", priority ? "true" : "false"}}));
    s_->Add(NewJob(1, 4, 0));
    EXPECT_THAT(s_->Cycle(0), ElementsAre("start 1 on a0:0,1,2,3"));
    s_->Add(NewJob(2, 4, kSecond).Urgency(priority ? Urgency::kHigh : Urgency::kNormal));
    s_->Add(NewJob(3, 4, 2 * kSecond).Estimate(1000 * kSecond).Deadline(5000 * kSecond));
  }
  std::unique_ptr<Scenario> s_;
};

TEST_F(DeadlineTest, NextWakeupIsWhenTheDeadlineBecomesAtRisk) {
  SetUpScenario(false);
  EXPECT_EQ(s_->sched().NextWakeup(), 3400 * kSecond);
  EXPECT_THAT(s_->Cycle(3399 * kSecond), IsEmpty());
  EXPECT_FALSE(s_->job(3).boosted);
  EXPECT_THAT(s_->Cycle(3400 * kSecond), IsEmpty());
  EXPECT_TRUE(s_->job(3).boosted);
  EXPECT_EQ(s_->sched().NextWakeup(), kNever);
}

TEST_F(DeadlineTest, NotYetAtRiskKeepsArrivalOrder) {
  SetUpScenario(false);
  s_->Finish(1, 3000 * kSecond);
  EXPECT_THAT(s_->Cycle(3000 * kSecond), ElementsAre("start 2 on a0:0,1,2,3"));
}

TEST_F(DeadlineTest, AtRiskMovesAheadOfItsClass) {
  SetUpScenario(false);
  s_->Finish(1, 3500 * kSecond);
  EXPECT_THAT(s_->Cycle(3500 * kSecond), ElementsAre("start 3 on a0:0,1,2,3"));
  EXPECT_EQ(s_->sched().NextWakeup(), kNever);
}

TEST_F(DeadlineTest, AtRiskStaysBehindAMoreUrgentClass) {
  SetUpScenario(true);
  s_->Finish(1, 3500 * kSecond);
  EXPECT_THAT(s_->Cycle(3500 * kSecond), ElementsAre("start 2 on a0:0,1,2,3"));
  EXPECT_TRUE(s_->job(3).boosted);
}

TEST(DeadlineSubmitTest, AtRiskOnArrivalAndCancelForgetsTheWatch) {
  Scenario s(Cluster({{"a", 1, 4}}), MakePolicy("fifo", {{"deadline", "true"}}));
  s.Add(NewJob(1, 4, 0));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3"));
  s.Add(NewJob(2, 4, kSecond));
  // Latest start -100: at risk now.
  s.Add(NewJob(3, 4, 2 * kSecond).Estimate(1000 * kSecond).Deadline(1500 * kSecond));
  EXPECT_TRUE(s.job(3).boosted);
  s.Add(NewJob(4, 4, 3 * kSecond).Deadline(10000 * kSecond));  // no estimate: at risk from 9400
  EXPECT_EQ(s.sched().NextWakeup(), 9400 * kSecond);
  ASSERT_TRUE(s.sched().Cancel(4, 5 * kSecond).ok());
  EXPECT_EQ(s.sched().NextWakeup(), kNever);
  s.Finish(1, 10 * kSecond);
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("start 3 on a0:0,1,2,3"));
}

// starve_after: job 2 (8 GPUs) waits behind long 4-GPU jobs; once it has waited 1 h it moves
// up within its class and, with preemption, evicts the cheapest jobs to start.
TEST(StarveAfterTest, AJobThatWaitedTooLongMovesUpAndEvicts) {
  Scenario s(Cluster({{"a", 1, 8}}),
             MakePolicy("fifo", {{"starve_after", "1h"},
                                 {"actions", "allocate|preempt"},
                                 {"strict", "false"}}));
  s.Add(NewJob(1, 4, 0).Elastic());
  s.Add(NewJob(3, 4, 0).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3", "start 3 on a0:4,5,6,7"));
  s.Add(NewJob(2, 8, 10 * kSecond));
  EXPECT_EQ(s.sched().NextWakeup(), 3610 * kSecond);
  EXPECT_THAT(s.Cycle(3609 * kSecond), IsEmpty());
  EXPECT_FALSE(s.job(2).boosted);
  EXPECT_THAT(s.Settle(3610 * kSecond),
              ElementsAre("stop 1: preempted for 2", "stop 3: preempted for 2",
                          "start 2 on a0:0,1,2,3,4,5,6,7"));
  EXPECT_TRUE(s.job(2).boosted);
}

// Both GPUs held by job 1; a high-urgency 2-GPU job waits for them (blocked, and reserved for
// where the policy backfills). A job of no GPUs takes nothing it waits for: it starts at once,
// under a strict order, with backfilling and under squeeze, whatever its place in the queue.
TEST(AllocateTest, AJobOfNoGpusIsNotHeldBehindAJobBlockedOnGpus) {
  for (const std::string policy : {"fifo", "backfill", "squeeze"}) {
    Scenario s(Cluster({{"a", 1, 2}}), policy);
    s.Add(NewJob(1, 2, 0).Estimate(1000 * kSecond));
    EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1")) << policy;
    s.Add(NewJob(2, 2, kSecond).Urgency(Urgency::kHigh));
    EXPECT_THAT(s.Cycle(kSecond), IsEmpty()) << policy;
    s.Add(NewJob(3, 0, 2 * kSecond).Estimate(10 * kSecond));
    EXPECT_THAT(s.Cycle(2 * kSecond), ElementsAre("start 3 on a0:")) << policy;
    s.Finish(1, 1000 * kSecond);
    EXPECT_THAT(s.Cycle(1000 * kSecond), ElementsAre("start 2 on a0:0,1")) << policy;
  }
}

// Under a strict order the GPU jobs behind the blocked one still wait (one GPU is free: job 3
// would fit on it but may not pass job 2), while the job of no GPUs behind them starts.
TEST(AllocateTest, GpuJobsThatMayTakeWhatTheBlockedJobWaitsForStillWait) {
  Scenario s(Cluster({{"a", 1, 4}}), "fifo");
  s.Add(NewJob(1, 3, 0));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2"));
  s.Add(NewJob(2, 2, kSecond));
  s.Add(NewJob(3, 1, 2 * kSecond));
  s.Add(NewJob(4, 0, 3 * kSecond));
  s.Add(NewJob(5, 1, 4 * kSecond));
  EXPECT_THAT(s.Cycle(4 * kSecond), ElementsAre("start 4 on a0:"));
}

// One pool of two GPU models: a0 (V100) is full and job 2 waits for 2 V100s, strictly first.
// Job 3, of model A100, takes nothing job 2 waits for and starts on a1; job 4, of either model,
// might take a V100 job 2 waits for, and waits behind it.
TEST(AllocateTest, AJobWhoseGpusAreElsewhereIsNotHeldBehindABlockedJob) {
  Scenario s(Cluster({{"a", 1, 2, "V100"}, {"a", 1, 2, "A100"}}), "fifo");
  s.Add(NewJob(1, 2, 0).Models({"V100"}));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1"));
  s.Add(NewJob(2, 2, kSecond).Models({"V100"}));
  s.Add(NewJob(4, 1, 2 * kSecond));
  s.Add(NewJob(3, 1, 3 * kSecond).Models({"A100"}));
  EXPECT_THAT(s.Cycle(3 * kSecond), ElementsAre("start 3 on a1:0"));
}

}  // namespace
}  // namespace squeeze
