// Unit tests of the Gittins job order: the rank it learns from finished jobs, its fallbacks
// while it knows too little, and the run time it predicts for reservations.
#include "core/plugins/gittins_order.h"

#include <gtest/gtest.h>

#include <unordered_map>

namespace squeeze {
namespace {

Job Finished(JobId id, Time run_time, int pool = 0, int gpus = 1) {
  Job j;
  j.spec.id = id;
  j.spec.gpus = gpus;
  j.home_pool = pool;
  j.work_done = run_time;
  j.state = JobState::kDone;
  return j;
}

Job Waiting(Time attained, int pool = 0, int gpus = 1) {
  Job j;
  j.spec.id = 1000;
  j.spec.gpus = gpus;
  j.home_pool = pool;
  j.work_done = attained;
  return j;
}

// Ten jobs ran 100 s and ten ran 1,000 s in pool 0.
GittinsOrder Trained(const JobOrderOptions& options = {}) {
  GittinsOrder order(options);
  for (int i = 0; i < 10; ++i) order.Observe(Finished(i, 100 * kSecond), {});
  for (int i = 10; i < 20; ++i) order.Observe(Finished(i, 1000 * kSecond), {});
  return order;
}

TEST(GittinsOrderTest, RankIsTheLeastExpectedWorkPerCompletion) {
  GittinsOrder order = Trained();
  // From 0: stop at 100 s: 10 of 20 finish, expected work 100 each => 2000 / 10 = 200.
  EXPECT_DOUBLE_EQ(order.Key(Waiting(0), 0), 200);
  // Past 100 s only the 1,000 s jobs remain. The grid point at or below 150 is 137 s:
  // all ten finish after 863 s more => 863.
  EXPECT_DOUBLE_EQ(order.Key(Waiting(150 * kSecond), 0), 863);
  // Outliving every sample: ranked by what it attained (at the grid point below it).
  const double outlived = order.Key(Waiting(5000 * kSecond), 0);
  EXPECT_GT(outlived, 4000);
  EXPECT_LE(outlived, 5000);
  EXPECT_GT(order.Key(Waiting(20000 * kSecond), 0), outlived);
}

TEST(GittinsOrderTest, FewerThanTwentySamplesFallsBackToLeastAttainedService) {
  GittinsOrder order{JobOrderOptions{}};
  for (int i = 0; i < 19; ++i) order.Observe(Finished(i, 100 * kSecond), {});
  EXPECT_DOUBLE_EQ(order.Key(Waiting(0), 0), 1);
  EXPECT_DOUBLE_EQ(order.Key(Waiting(40 * kSecond), 0), 41);
  EXPECT_TRUE(order.Observe(Finished(19, 100 * kSecond), {}));  // the 20th builds the ranks
  EXPECT_DOUBLE_EQ(order.Key(Waiting(0), 0), 100);
}

TEST(GittinsOrderTest, WaitingJobsAreReRankedOnlyWhenTheModelMoves) {
  GittinsOrder order{JobOrderOptions{}};
  int id = 0;
  for (int i = 0; i < 20; ++i) order.Observe(Finished(id++, 100 * kSecond), {});
  bool reranked = false;
  for (int i = 0; i < 50; ++i) reranked |= order.Observe(Finished(id++, 100 * kSecond), {});
  EXPECT_FALSE(reranked) << "the same run times again must not re-rank";
  for (int i = 0; i < 50; ++i) reranked |= order.Observe(Finished(id++, 10000 * kSecond), {});
  EXPECT_TRUE(reranked);
}

TEST(GittinsOrderTest, AnotherPoolBorrowsTheWholeClustersModelUntilItHasItsOwn) {
  GittinsOrder order = Trained();
  EXPECT_DOUBLE_EQ(order.Key(Waiting(0, /*pool=*/1), 0), 200);
}

TEST(GittinsOrderTest, GpuWeightingMultipliesByGpus) {
  JobOrderOptions options;
  options.gittins_gpu_weighted = true;
  GittinsOrder order = Trained(options);
  // The 4-GPU class of pool 0 is empty: the pool's model ranks it, times 4 GPUs.
  EXPECT_DOUBLE_EQ(order.Key(Waiting(0, 0, 4), 0), 800);
}

TEST(GittinsOrderTest, AnEstimateRanksByTheRemainingEstimate) {
  GittinsOrder order = Trained();
  Job j = Waiting(100 * kSecond);
  j.spec.estimate = 400 * kSecond;
  EXPECT_DOUBLE_EQ(order.Key(j, 0), 300);
}

TEST(GittinsOrderTest, PredictsTheMedianRunTimeStillToCome) {
  GittinsOrder order = Trained();
  EXPECT_EQ(order.PredictRemaining(Waiting(0), 0), 1000 * kSecond);  // upper median of 100 and 1000
  EXPECT_EQ(order.PredictRemaining(Waiting(150 * kSecond), 0), 850 * kSecond);  // only 1,000 s jobs
  EXPECT_EQ(order.PredictRemaining(Waiting(5000 * kSecond), 0), std::nullopt);
  GittinsOrder empty{JobOrderOptions{}};
  EXPECT_EQ(empty.PredictRemaining(Waiting(0), 0), std::nullopt);
}

Job Running(JobId id, Time started, int pool = 0, int gpus = 1) {
  Job j = Waiting(0, pool, gpus);
  j.spec.id = id;
  j.state = JobState::kRunning;
  j.run_start = started;
  return j;
}

// The cold start of docs/comparison.md's first window: the jobs that ended first are short,
// the long ones still run. Learning from the ended jobs alone, a long job that has run 400 s
// outlived them all and ranks behind a new job (which preempts it); counted as running at
// least 500 s, it is near the end that jobs like it reach.
TEST(GittinsOrderTest, JobsStillRunningAreLearnedFrom) {
  std::unordered_map<JobId, Job> unfinished;
  for (JobId id = 100; id < 120; ++id) unfinished[id] = Running(id, 0);
  const Time now = 500 * kSecond;
  GittinsOrder learned{JobOrderOptions{}}, ended_only{JobOrderOptions{}};
  for (int i = 0; i < 20; ++i) {
    learned.Observe(Finished(i, 100 * kSecond), {now, &unfinished});
    ended_only.Observe(Finished(i, 100 * kSecond), {now, nullptr});
  }
  const Job long_one = Running(100, now - 400 * kSecond);
  EXPECT_LT(learned.Key(long_one, now), learned.Key(Waiting(0), now));
  EXPECT_GT(ended_only.Key(long_one, now), ended_only.Key(Waiting(0), now));
  EXPECT_EQ(learned.PredictRemaining(long_one, now), 100 * kSecond);
  EXPECT_EQ(ended_only.PredictRemaining(long_one, now), std::nullopt);
}

// Preemptions teach too: between two ends, the jobs preempted after running a while are
// taken in at every 25th, so new jobs stop looking shorter than the preempted ones.
TEST(GittinsOrderTest, PreemptionsRebuildTheModelWithWhatThePreemptedJobsRan) {
  GittinsOrder order{JobOrderOptions{}};
  for (int i = 0; i < 20; ++i) order.Observe(Finished(i, 100 * kSecond), {100 * kSecond, nullptr});
  const double before = order.Key(Waiting(0), 0);
  std::unordered_map<JobId, Job> unfinished;
  for (JobId id = 100; id < 200; ++id) unfinished[id] = Waiting(300 * kSecond);
  bool rebuilt = false;
  for (int i = 0; i < 24; ++i) {
    rebuilt |= order.ObservePreempted(Waiting(300 * kSecond), {400 * kSecond, &unfinished});
  }
  EXPECT_FALSE(rebuilt);
  EXPECT_TRUE(order.ObservePreempted(Waiting(300 * kSecond), {400 * kSecond, &unfinished}));
  EXPECT_GT(order.Key(Waiting(0), 0), 2 * before);
}

TEST(GittinsOrderTest, FailedJobsTeachNothing) {
  GittinsOrder order{JobOrderOptions{}};
  Job failed = Finished(1, 100 * kSecond);
  failed.state = JobState::kFailed;
  for (int i = 0; i < 30; ++i) EXPECT_FALSE(order.Observe(failed, {}));
  EXPECT_DOUBLE_EQ(order.Key(Waiting(7 * kSecond), 0), 8);
}

}  // namespace
}  // namespace squeeze
