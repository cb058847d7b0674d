// Scenario tests of team quotas (guaranteed GPUs per team in a pool), borrowing idle capacity
// (another team's guarantee, another pool's GPUs) and reclaiming it for its owner.
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
using testing::Quota;
using testing::Scenario;

Policy Reclaiming() { return MakePolicy("fifo", {{"actions", "allocate|reclaim"}}); }

// Pool a: one 8-GPU node; teams x and y are guaranteed 4 GPUs each.
ClusterSpec Shared(int quota_y = 4) {
  return Quota(Quota(Cluster({{"a", 1, 8}}), "a", "x", 4), "a", "y", quota_y);
}

TEST(QuotaTest, WithinQuotaIsNotBorrowedOverQuotaPreemptibleIs) {
  Scenario s(Shared(), Reclaiming());
  s.Add(NewJob(1, 4, 0).Pool("a").Team("x"));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3"));
  EXPECT_FALSE(s.job(1).borrowed);
  s.Add(NewJob(2, 2, kSecond).Pool("a").Team("x").Preemptible());
  EXPECT_THAT(s.Cycle(kSecond), ElementsAre("start 2 on a0:4,5 borrowed"));
  EXPECT_TRUE(s.job(2).borrowed);
  EXPECT_EQ(s.sched().counters().borrowed_starts, 1);
}

TEST(QuotaTest, OverQuotaNonPreemptibleMayNotTakeAnotherTeamsGuarantee) {
  Scenario s(Shared(), Reclaiming());
  s.Add(NewJob(1, 4, 0).Pool("a").Team("x"));
  s.Add(NewJob(2, 2, kSecond).Pool("a").Team("x"));
  EXPECT_THAT(s.Cycle(kSecond), ElementsAre("start 1 on a0:0,1,2,3"));
  EXPECT_EQ(s.job(2).state, JobState::kPending);
}

TEST(QuotaTest, OverQuotaNonPreemptibleMayTakeUnguaranteedGpus) {
  // y is guaranteed only 2 of the 4 GPUs x does not hold: 2 are nobody's.
  Scenario s(Shared(2), Reclaiming());
  s.Add(NewJob(1, 4, 0).Pool("a").Team("x"));
  s.Add(NewJob(2, 2, kSecond).Pool("a").Team("x"));
  s.Add(NewJob(3, 1, 2 * kSecond).Pool("a").Team("x"));
  EXPECT_THAT(s.Cycle(2 * kSecond), ElementsAre("start 1 on a0:0,1,2,3", "start 2 on a0:4,5"));
  EXPECT_FALSE(s.job(2).borrowed);
  EXPECT_EQ(s.job(3).state, JobState::kPending);
}

TEST(QuotaTest, TeamWithoutQuotaBorrows) {
  Scenario s(Shared(), Reclaiming());
  s.Add(NewJob(1, 1, 0).Pool("a").Team("z").Preemptible());
  s.Add(NewJob(2, 1, 0).Pool("a").Team("z"));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0 borrowed"));
}

TEST(QuotaTest, ReclaimEvictsABorrowerWhenTheOwnerIsBlockedWithinItsQuota) {
  Scenario s(Shared(), Reclaiming());
  s.Add(NewJob(1, 4, 0).Pool("a").Team("x"));
  s.Add(NewJob(2, 2, kSecond).Pool("a").Team("x").Preemptible());
  s.Add(NewJob(3, 2, kSecond).Pool("a").Team("y"));
  EXPECT_THAT(s.Cycle(kSecond), ElementsAre("start 1 on a0:0,1,2,3", "start 2 on a0:4,5 borrowed",
                                            "start 3 on a0:6,7"));
  s.Add(NewJob(4, 2, 2 * kSecond).Pool("a").Team("y"));
  EXPECT_THAT(s.Cycle(2 * kSecond), ElementsAre("stop 2: borrowed capacity reclaimed for 4"));
  s.Stop(2, 3 * kSecond);
  EXPECT_THAT(s.Cycle(3 * kSecond), ElementsAre("start 4 on a0:4,5"));
  EXPECT_EQ(s.job(2).state, JobState::kPending);
  EXPECT_EQ(s.sched().counters().preemptions, 1);
}

TEST(QuotaTest, ReclaimedBorrowerDoesNotTakeBackWhatWasReclaimed) {
  // Job 2 arrived before job 4: once stopped it ranks ahead of 4 again.
  Scenario s(Shared(), Reclaiming());
  s.Add(NewJob(1, 4, 0).Pool("a").Team("x"));
  s.Add(NewJob(2, 4, kSecond).Pool("a").Team("x").Preemptible());
  EXPECT_THAT(s.Cycle(kSecond),
              ElementsAre("start 1 on a0:0,1,2,3", "start 2 on a0:4,5,6,7 borrowed"));
  s.Add(NewJob(4, 4, 2 * kSecond).Pool("a").Team("y"));
  EXPECT_THAT(s.Settle(2 * kSecond),
              ElementsAre("stop 2: borrowed capacity reclaimed for 4", "start 4 on a0:4,5,6,7"));
}

TEST(QuotaTest, NoReclaimForATeamOverItsQuota) {
  Scenario s(Shared(), Reclaiming());
  s.Add(NewJob(1, 4, 0).Pool("a").Team("z").Preemptible());
  s.Add(NewJob(2, 4, 0).Pool("a").Team("x"));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3 borrowed", "start 2 on a0:4,5,6,7"));
  s.Add(NewJob(3, 2, kSecond).Pool("a").Team("x"));  // x would hold 6 of its 4
  EXPECT_THAT(s.Settle(kSecond), IsEmpty());
  s.Add(NewJob(4, 2, 2 * kSecond).Pool("a").Team("y"));  // y holds none of its 4
  EXPECT_THAT(s.Cycle(2 * kSecond), ElementsAre("stop 1: borrowed capacity reclaimed for 4"));
}

TEST(QuotaTest, ReclaimSparesTheOwnTeamsBorrowedJobs) {
  Scenario s(Shared(), Reclaiming());
  s.Add(NewJob(1, 4, 0).Pool("a").Team("x"));
  s.Add(NewJob(2, 2, 0).Pool("a").Team("x").Elastic());
  s.Add(NewJob(3, 2, 0).Pool("a").Team("y"));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3", "start 2 on a0:4,5 borrowed",
                                      "start 3 on a0:6,7"));
  s.Finish(1, 50 * kSecond);
  s.Add(NewJob(4, 4, 50 * kSecond).Pool("a").Team("z").Preemptible());
  EXPECT_THAT(s.Cycle(50 * kSecond), ElementsAre("start 4 on a0:0,1,2,3 borrowed"));
  // x holds 2 (job 2, borrowed) of its 4: job 5 is within its quota. Stopping job 2 would
  // lose less, but it is x's own; job 4 (team z) is reclaimed.
  s.Add(NewJob(5, 2, 60 * kSecond).Pool("a").Team("x"));
  EXPECT_DOUBLE_EQ(s.job(2).LostGpuSecondsIfStopped(60 * kSecond), 60.0);
  EXPECT_DOUBLE_EQ(s.job(4).LostGpuSecondsIfStopped(60 * kSecond), 160.0);
  EXPECT_THAT(s.Cycle(60 * kSecond), ElementsAre("stop 4: borrowed capacity reclaimed for 5"));
}

// Pools a and b, one 4-GPU node each; "+borrow" lends idle GPUs across pools.
class BorrowTest : public ::testing::Test {
 protected:
  BorrowTest() : s_(Cluster({{"a", 1, 4}, {"b", 1, 4}}), "fifo+borrow") {
    s_.Add(NewJob(1, 4, 0).Pool("a"));
    EXPECT_THAT(s_.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3"));
  }
  Scenario s_;
};

TEST_F(BorrowTest, PreemptibleJobBorrowsAnotherPoolsIdleGpus) {
  s_.Add(NewJob(2, 4, kSecond).Pool("a").Preemptible());
  EXPECT_THAT(s_.Cycle(kSecond), ElementsAre("start 2 on b0:0,1,2,3 borrowed"));
  EXPECT_EQ(s_.sched().counters().borrowed_starts, 1);
}

TEST_F(BorrowTest, NonPreemptibleOrPoollessJobsDoNotBorrow) {
  s_.Add(NewJob(2, 4, kSecond).Pool("a"));
  EXPECT_THAT(s_.Cycle(kSecond), IsEmpty());
  Scenario any(Cluster({{"a", 1, 4}, {"b", 1, 4}}), "fifo+borrow");
  any.Add(NewJob(1, 4, 0).Pool("b"));
  any.Add(NewJob(2, 4, 0).Preemptible());
  EXPECT_THAT(any.Cycle(0), ElementsAre("start 1 on b0:0,1,2,3", "start 2 on a0:0,1,2,3"));
}

TEST_F(BorrowTest, NoBorrowingWithoutTheModifier) {
  Scenario plain(Cluster({{"a", 1, 4}, {"b", 1, 4}}), "fifo");
  plain.Add(NewJob(1, 4, 0).Pool("a"));
  plain.Add(NewJob(2, 4, kSecond).Pool("a").Preemptible());
  EXPECT_THAT(plain.Cycle(kSecond), ElementsAre("start 1 on a0:0,1,2,3"));
}

TEST_F(BorrowTest, OwningPoolsJobReclaimsTheGpus) {
  s_.Add(NewJob(2, 4, kSecond).Pool("a").Elastic());
  EXPECT_THAT(s_.Cycle(kSecond), ElementsAre("start 2 on b0:0,1,2,3 borrowed"));
  s_.Add(NewJob(3, 4, 500 * kSecond).Pool("b"));
  EXPECT_THAT(s_.Settle(500 * kSecond),
              ElementsAre("stop 2: borrowed capacity reclaimed for 3", "start 3 on b0:0,1,2,3"));
  EXPECT_EQ(s_.job(2).work_done, 499 * kSecond);
  EXPECT_FALSE(s_.job(2).borrowed);
  // Back home when its pool frees up.
  s_.Finish(1, 600 * kSecond);
  EXPECT_THAT(s_.Cycle(600 * kSecond), ElementsAre("start 2 on a0:0,1,2,3 resume overhead=30"));
  EXPECT_FALSE(s_.job(2).borrowed);
}

}  // namespace
}  // namespace squeeze
