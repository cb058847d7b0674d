#include <vector>

#include <gtest/gtest.h>

#include "core/plugins/scored_orders.h"
#include "core/testing/order_cluster.h"
#include "core/testing/scenario.h"

namespace squeeze::testing {
namespace {

// GpuClustering (PROTOCOL.md section 5): b = floor(25 (8000 - U) / 8000), then +75 when the node
// hosts only pods of the pod's class, +50 when it hosts both classes, +25 when it hosts no GPU
// pod, +0 when it hosts only the other class.
//   a0 free              U=4000 b=12  share 12+25=37  k-gpu 37
//   a1 a 500-milli pod   U=3500 b=14  share 14+75=89  k-gpu 14
//   a2 a whole-GPU pod   U=3000 b=15  share 15        k-gpu 15+75=90
//   a3 both              U=2500 b=17  share 17+50=67  k-gpu 67
OrderCluster FourNodes() {
  OrderCluster c(Cluster({{"a", 4, 4, "V100"}}));
  c.Take(1, {0}, 500).Take(2, {0}).Take(3, {0}).Take(3, {1}, 500);
  return c;
}

// A share pod goes to a1 (89), a whole-GPU pod or a pair to a2 (90).
TEST(ClusteringOrderTest, PodJoinsTheNodeOfItsOwnClass) {
  const OrderCluster c = FourNodes();
  const ClusteringOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Milli(200)), "a1:0 milli=200");
  EXPECT_EQ(c.Place(order, NewJob(1, 1)), "a2:1");
  EXPECT_EQ(c.Place(order, NewJob(1, 2)), "a2:1,2");
}

// A CPU-only pod scores 0 on every node: whichever node ranks first takes it.
TEST(ClusteringOrderTest, CpuOnlyPodGoesByRankAlone) {
  const OrderCluster c = FourNodes();
  const char* const kWant[] = {"a0:", "a1:", "a2:", "a3:"};
  for (int first = 0; first < 4; ++first) {
    std::vector<int> rank = {1, 2, 3, 4};
    rank[first] = 0;
    ClusteringOrder order;
    order.SetNodeRank(rank);
    EXPECT_EQ(c.Place(order, NewJob(1, 0).Cpu(1000)), kWant[first]);
  }
}

// Two free nodes tie at 37 (rank: a0). A share pod on a1 makes it 89 for the next share pod;
// released, a1 hosts nothing again and the tie is back. A CPU-only pod is of neither class:
// a1 stays at 37 (as a share host it would win with 89, as a k-gpu host lose with 12).
TEST(ClusteringOrderTest, ClassesFollowAllocateAndRelease) {
  OrderCluster c(Cluster({{"a", 2, 4, "V100", 32000}}));
  ClusteringOrder order;
  const JobSpec share = NewJob(1, 1).Milli(500);
  EXPECT_EQ(c.Place(order, share), "a0:0 milli=500");
  Placement on_a1;
  on_a1.shares.push_back(NodeShare{1, {2}, 500, 0, 0});
  c.state().Allocate(on_a1);
  EXPECT_EQ(c.Place(order, share), "a1:2 milli=500");
  c.state().Release(on_a1);
  EXPECT_EQ(c.Place(order, share), "a0:0 milli=500");
  c.Take(1, {}, 0, 1000);
  EXPECT_EQ(c.Place(order, share), "a0:0 milli=500");
  order.SetNodeRank({1, 0});
  EXPECT_EQ(c.Place(order, share), "a1:0 milli=500");
}

}  // namespace
}  // namespace squeeze::testing
