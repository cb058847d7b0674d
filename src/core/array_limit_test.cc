// Job arrays with a limit on tasks at once (sbatch --array ...%N): the scheduler never runs more
// tasks of an array than its limit, and queues the next task when one ends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"
#include "core/wait_reasons.h"

namespace squeeze {
namespace {

using testing::Cluster;
using testing::NewJob;
using testing::Scenario;

int RunningTasks(Scenario& s, JobId array) {
  int n = 0;
  s.sched().ForEachJob([&](const Job& j) { n += j.spec.array_id == array && j.IsActive(); });
  return n;
}

// Eight free GPUs and a six-task array limited to two: two run, the other four wait with
// reason ArrayLimit, and each end lets exactly the next task (by index) start.
TEST(ArrayLimitTest, NoMoreTasksRunThanTheLimitAndTheNextStartsWhenOneEnds) {
  Scenario s(Cluster({{"a", 1, 8}}), "fifo");
  for (int t = 0; t < 6; ++t) s.Add(NewJob(10 + t, 1, 0).ArrayTask(10, t, 2));
  s.Add(NewJob(20, 1, 0));  // not of the array: it runs beside them
  EXPECT_THAT(s.Cycle(0), ::testing::SizeIs(3));
  EXPECT_EQ(RunningTasks(s, 10), 2);
  EXPECT_TRUE(s.job(10).IsActive());
  EXPECT_TRUE(s.job(11).IsActive());
  int limited = 0;
  for (const auto& [id, reason] : WaitReasons(s.sched())) {
    EXPECT_EQ(reason, WaitReason::kArrayLimit) << "job " << id;
    ++limited;
  }
  EXPECT_EQ(limited, 4);
  s.Finish(11, 5 * kSecond);
  s.Cycle(5 * kSecond);
  EXPECT_EQ(RunningTasks(s, 10), 2);
  EXPECT_TRUE(s.job(12).IsActive());
  // A waiting task cancelled gives its place to the next one; a running one cancelled too.
  ASSERT_TRUE(s.sched().Cancel(13, 6 * kSecond).ok());
  ASSERT_TRUE(s.sched().Cancel(10, 6 * kSecond).ok());
  s.Cycle(6 * kSecond);
  EXPECT_TRUE(s.job(14).IsActive());
  EXPECT_EQ(RunningTasks(s, 10), 2);
  s.Finish(12, 7 * kSecond);
  s.Finish(14, 7 * kSecond);
  s.Cycle(7 * kSecond);
  EXPECT_TRUE(s.job(15).IsActive());
  s.Finish(15, 8 * kSecond);
  EXPECT_EQ(s.sched().JobCount(), 1u);  // job 20
}

// A task preempted waits again in the queue and keeps its place in the limit: no parked task
// overtakes it.
TEST(ArrayLimitTest, APreemptedTaskKeepsItsPlace) {
  Scenario s(Cluster({{"a", 1, 2}}), testing::MakePolicy("fifo", {{"priority", "true"},
                                                                  {"actions", "allocate|preempt"}}));
  for (int t = 0; t < 3; ++t) s.Add(NewJob(10 + t, 1, 0).ArrayTask(10, t, 1).Elastic());
  s.Cycle(0);
  ASSERT_TRUE(s.job(10).IsActive());
  s.Add(NewJob(30, 2, 1 * kSecond).Urgency(Urgency::kCritical));
  s.Settle(1 * kSecond);
  EXPECT_TRUE(s.job(30).IsActive());
  EXPECT_FALSE(s.job(10).IsActive());
  EXPECT_TRUE(s.job(11).parked);
  s.Finish(30, 2 * kSecond);
  s.Cycle(2 * kSecond);
  EXPECT_TRUE(s.job(10).IsActive());
  EXPECT_EQ(RunningTasks(s, 10), 1);
}

// A fault-tolerant array (a sweep) goes to spot first, as a single fault-tolerant job does,
// its limit kept across both pools: 4 tasks %3 with room for all at home and on spot.
TEST(ArrayLimitTest, AFaultTolerantArrayGoesToSpotFirstWithinItsLimit) {
  ClusterSpec spec = Cluster({{"home", 1, 4}, {"spot", 2, 4}});
  spec.pools[1].kind = PoolKind::kSpot;
  spec.pools[1].spot.mean_reclaim_interval = 6 * kHour;
  spec.pools[1].spot.warning = 30 * kSecond;
  Scenario s(spec, testing::MakePolicy("fifo", {{"actions", "spot|allocate"},
                                                 {"learned_estimates", "false"}}));
  for (int t = 0; t < 4; ++t) {
    JobSpec task =
        NewJob(10 + t, 1, 0).Pool("home").Elastic().Estimate(kHour).ArrayTask(10, t, 3);
    task.fault_tolerant = true;
    s.Add(task);
  }
  const std::vector<std::string> lines = s.Cycle(0);
  ASSERT_EQ(lines.size(), 3u);
  for (const std::string& line : lines) EXPECT_THAT(line, ::testing::HasSubstr("on spot"));
  EXPECT_TRUE(s.job(13).parked);
}

}  // namespace
}  // namespace squeeze
