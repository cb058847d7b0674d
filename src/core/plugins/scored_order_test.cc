#include "core/plugins/scored_order.h"

#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

#include "core/plugins/node_orders.h"
#include "core/testing/order_cluster.h"
#include "core/testing/scenario.h"

namespace squeeze::testing {
namespace {

// The frame with a score that is easy to read: the node's free GPU milli in whole GPUs
// (truncated), so that nodes tie often. It counts the scores it computes, to see the cache.
class FreeGpusOrder : public ScoredNodeOrder {
 public:
  std::string_view name() const override { return "free-gpus"; }
  std::unique_ptr<NodeOrder> Clone() const override { return std::make_unique<FreeGpusOrder>(*this); }
  int scored() const { return scored_; }

 protected:
  int64_t Score(const NodeView& node, const PodSpec&) const override {
    ++scored_;
    return node.FreeMilli() / kMilliPerGpu;
  }

 private:
  mutable int scored_ = 0;
};

// Three nodes a0..a2 of 4 V100s, 32 cores and 64 GiB.
ClusterSpec ThreeNodes() { return Cluster({{"a", 3, 4, "V100", 32000, 65536}}); }

TEST(ScoredOrderTest, HighestScoreWins) {
  OrderCluster c(ThreeNodes());
  c.Take(0, {0}).Take(1, {0}, 400);  // scores: a0 3000 -> 3, a1 3600 -> 3, a2 4
  FreeGpusOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 1)), "a2:0");
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Milli(500)), "a2:0 milli=500");
}

// All score 3: a0 {0,1000,1000,1000}, a1 {600,1000,1000,1000}, a2 {1000,1000,1000,700}. A
// fraction takes the fitting GPU with the least free milli on the node that wins the tie.
TEST(ScoredOrderTest, TiesGoToTheLowestRank) {
  OrderCluster c(ThreeNodes());
  c.Take(0, {0}).Take(1, {0}, 400).Take(2, {3}, 300);
  FreeGpusOrder order;
  const JobSpec half = NewJob(1, 1).Milli(500);
  EXPECT_EQ(c.Place(order, half), "a0:1 milli=500");  // default rank = node index
  order.SetNodeRank({2, 0, 1});
  EXPECT_EQ(c.Place(order, half), "a1:0 milli=500");
  order.SetNodeRank({2, 1, 0});
  EXPECT_EQ(c.Place(order, half), "a2:3 milli=500");
  // A short vector: a0 rank 1, a1 rank 0, a2 beyond it (rank 2 + 2).
  order.SetNodeRank({1, 0});
  EXPECT_EQ(c.Place(order, half), "a1:0 milli=500");
}

TEST(ScoredOrderTest, WholeGpusAreTheLowestIndexFreeOnes) {
  OrderCluster c(ThreeNodes());
  c.Take(0, {1}).Take(1, {0}).Take(2, {0});  // all score 3; a0 has GPUs 0, 2, 3 free
  FreeGpusOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 2)), "a0:0,2");
  EXPECT_EQ(c.Place(order, NewJob(1, 3)), "a0:0,2,3");
  EXPECT_EQ(c.Place(order, NewJob(1, 4)), "none");  // 4 = the node size: never spread
}

TEST(ScoredOrderTest, CpuOnlyPodTakesNoGpuAndMayGoToAFullNode) {
  OrderCluster c(ThreeNodes());
  c.Take(0, {0, 1, 2, 3}).Take(1, {}, 0, 31000).Take(2, {}, 0, 31000);
  FreeGpusOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 0).Cpu(2000)), "a0:");  // a1, a2 have 1000 CPU left
  EXPECT_EQ(c.Place(order, NewJob(1, 0).Cpu(1000)), "a1:");  // a1, a2 score 4, a0 0
  EXPECT_EQ(c.state().node(0).share_pods + c.state().node(0).kgpu_pods, 1);
  EXPECT_EQ(c.state().node(1).share_pods + c.state().node(1).kgpu_pods, 0);  // CPU-only
}

// a2 would score best (4) but has 2000 CPU left; a1 (4) has 5536 MiB; a0 scores 3.
TEST(ScoredOrderTest, CpuAndMemoryMustFit) {
  OrderCluster c(ThreeNodes());
  c.Take(0, {0}).Take(1, {}, 0, 0, 60000).Take(2, {}, 0, 30000);
  FreeGpusOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Cpu(4000)), "a1:0");
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Cpu(4000).Memory(8192)), "a0:1");
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Cpu(2000).Memory(5536)), "a1:0");  // boundaries fit
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Cpu(32001)), "none");
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Memory(65537)), "none");
}

TEST(ScoredOrderTest, NodeWithoutCpuOrMemoryTrackedTakesAnyAmount) {
  OrderCluster c(Cluster({{"a", 1, 4, "V100", 32000, 65536}, {"b", 1, 2, "V100"}}));
  FreeGpusOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 1)), "a0:0");  // 4 free GPUs against 2
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Cpu(1000000).Memory(1 << 30)), "b0:0");
}

// a0 V100 (4 free), a1 T4 (3 free), a2 A100 (2 free).
TEST(ScoredOrderTest, PodGoesOnlyToAnAllowedModel) {
  OrderCluster c(Cluster({{"a", 1, 4, "V100", 32000}, {"a", 1, 4, "T4", 32000},
                          {"a", 1, 4, "A100", 32000}}));
  c.Take(1, {0}).Take(2, {0, 1});
  FreeGpusOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 1)), "a0:0");
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Models({"T4", "A100"})), "a1:1");
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Milli(300).Models({"A100"})), "a2:2 milli=300");
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Models({"H100"})), "none");
  EXPECT_EQ(c.Place(order, NewJob(1, 0).Cpu(1000).Models({"H100"})), "a0:");  // no GPU: any
}

// 6 GPUs on 4-GPU nodes: ConsolidationOrder's answer (a free node, then the next in its order),
// and no score is asked for.
TEST(ScoredOrderTest, GangBiggerThanAnyNodeGoesAcrossNodes) {
  OrderCluster c(ThreeNodes());
  c.Take(1, {0});
  FreeGpusOrder order;
  const JobSpec gang = NewJob(1, 6);
  EXPECT_EQ(c.Place(order, gang), "a0:0,1,2,3 a2:0,1");
  EXPECT_EQ(c.Place(ConsolidationOrder(), gang), "a0:0,1,2,3 a2:0,1");
  EXPECT_EQ(order.scored(), 0);
  EXPECT_EQ(c.Place(order, NewJob(1, 12)), "none");  // 11 free
}

// a0 4 free, a1 {300 free, 1000, 1000, 1000}, a2 GPUs 0 and 1 taken.
TEST(ScoredOrderTest, ReservationCapHidesWholeGpus) {
  OrderCluster c(ThreeNodes());
  c.Take(1, {0}, 700).Take(2, {0, 1});
  FreeGpusOrder order;
  const std::unordered_map<int, int> a0_one = {{0, 1}};
  EXPECT_EQ(c.Place(order, NewJob(1, 1)), "a0:0");         // 4 > 3 > 2
  EXPECT_EQ(c.Place(order, NewJob(1, 1), &a0_one), "a1:1");  // a0 seen with 1 GPU: score 1
  const std::unordered_map<int, int> one_and_none = {{0, 1}, {1, 0}};
  EXPECT_EQ(c.Place(order, NewJob(1, 2), &one_and_none), "a2:2,3");
  // With no whole GPU anywhere, only a1's partly used GPU 0 is left for a fraction.
  const std::unordered_map<int, int> none = {{0, 0}, {1, 0}, {2, 0}};
  const JobSpec small = NewJob(1, 1).Milli(300);
  EXPECT_EQ(c.Place(order, small, &none), "a1:0 milli=300");
  // The capped views were not cached as the nodes' scores: uncapped, a0 wins again.
  EXPECT_EQ(c.Place(order, small), "a0:0 milli=300");
}

TEST(ScoredOrderTest, CachedScoresFollowTheNodes) {
  OrderCluster c(ThreeNodes());
  FreeGpusOrder order;
  const JobSpec one = NewJob(1, 1);
  EXPECT_EQ(c.Place(order, one), "a0:0");  // all 4: rank
  EXPECT_EQ(order.scored(), 3);
  EXPECT_EQ(c.Place(order, one), "a0:0");
  EXPECT_EQ(order.scored(), 3);  // nothing changed: all cached
  c.Take(0, {0, 1});
  EXPECT_EQ(c.Place(order, one), "a1:0");  // a0 now 2
  EXPECT_EQ(order.scored(), 4);            // a0 alone scored again
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Milli(500)), "a1:0 milli=500");
  EXPECT_EQ(order.scored(), 7);  // a new shape: every node
  // Placed and allocated one after another, the answers move with the nodes.
  EXPECT_EQ(c.PlaceAndTake(order, one), "a1:0");
  EXPECT_EQ(c.PlaceAndTake(order, one), "a2:0");
  EXPECT_EQ(c.PlaceAndTake(order, one), "a1:1");  // a1, a2 3, a0 2
  EXPECT_EQ(c.PlaceAndTake(order, one), "a2:1");
}

TEST(ScoredOrderTest, MemoryIsCheckedOutsideTheCache) {
  OrderCluster c(ThreeNodes());
  c.Take(0, {}, 0, 0, 60000);
  FreeGpusOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 1)), "a0:0");
  // The same shape (memory is no part of it): a0 is now too small.
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Memory(8192)), "a1:0");
  EXPECT_EQ(c.Place(order, NewJob(1, 1).Memory(65537)), "none");
}

TEST(ScoredOrderTest, OtherStatesOfTheSameClusterAreScoredAfresh) {
  const ClusterSpec spec = ThreeNodes();
  OrderCluster c(spec);
  OrderCluster other(spec);
  other.Take(0, {0, 1, 2});
  FreeGpusOrder order;
  EXPECT_EQ(c.Place(order, NewJob(1, 1)), "a0:0");
  EXPECT_EQ(other.Place(order, NewJob(1, 1)), "a1:0");
  EXPECT_EQ(c.Place(order, NewJob(1, 1)), "a0:0");
}

TEST(ScoredOrderHelpersTest, PodOfAndViewOf) {
  const PodSpec cpu_only = PodOf(NewJob(1, 0).Cpu(3000).Memory(512).Models({"T4"}));
  EXPECT_EQ(cpu_only.gpus, 0);
  EXPECT_EQ(cpu_only.gpu_milli, 0);
  EXPECT_EQ(cpu_only.cpu_milli, 3000);
  EXPECT_EQ(cpu_only.memory_mib, 512);
  EXPECT_TRUE(cpu_only.CpuOnly());
  const PodSpec half = PodOf(NewJob(1, 1).Milli(500).Models({"T4", "V100"}));
  EXPECT_EQ(half.gpu_milli, 500);
  EXPECT_EQ(half.GpuSpec(), "T4|V100");

  OrderCluster c(Cluster({{"a", 1, 2, "V100", 8000, 1024}, {"b", 1, 2, "T4"}}));
  c.Take(0, {1}, 300, 2000, 24).Take(1, {0});
  const ClusterState& s = c.state();
  const NodeView a0 = ViewOf(s.node(0), s.group(s.node(0).group));
  EXPECT_EQ(a0.cpu_free, 6000);
  EXPECT_EQ(a0.memory_free, 1000);
  EXPECT_EQ(a0.free_milli, (std::vector<int>{1000, 700}));
  EXPECT_EQ(a0.gpu_model, "V100");
  EXPECT_TRUE(a0.hosts_share && a0.hosts_any_gpu_pod && !a0.hosts_kgpu);
  const NodeView b0 = ViewOf(s.node(1), s.group(s.node(1).group));
  EXPECT_EQ(b0.cpu_free, 0);  // not tracked
  EXPECT_EQ(b0.memory_free, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(b0.hosts_kgpu && !b0.hosts_share);
}

TEST(ScoredOrderHelpersTest, CappedViewHidesWholeGpusBeyondTheCap) {
  NodeView v;
  v.free_milli = {1000, 400, 1000, 1000};
  EXPECT_EQ(CappedView(v, 1).free_milli, (std::vector<int>{1000, 400, 0, 0}));
  EXPECT_EQ(CappedView(v, 0).free_milli, (std::vector<int>{0, 400, 0, 0}));
  EXPECT_EQ(CappedView(v, 3).free_milli, v.free_milli);
}

TEST(ScoredOrderHelpersTest, NeedsSeveralNodesOnlyBeyondTheLargestNode) {
  OrderCluster c(Cluster({{"a", 2, 4, "V100"}, {"a", 1, 8, "A100"}}));
  auto needs = [&](const JobSpec& job, std::vector<int> groups) {
    PlaceRequest req;
    req.job = &job;
    req.groups = std::move(groups);
    return NeedsSeveralNodes(req, c.state());
  };
  EXPECT_FALSE(needs(NewJob(1, 4), {0}));
  EXPECT_TRUE(needs(NewJob(1, 5), {0}));
  EXPECT_FALSE(needs(NewJob(1, 5), {0, 1}));  // the A100 node holds 8
  EXPECT_TRUE(needs(NewJob(1, 9), {0, 1}));
  EXPECT_FALSE(needs(NewJob(1, 1), {}));
}

}  // namespace
}  // namespace squeeze::testing
