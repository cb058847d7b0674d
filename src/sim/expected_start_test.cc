#include "sim/expected_start.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

ClusterSpec OneNode(int gpus) {
  ClusterSpec c;
  PoolSpec pool;
  pool.name = "local";
  c.pools.push_back(pool);
  NodeSpec node;
  node.name = "n0";
  node.pool = "local";
  node.gpus = gpus;
  c.nodes.push_back(node);
  return c;
}

SnapshotJob Job(JobId id, int gpus, std::optional<Time> estimate, bool running = false,
                Time elapsed = 0) {
  SnapshotJob j;
  j.spec.id = id;
  j.spec.name = "j" + std::to_string(id);
  j.spec.gpus = gpus;
  j.spec.estimate = estimate;
  j.running = running;
  j.elapsed = elapsed;
  return j;
}

TEST(ExpectedStartTest, WaitsForTheRunningJobsEstimatedEnd) {
  // A holds all 4 GPUs for 600 s and has run 100: B (2 GPUs) starts in 500 s; C (4 GPUs)
  // behind it waits for B's 100 s too: 600 s.
  const std::vector<SnapshotJob> jobs = {Job(1, 4, 600, true, 100), Job(2, 2, 100),
                                         Job(3, 4, 50)};
  const Policy fifo = *NamedPolicy("fifo");
  auto b = EstimateStart(jobs, 2, OneNode(4), fifo);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->in_s, 500);
  auto c = EstimateStart(jobs, 3, OneNode(4), fifo);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->in_s, 600);
}

TEST(ExpectedStartTest, RoomNowMeansNoWait) {
  const std::vector<SnapshotJob> jobs = {Job(1, 2, 600, true, 10), Job(2, 2, 100)};
  auto b = EstimateStart(jobs, 2, OneNode(4), *NamedPolicy("fifo"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->in_s, 0);
}

TEST(ExpectedStartTest, NoEstimateNoForecast) {
  const std::vector<SnapshotJob> jobs = {Job(1, 4, std::nullopt, true, 100), Job(2, 2, 100)};
  auto b = EstimateStart(jobs, 2, OneNode(4), *NamedPolicy("fifo"));
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->in_s.has_value());
  EXPECT_EQ(b->missing_estimate, 1);
}

TEST(ExpectedStartTest, OnlyWaitingJobsHaveAnExpectedStart) {
  const std::vector<SnapshotJob> jobs = {Job(1, 4, 600, true, 100)};
  EXPECT_EQ(EstimateStart(jobs, 1, OneNode(4), *NamedPolicy("fifo")).status().message(),
            "job 1 is not waiting");
  EXPECT_EQ(EstimateStart(jobs, 9, OneNode(4), *NamedPolicy("fifo")).status().message(),
            "job 9 is not waiting");
}

}  // namespace
}  // namespace squeeze
