#include <vector>

#include <gtest/gtest.h>

#include "core/plugins/scored_orders.h"
#include "core/testing/order_cluster.h"
#include "core/testing/pod_builders.h"
#include "core/testing/scenario.h"

namespace squeeze::testing {
namespace {

// FGD (PROTOCOL.md section 5): s = floor(100 sigmoid((F_n - F_n') / 1000)). Sigmoids used below:
//   100 sigmoid(-.75) = 32.08   100 sigmoid(-.5) = 37.75   100 sigmoid(-.25) = 43.78
//   100 sigmoid(-.1) = 47.50    100 sigmoid(0) = 50         100 sigmoid(.2) = 54.98
//   100 sigmoid(.25) = 56.22    100 sigmoid(-4) = 1.80

// Target M: A = (1000 CPU, 500 milli, 1 GPU) and B = (1000 CPU, 2 whole GPUs), p = .5 each.
// f(A) = free milli of GPUs under 500; f(B) = free milli of partly used GPUs when 2 GPUs are
// whole, else U. Nodes of 4 GPUs, with plenty of CPU:
//   a0 free                        F = 0
//   a1 {500, 1000, 1000, 1000}     F = .5*0 + .5*500 = 250
//   a2 {1000, 1000, 0, 0}          F = 0
OrderCluster ThreeNodes(FgdOrder& order) {
  order.SetWorkloadHistory({Pod(1000, 500, 1), Pod(1000, 1000, 2)});
  OrderCluster c(Cluster({{"a", 3, 4, "V100", 32000}}));
  c.Take(1, {0}, 500, 1000).Take(2, {2, 3});
  return c;
}

// 500 milli:
//   a0 GPU 0 -> {500, 1000, 1000, 1000}: F' = 250, delta -250 -> 43
//   a1 GPU 0 -> {0, 1000, 1000, 1000}:   F' = 0,   delta +250 -> 56 (GPU 1 would give 43)
//   a2 GPU 0 -> {500, 1000, 0, 0}:       f(B) = U = 1500, F' = 750, delta -750 -> 32
TEST(FgdOrderTest, FractionGoesWhereFragmentationShrinks) {
  FgdOrder order;
  OrderCluster c = ThreeNodes(order);
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Milli(500).Cpu(1000)), "a1:0 milli=500");
}

// One GPU: a0 -> {0, 1000, 1000, 1000}: F' = 0 -> 50; a1 -> GPU 1: {500, 0, 1000, 1000}:
// F' = 250 -> 50; a2 -> {0, 1000, 0, 0}: f(B) = U = 1000, F' = 500 -> 37. Rank between a0, a1.
// Two GPUs: a0 -> {0, 0, 1000, 1000}: 50; a1 -> {500, 0, 0, 1000}: f(B) = 1500, F' = 750,
// delta -500 -> 37; a2 -> {0, 0, 0, 0}: F' = 0 -> 50. Rank between a0, a2.
TEST(FgdOrderTest, WholeGpusTakeTheLowestIndexFreeOnesTiesToRank) {
  FgdOrder order;
  OrderCluster c = ThreeNodes(order);
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Cpu(1000)), "a0:0");
  EXPECT_EQ(c.Place(order, NewJob(1, 2).Cpu(1000)), "a0:0,1");
  order.SetNodeRank({2, 1, 0});
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Cpu(1000)), "a1:1");
  EXPECT_EQ(c.Place(order, NewJob(1, 2).Cpu(1000)), "a2:0,1");
}

// Target T = (0, 300 milli). A 500-milli pod on {800, 600}: GPU 0 -> {300, 600}: F' = 0 -> 50;
// GPU 1 -> {800, 100}: F' = 100 -> 47. FGD takes GPU 0, not the least-free fitting GPU 1.
TEST(FgdOrderTest, FractionGoesOnTheGpuFgdPrefers) {
  FgdOrder order;
  order.SetWorkloadHistory({Pod(0, 300, 1)});
  OrderCluster c(Cluster({{"a", 1, 2, "V100"}}));
  c.Take(0, {0}, 200).Take(0, {1}, 400);
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Milli(500)), "a0:0 milli=500");
}

// A CPU-only pod of 1000 CPU: on a0 (1500 CPU) it leaves 500 < 1000, so every spec of M lacks
// CPU: F' = U = 4000, delta -4000 -> 1. On a1 nothing changes: 50.
TEST(FgdOrderTest, CpuOnlyPodAvoidsStarvingANodeOfCpu) {
  FgdOrder order;
  order.SetWorkloadHistory({Pod(1000, 500, 1), Pod(1000, 1000, 2)});
  OrderCluster c(Cluster({{"a", 2, 4, "V100", 32000}}));
  c.Take(0, {}, 0, 30500);
  EXPECT_EQ(c.Place(order, NewJob(1, 0).Cpu(1000)), "a1:");
  EXPECT_EQ(c.Place(order, NewJob(1, 0).Cpu(400)), "a0:");  // 1100 left: both 50
}

TEST(FgdOrderTest, TargetLearnedFromArrivalsEachTimeTheyDouble) {
  FgdOrder order;
  const ClusterState cluster(Cluster({{"a", 1, 1, "V100"}}));
  EXPECT_TRUE(order.target().entries().empty());
  const JobSpec a = NewJob(1, 1).Milli(300);
  const JobSpec b = NewJob(2, 1);
  order.ObserveArrival(a, cluster);  // 1 arrival: built
  ASSERT_EQ(order.target().entries().size(), 1u);
  order.ObserveArrival(b, cluster);  // 2: rebuilt, a and b .5 each
  ASSERT_EQ(order.target().entries().size(), 2u);
  order.ObserveArrival(b, cluster);  // 3: not rebuilt
  EXPECT_DOUBLE_EQ(order.target().entries()[0].p, 0.5);
  order.ObserveArrival(b, cluster);  // 4: rebuilt, b 3 of 4
  EXPECT_EQ(order.target().entries()[0].spec.gpu_milli, 1000);
  EXPECT_DOUBLE_EQ(order.target().entries()[0].p, 0.75);
  order.SetWorkloadHistory({Pod(0, 300, 1)});
  for (int i = 0; i < 8; ++i) order.ObserveArrival(b, cluster);  // a history given: ignored
  ASSERT_EQ(order.target().entries().size(), 1u);
  EXPECT_EQ(order.target().entries()[0].spec.gpu_milli, 300);
}

// a0 {1000}, a1 {600}, a 500-milli pod, the cluster unchanged throughout:
//   M = {T300}:       a0 -> {500}: F 0 -> 0: 50; a1 -> {100}: F 0 -> 100: 47      -> a0
//   M = {T300, W} .5: a0: F 0 -> .5*500 = 250: 43; a1: F .5*600 = 300 -> 100: 54  -> a1
// (W = one whole GPU: f(W) = U without a whole GPU.) The scores cached under M are dropped.
TEST(FgdOrderTest, NewTargetForgetsCachedScores) {
  FgdOrder order;
  OrderCluster c(Cluster({{"a", 2, 1, "V100"}}));
  c.Take(1, {0}, 400);
  const JobSpec pod = NewJob(1, 1).Milli(500);
  order.ObserveArrival(NewJob(2, 1).Milli(300), c.state());
  EXPECT_EQ(c.Place(order, pod), "a0:0 milli=500");
  order.ObserveArrival(NewJob(3, 1), c.state());
  EXPECT_EQ(c.Place(order, pod), "a1:0 milli=500");
}

// No target at all: F = 0 everywhere, every score 50, the rank decides.
TEST(FgdOrderTest, WithoutTargetRankDecides) {
  FgdOrder order;
  OrderCluster c(Cluster({{"a", 3, 2, "V100"}}));
  c.Take(0, {0}, 300);
  order.SetNodeRank({1, 2, 0});
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Milli(500)), "a2:0 milli=500");
}

}  // namespace
}  // namespace squeeze::testing
