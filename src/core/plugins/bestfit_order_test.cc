#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/plugins/scored_orders.h"
#include "core/testing/order_cluster.h"
#include "core/testing/scenario.h"

namespace squeeze::testing {
namespace {

// The order with its feasible-node scores in view.
class BestFitProbe : public BestFitScoreOrder {
 public:
  // (node, normalised score) of every feasible node, in node order.
  std::vector<std::pair<int, int64_t>> Scores(const JobSpec& job, const ClusterState& c) const {
    PlaceRequest req;
    req.job = &job;
    for (size_t g = 0; g < c.groups().size(); ++g) req.groups.push_back(static_cast<int>(g));
    std::vector<std::pair<int, int64_t>> out;
    for (const Feasible& f : ScoreFeasibleNodes(req, c)) out.emplace_back(f.node, f.score);
    return out;
  }
};

using Scores = std::vector<std::pair<int, int64_t>>;

// BestFit (PROTOCOL.md section 5): raw = floor(100 (1 - [.5 (C - c) / 128000 + .5 (U - R) / 8000])),
// then floor((raw - lo) 100 / (hi - lo)) over the feasible nodes. 4 GPUs and 32000 CPU a node:
//   a0 free                         C=32000 U=4000
//   a1 16000 CPU and GPUs 0, 1 used  C=16000 U=2000
//   a2 GPUs 0-2 used                 C=32000 U=1000
//   a3 {400, 0, 1000, 1000}          C=32000 U=2400
OrderCluster FourNodes() {
  OrderCluster c(Cluster({{"a", 4, 4, "V100", 32000}}));
  c.Take(1, {0, 1}, 1000, 16000).Take(2, {0, 1, 2}).Take(3, {0}, 600).Take(3, {1});
  return c;
}

// c = 4000, one GPU (R = 1000):
//   a0 .5*28000/128000 + .5*3000/8000 = .109375 + .1875 = .296875 -> 70.31 -> 70 -> 0
//   a1 .5*12000/128000 + .5*1000/8000 = .046875 + .0625 = .109375 -> 89.06 -> 89 -> 100
//   a2 .109375 + 0                                        = .109375 -> 89    -> 100
//   a3 .109375 + .5*1400/8000 = .109375 + .0875 = .196875 -> 80.31 -> 80 -> 10*100/19 = 52
// a1 and a2 tie (less CPU left against fewer GPUs left): rank.
TEST(BestFitOrderTest, LeastLeftOverWinsNormalisedTiesToRank) {
  OrderCluster c = FourNodes();
  BestFitProbe order;
  const JobSpec pod = NewJob(1, 1).Cpu(4000);
  EXPECT_EQ(order.Scores(pod, c.state()), (Scores{{0, 0}, {1, 100}, {2, 100}, {3, 52}}));
  EXPECT_EQ(c.Place(order, pod), "a1:2");
  order.SetNodeRank({0, 2, 1, 3});
  EXPECT_EQ(c.Place(order, pod), "a2:3");
}

// A 2-GPU pod fits a0, a1 and a3 only; a CPU-only pod (R = 0) of 20000 CPU every node but a1.
//   2 GPUs (R=2000): a0 .109375 + .125 -> 76; a1 .046875 + 0 -> 95; a3 .109375 + .025 -> 86
//                    -> 0, 100, 10*100/19 = 52
//   CPU 20000:       a0 .046875 + .25 -> 70; a2 .046875 + .0625 -> 89; a3 + .15 -> 80
TEST(BestFitOrderTest, OnlyFeasibleNodesAreNormalised) {
  OrderCluster c = FourNodes();
  BestFitProbe order;
  EXPECT_EQ(order.Scores(NewJob(1, 2).Cpu(4000), c.state()), (Scores{{0, 0}, {1, 100}, {3, 52}}));
  EXPECT_EQ(c.Place(order, NewJob(1, 2).Cpu(4000)), "a1:2,3");
  EXPECT_EQ(order.Scores(NewJob(1, 0).Cpu(20000), c.state()), (Scores{{0, 0}, {2, 100}, {3, 52}}));
  EXPECT_EQ(c.Place(order, NewJob(1, 0).Cpu(20000)), "a2:");
}

TEST(BestFitOrderTest, AllEqualScoreZeroAndRankDecides) {
  OrderCluster c(Cluster({{"a", 3, 4, "V100", 32000}}));
  BestFitProbe order;
  const JobSpec pod = NewJob(1, 1).Milli(500);
  EXPECT_EQ(order.Scores(pod, c.state()), (Scores{{0, 0}, {1, 0}, {2, 0}}));
  order.SetNodeRank({2, 0, 1});
  EXPECT_EQ(c.Place(order, pod), "a1:0 milli=500");
}

}  // namespace
}  // namespace squeeze::testing
