#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/plugins/scored_orders.h"
#include "core/testing/order_cluster.h"
#include "core/testing/scenario.h"

namespace squeeze::testing {
namespace {

// Five nodes of 2 GPUs and 8 cores. For a 1-GPU job with 4 cores, a0, a2 and a4 are feasible:
// a1 has no GPU free and a3 only 2 cores.
OrderCluster FiveNodes() {
  OrderCluster c(Cluster({{"a", 5, 2, "V100", 8000}}));
  c.Take(1, {0, 1}).Take(3, {}, 0, 6000);
  return c;
}

// `n` arrivals of `job` on the unchanged cluster, each placed once: one answer each.
std::vector<std::string> Draws(const OrderCluster& c, RandomOrder& order, const JobSpec& job,
                               int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    order.ObserveArrival(job, c.state());
    out.push_back(c.Place(order, job));
  }
  return out;
}

std::map<std::string, int> Count(const std::vector<std::string>& draws) {
  std::map<std::string, int> n;
  for (const std::string& d : draws) ++n[d];
  return n;
}

TEST(RandomOrderTest, SameSeedSameChoices) {
  const OrderCluster c = FiveNodes();
  RandomOrder a, b;
  a.SetSeed(7);
  b.SetSeed(7);
  const JobSpec job = NewJob(1, 1).Cpu(4000);
  const std::vector<std::string> hundred = Draws(c, a, job, 100);
  EXPECT_EQ(hundred, Draws(c, b, job, 100));
  a.SetSeed(7);  // restarts the stream
  EXPECT_EQ(Draws(c, a, job, 20), std::vector<std::string>(hundred.begin(), hundred.begin() + 20));
}

// A query is not a draw: between two arrivals, however often a job is placed (trial
// placements, reservations, the fragmentation meter), the answer is the same; another job
// may be drawn another node.
TEST(RandomOrderTest, AskingAgainWithoutAnArrivalDrawsTheSame) {
  const OrderCluster c = FiveNodes();
  RandomOrder order;
  order.SetSeed(11);
  std::map<std::string, int> first_answers;
  for (JobId id = 1; id <= 30; ++id) {
    const JobSpec job = NewJob(id, 1).Cpu(4000);
    order.ObserveArrival(job, c.state());
    const std::string first = c.Place(order, job);
    for (int i = 0; i < 50; ++i) ASSERT_EQ(c.Place(order, job), first) << "job " << id;
    ++first_answers[first];
  }
  EXPECT_EQ(first_answers.size(), 3u);  // a0, a2 and a4 all drawn for some job
}

TEST(RandomOrderTest, DifferentSeedsDifferentChoices) {
  const OrderCluster c = FiveNodes();
  const JobSpec job = NewJob(1, 1).Cpu(4000);
  std::vector<std::vector<std::string>> runs;
  for (uint64_t seed : {1, 2, 3}) {
    RandomOrder order;
    order.SetSeed(seed);
    runs.push_back(Draws(c, order, job, 50));
    EXPECT_GT(Count(runs.back()).size(), 1u) << "seed " << seed;
  }
  EXPECT_NE(runs[0], runs[1]);
  EXPECT_NE(runs[1], runs[2]);
}

// 3000 draws of `job` with seed 42 give exactly the three `answers`, each 1000 times expected
// (sd ~26); [850, 1150] is ~6 sd.
void ExpectThreeAboutEqually(const OrderCluster& c, const JobSpec& job,
                             const std::vector<std::string>& answers) {
  RandomOrder order;
  order.SetSeed(42);
  const std::map<std::string, int> n = Count(Draws(c, order, job, 3000));
  ASSERT_EQ(n.size(), 3u);
  for (const std::string& a : answers) {
    ASSERT_EQ(n.count(a), 1u) << a;
    EXPECT_GT(n.at(a), 850) << a;
    EXPECT_LT(n.at(a), 1150) << a;
  }
}

TEST(RandomOrderTest, OnlyFeasibleNodesEachAboutEqually) {
  ExpectThreeAboutEqually(FiveNodes(), NewJob(1, 1).Cpu(4000), {"a0:0", "a2:0", "a4:0"});
}

// One node with free {1000, 300, 600, 1000}: a 500-milli pod fits GPUs 0, 2 and 3, each drawn
// about a third of the time (not the least-free GPU 2 every time); never GPU 1.
TEST(RandomOrderTest, FractionGoesOnAUniformlyDrawnFittingGpu) {
  OrderCluster c(Cluster({{"a", 1, 4, "V100"}}));
  c.Take(0, {1}, 700).Take(0, {2}, 400);
  ExpectThreeAboutEqually(c, NewJob(1, 1).Milli(500),
                          {"a0:0 milli=500", "a0:2 milli=500", "a0:3 milli=500"});
}

TEST(RandomOrderTest, WholeGpusAreTheLowestIndexFreeOnes) {
  OrderCluster c(Cluster({{"a", 1, 4, "V100"}}));
  c.Take(0, {0, 2});
  RandomOrder order;
  order.SetSeed(3);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(c.Place(order, NewJob(1, 2)), "a0:1,3");
  EXPECT_EQ(c.Place(order, NewJob(1, 3)), "none");
}

TEST(RandomOrderTest, GangBiggerThanAnyNodeGoesAcrossNodes) {
  OrderCluster c = FiveNodes();
  RandomOrder order;
  order.SetSeed(3);
  // Consolidation: whole free nodes a0, a2 (most free, lowest index), then the next free
  // node, a3, for the last GPU (it lacks CPU only for jobs that ask for some).
  EXPECT_EQ(c.Place(order, NewJob(1, 5)), "a0:0,1 a2:0,1 a3:0");
}

}  // namespace
}  // namespace squeeze::testing
