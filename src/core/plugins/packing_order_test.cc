#include <gtest/gtest.h>

#include "core/plugins/scored_orders.h"
#include "core/testing/order_cluster.h"
#include "core/testing/scenario.h"

namespace squeeze::testing {
namespace {

// GpuPacking (PROTOCOL.md section 5), G = 4 GPUs a node:
//   all GPUs free:                 max(33 - G, G) = 29
//   uses a fully free GPU:         max(50 - #fully free used, 33)
//   else, on a GPU with l free:    max(100 - floor(floor(100 l / 1000) / 10), 50)
// a0 free; a1 {1000, 1000, 1000, 0}; a2 {550, 1000, 1000, 1000}; a3 {320, 1000, 1000, 1000}.
OrderCluster FourNodes() {
  OrderCluster c(Cluster({{"a", 4, 4, "V100"}}));
  c.Take(1, {3}).Take(2, {0}, 450).Take(3, {0}, 680);
  return c;
}

// 300 milli: a0 29; a1 49 (GPU 0 is fully free); a2 l=550: 100 - 55/10 = 95; a3 l=320: 97.
// 400 milli: a3's 320 is too small, so it uses a free GPU: 49; a2 95 wins.
TEST(PackingOrderTest, PartlyUsedGpuFirstTheFullerTheBetter) {
  OrderCluster c = FourNodes();
  PackingOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Milli(300)), "a3:0 milli=300");
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Milli(400)), "a2:0 milli=400");
}

// A whole GPU: a0 29, a1 a2 a3 each 50 - 1 = 49: rank. Two GPUs: 50 - 2 = 48 on a1..a3.
TEST(PackingOrderTest, WholeGpusGoToAPartlyUsedNodeTiesToRank) {
  OrderCluster c = FourNodes();
  PackingOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 1)), "a1:0");
  EXPECT_EQ(c.Place(order, NewJob(1, 2)), "a1:0,1");
  order.SetNodeRank({0, 3, 2, 1});
  EXPECT_EQ(c.Place(order, NewJob(1, 1)), "a3:1");
  EXPECT_EQ(c.Place(order, NewJob(1, 2)), "a3:1,2");
}

// l = 550 and l = 590 both give floor(55 / 10) = floor(59 / 10) = 5: 95 each.
TEST(PackingOrderTest, TruncationTiesTheGpuBuckets) {
  OrderCluster c(Cluster({{"a", 3, 4, "V100"}}));
  c.Take(1, {0}, 450).Take(2, {2}, 410);  // a1 {550, ...}, a2 {1000, 1000, 590, 1000}
  PackingOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Milli(500)), "a1:0 milli=500");
  order.SetNodeRank({0, 2, 1});
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Milli(500)), "a2:2 milli=500");
}

// Empty nodes: max(33 - 8, 8) = 25 for 8 GPUs, max(33 - 2, 2) = 31 for 2.
TEST(PackingOrderTest, EmptySmallNodeBeforeEmptyBigNode) {
  OrderCluster c(Cluster({{"a", 1, 8, "V100"}, {"b", 1, 2, "V100"}}));
  PackingOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 1)), "b0:0");
}

TEST(PackingOrderTest, CpuOnlyPodScoresZeroEverywhere) {
  OrderCluster c = FourNodes();
  PackingOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 0).Cpu(1000)), "a0:");
  order.SetNodeRank({3, 2, 0, 1});
  EXPECT_EQ(c.Place(order, NewJob(1, 0).Cpu(1000)), "a2:");
}

}  // namespace
}  // namespace squeeze::testing
