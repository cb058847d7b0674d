#include "core/fragmentation_blocked.h"

#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using testing::Cluster;
using testing::NewJob;
using testing::Quota;
using testing::Scenario;

// A measure that walks every waiting job.
FragmentationBlocked Measure(Scenario& s, Time now) {
  FragmentationMeter meter(/*reuse=*/false);
  return s.sched().BlockedByFragmentation(now, meter);
}

// Four 2-GPU jobs fill two 4-GPU nodes under fifo (best fit: 1 and 2 on a0, 3 and 4 on a1);
// `waiting` jobs come at 50, the `ended` ones end at 100; the measure after the cycle at 100.
FragmentationBlocked AfterEnds(const std::vector<JobSpec>& waiting,
                               const std::vector<JobId>& ended) {
  Scenario s(Cluster({{"a", 2, 4}}), "fifo");
  for (JobId id = 1; id <= 4; ++id) s.Add(NewJob(id, 2));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1", "start 2 on a0:2,3",
                                      "start 3 on a1:0,1", "start 4 on a1:2,3"));
  for (const JobSpec& job : waiting) s.Add(job);
  for (JobId id : ended) s.Finish(id, 100 * kSecond);
  EXPECT_THAT(s.Cycle(100 * kSecond), ElementsAre());
  return Measure(s, 100 * kSecond);
}

TEST(FragmentationBlockedTest, FreeGpusOnTwoNodesBlockAJobOfFour) {
  // 2 + 2 free GPUs, no node with 4.
  const FragmentationBlocked b = AfterEnds({NewJob(5, 4, 50 * kSecond).Pool("a")}, {1, 3});
  EXPECT_EQ(b.jobs, 1);
  EXPECT_EQ(b.milli, 4000);
  EXPECT_THAT(b.milli_by_scope, ElementsAre(4000, 0));  // pool a, any pool
}

TEST(FragmentationBlockedTest, TooFewFreeGpusIsNotFragmentation) {
  const FragmentationBlocked b = AfterEnds({NewJob(5, 4, 50 * kSecond)}, {1});
  EXPECT_EQ(b.jobs, 0);
  EXPECT_EQ(b.milli, 0);
}

TEST(FragmentationBlockedTest, JobsThatFitAreNotBlocked) {
  // Strict FIFO holds 6 (1 GPU) behind 5; 6 would fit, so only 5 counts.
  const FragmentationBlocked b =
      AfterEnds({NewJob(5, 4, 50 * kSecond), NewJob(6, 1, 60 * kSecond)}, {1, 3});
  EXPECT_EQ(b.jobs, 1);
  EXPECT_EQ(b.milli, 4000);
}

TEST(FragmentationBlockedTest, TheSameFreeGpusCountOnce) {
  // 2 free GPUs on each of three nodes: the first waiting job of 4 takes 4 of the 6, the
  // other two find 2 left, fewer than they need.
  Scenario s(Cluster({{"a", 3, 4}}), "fifo");
  for (JobId id = 1; id <= 6; ++id) s.Add(NewJob(id, 2));
  EXPECT_EQ(s.Cycle(0).size(), 6u);
  for (JobId id = 7; id <= 9; ++id) s.Add(NewJob(id, 4, id * kSecond));
  for (JobId id : {1, 3, 5}) s.Finish(id, 100 * kSecond);
  EXPECT_THAT(s.Cycle(100 * kSecond), ElementsAre());
  const FragmentationBlocked b = Measure(s, 100 * kSecond);
  EXPECT_EQ(b.jobs, 1);
  EXPECT_EQ(b.milli, 4000);
}

TEST(FragmentationBlockedTest, FractionsScatteredOverGpus) {
  Scenario s(Cluster({{"a", 1, 2}}), "fifo");
  s.Add(NewJob(1, 1).Milli(600));
  s.Add(NewJob(2, 1).Milli(600));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0 milli=600", "start 2 on a0:1 milli=600"));
  s.Add(NewJob(3, 1, 10 * kSecond).Milli(700));  // 400 + 400 free, no GPU with 700
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre());
  const FragmentationBlocked b = Measure(s, 10 * kSecond);
  EXPECT_EQ(b.jobs, 1);
  EXPECT_EQ(b.milli, 700);
}

TEST(FragmentationBlockedTest, AJobGuaranteesKeepOutIsNotBlockedByFragmentation) {
  // Team x is guaranteed all 8 GPUs and uses 4: y (no guarantee, not preemptible) may not
  // take the 4 free ones, whatever their layout; x may, and they are scattered.
  Scenario s(Quota(Cluster({{"a", 2, 4}}), "a", "x", 8), "fifo");
  for (JobId id = 1; id <= 4; ++id) s.Add(NewJob(id, 2).Team("x"));
  EXPECT_EQ(s.Cycle(0).size(), 4u);
  s.Add(NewJob(5, 4, 50 * kSecond).Team("y"));
  s.Add(NewJob(6, 4, 60 * kSecond).Team("x"));
  s.Finish(1, 100 * kSecond);
  s.Finish(3, 100 * kSecond);
  EXPECT_THAT(s.Cycle(100 * kSecond), ElementsAre());
  const FragmentationBlocked b = Measure(s, 100 * kSecond);
  EXPECT_EQ(b.jobs, 1);
  EXPECT_EQ(b.milli, 4000);
}

TEST(FragmentationBlockedTest, AJobOfAnyPoolRunsInOnePool) {
  Scenario s(Cluster({{"a", 1, 4}, {"b", 1, 4}}), "fifo");
  s.Add(NewJob(1, 2).Pool("a"));
  s.Add(NewJob(2, 2).Pool("b"));
  EXPECT_EQ(s.Cycle(0).size(), 2u);
  s.Add(NewJob(3, 4, 10 * kSecond));  // 2 free in a, 2 in b
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre());
  FragmentationMeter meter;
  const FragmentationBlocked b = s.sched().BlockedByFragmentation(10 * kSecond, meter);
  EXPECT_EQ(b.jobs, 1);
  EXPECT_THAT(b.milli_by_scope, ElementsAre(0, 0, 4000));
}

// Submits, finishes and stops jobs at random on three pools; after every cycle a meter that
// keeps figures per scope and ends its walks early must agree with one that walks every job.
// `varied`: some jobs also name a team (pool a guarantees team x 4 GPUs), a GPU model or CPU.
// Returns the number of cycles after which some job was blocked.
int ExpectKeptFiguresAgree(const std::string& policy, bool any_pool_jobs, bool varied = false) {
  SCOPED_TRACE(policy + (any_pool_jobs ? " any-pool jobs" : "") + (varied ? " varied" : ""));
  const ClusterSpec cluster = Cluster({{"a", 3, 4}, {"b", 2, 8}, {"c", 1, 2}});
  Scenario s(varied ? Quota(cluster, "a", "x", 4) : cluster, policy);
  const std::vector<std::string> pools = {"a", "b", "c"};
  const std::vector<std::vector<int>> sizes = {{1, 2, 4, 8}, {1, 2, 4, 8, 16}, {1, 2}};
  FragmentationMeter kept, fresh(/*reuse=*/false);
  std::set<JobId> running;
  testing::Draws rng(7);
  JobId next = 1;
  int blocked_moments = 0;
  for (Time now = 0; now < 4000 * kSecond; now += 10 * kSecond) {
    for (int n = rng.Next(4); n > 0; --n) {
      const int p = rng.Next(3);
      auto job = NewJob(next++, sizes[p][rng.Next(static_cast<int>(sizes[p].size()))], now)
                     .Estimate((100 + rng.Next(500)) * kSecond);
      if (rng.Next(4) == 0) job.Elastic();
      if (!any_pool_jobs || rng.Next(5) != 0) job.Pool(pools[p]);
      if (varied && rng.Next(3) == 0) job.Team(rng.Next(2) ? "x" : "y");
      if (varied && rng.Next(10) == 0) job.Models({"gpu"});
      if (varied && rng.Next(10) == 0) job.Cpu(1000);
      s.Add(job);
    }
    for (auto it = running.begin(); it != running.end();) {
      if (rng.Next(12) != 0) {
        ++it;
        continue;
      }
      s.Finish(*it, now);
      it = running.erase(it);
    }
    for (const Decision& d : s.sched().Cycle(now)) {
      if (d.kind == Decision::Kind::kStart) running.insert(d.job);
      if (d.kind == Decision::Kind::kStop) {
        running.erase(d.job);
        s.Stop(d.job, now);
      }
    }
    const FragmentationBlocked& a = s.sched().BlockedByFragmentation(now, kept);
    const FragmentationBlocked& b = s.sched().BlockedByFragmentation(now, fresh);
    EXPECT_EQ(a.jobs, b.jobs) << "at " << now;
    EXPECT_EQ(a.milli, b.milli) << "at " << now;
    EXPECT_EQ(a.milli_by_scope, b.milli_by_scope) << "at " << now;
    if (b.jobs > 0) ++blocked_moments;
  }
  EXPECT_GT(blocked_moments, 0) << "the stream should keep jobs blocked by fragmentation";
  return blocked_moments;
}

TEST(FragmentationBlockedTest, KeptFiguresEqualAFullWalk) {
  int blocked_moments = 0;
  for (const char* policy : {"fifo", "sjf", "backfill", "las", "squeeze", "squeeze+borrow"}) {
    blocked_moments += ExpectKeptFiguresAgree(policy, false);
    blocked_moments += ExpectKeptFiguresAgree(policy, true);
    blocked_moments += ExpectKeptFiguresAgree(policy, true, true);
  }
  EXPECT_GT(blocked_moments, 500);
}

}  // namespace
}  // namespace squeeze
