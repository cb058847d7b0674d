#include <gtest/gtest.h>

#include "core/plugins/scored_orders.h"
#include "core/testing/order_cluster.h"
#include "core/testing/scenario.h"

namespace squeeze::testing {
namespace {

// s = floor(100 (1 - [(C/128000)(c/128000) + (U/8000)(R/8000)] / 2)), PROTOCOL.md section 5.

// Pod c = 8000, 500 milli (R = 500), on nodes of 4 GPUs and 32000 CPU:
//   a0 C=24000 U=3000: 24000*8000/128000^2 = .01171875, 3000*500/8000^2 = .0234375
//                      -> 100 (1 - .03515625/2) = 98.24 -> 98
//   a1 C=32000 U=2600: .015625 + .0203125 = .0359375  -> 98.20 -> 98
//   a2 C=32000 U=4000: .015625 + .03125   = .046875   -> 97.65 -> 97
// a0 and a1 tie; the pod takes the fitting GPU with the least free milli.
TEST(DotProdOrderTest, SmallestDotProductWinsTiesToRank) {
  OrderCluster c(Cluster({{"a", 3, 4, "V100", 32000}}));
  c.Take(0, {0}, 1000, 8000).Take(1, {0}, 400).Take(1, {3});  // a1 {600, 1000, 1000, 0}
  DotProdOrder order;
  const JobSpec pod = NewJob(1, 1).Milli(500).Cpu(8000);
  EXPECT_EQ(c.Place(order, pod), "a0:1 milli=500");
  order.SetNodeRank({1, 0, 2});
  EXPECT_EQ(c.Place(order, pod), "a1:0 milli=500");
  order.SetNodeRank({1, 2, 0});  // a2 first: its 97 still loses
  EXPECT_EQ(c.Place(order, pod), "a0:1 milli=500");
}

// CPU-only pod c = 64000 (R = 0): a0 C=128000: 1 * .5 / 2 = .25 -> 75; a1 C=64000: .125 -> 87.
TEST(DotProdOrderTest, CpuOnlyPodPrefersTheNodeWithLessCpuFree) {
  OrderCluster c(Cluster({{"a", 2, 2, "V100", 128000}}));
  c.Take(1, {}, 0, 64000);
  DotProdOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 0).Cpu(64000)), "a1:");
}

// 8-GPU nodes, a0 free (U=8000), a1 with GPUs 0-3 taken (U=4000); c = 0.
//   1 GPU (R=1000):  a0 1 * .125 / 2 = .0625 -> 93;  a1 .5 * .125 / 2 = .03125 -> 96
//   4 GPUs (R=4000): a0 1 * .5 / 2 = .25 -> 75;       a1 .5 * .5 / 2 = .125 -> 87
TEST(DotProdOrderTest, WholeGpuPodPrefersTheNodeWithFewerGpusFree) {
  OrderCluster c(Cluster({{"a", 2, 8, "V100", 128000}}));
  c.Take(1, {0, 1, 2, 3});
  DotProdOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 1)), "a1:4");
  EXPECT_EQ(c.Place(order, NewJob(1, 4)), "a1:4,5,6,7");
}

}  // namespace
}  // namespace squeeze::testing
