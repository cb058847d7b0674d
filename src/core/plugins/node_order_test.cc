#include "core/plugins/node_order.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using testing::Cluster;
using testing::DescribePlacement;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;

// A cluster whose nodes have given numbers of free whole GPUs (the lowest-index GPUs taken),
// and a helper to place jobs on it with one node order.
class Placer {
 public:
  Placer(ClusterSpec spec, const std::vector<int>& free) : spec_(spec), cluster_(spec) {
    for (size_t n = 0; n < free.size(); ++n) {
      const int used = cluster_.node(static_cast<int>(n)).gpus - free[n];
      if (used <= 0) continue;
      NodeShare s;
      s.node = static_cast<int>(n);
      for (int g = 0; g < used; ++g) s.gpus.push_back(g);
      Placement p;
      p.shares.push_back(s);
      cluster_.Allocate(p);
    }
  }
  // Takes `milli` of GPU `gpu` on `node`.
  void TakeMilli(int node, int gpu, int milli) {
    NodeShare s;
    s.node = node;
    s.gpus = {gpu};
    s.milli_per_gpu = milli;
    Placement p;
    p.shares.push_back(s);
    cluster_.Allocate(p);
  }
  // The placement as text, "none" when it does not fit.
  std::string Place(const std::string& order, const JobSpec& job,
                    const std::unordered_map<int, int>* caps = nullptr) const {
    auto o = MakeNodeOrder(order);
    EXPECT_TRUE(o.ok()) << o.status().message();
    PlaceRequest req;
    req.job = &job;
    for (size_t g = 0; g < cluster_.groups().size(); ++g) req.groups.push_back(static_cast<int>(g));
    req.node_gpu_cap = caps;
    auto p = (*o)->Place(req, cluster_);
    return p ? DescribePlacement(*p, spec_) : "none";
  }

 private:
  ClusterSpec spec_;
  ClusterState cluster_;
};

TEST(NodeOrderTest, NamesAndUnknownName) {
  auto o = MakeNodeOrder("worst-fit");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(),
            "unknown node order 'worst-fit' (known: best-fit, bestfit, clustering, "
            "consolidation, dotprod, fgd, first-fit, least-allocated, packing, random, squeeze)");
  for (const std::string& name : NodeOrderNames()) {
    EXPECT_EQ((*MakeNodeOrder(name))->name(), name);
  }
}

TEST(NodeOrderTest, FirstFitTakesTheLowestIndexThatFits) {
  Placer p(Cluster({{"a", 4, 8}}), {2, 8, 4, 3});
  EXPECT_EQ(p.Place("first-fit", NewJob(1, 2)), "a0:6,7");
  EXPECT_EQ(p.Place("first-fit", NewJob(1, 3)), "a1:0,1,2");
  EXPECT_EQ(p.Place("first-fit", NewJob(1, 5)), "a1:0,1,2,3,4");
  EXPECT_EQ(p.Place("first-fit", NewJob(1, 18)), "none");  // 17 free
}

TEST(NodeOrderTest, FirstFitScattersABigJobInIndexOrder) {
  Placer p(Cluster({{"a", 3, 8}}), {2, 8, 4});
  EXPECT_EQ(p.Place("first-fit", NewJob(1, 12)), "a0:6,7 a1:0,1,2,3,4,5,6,7 a2:4,5");
  EXPECT_EQ(p.Place("first-fit", NewJob(1, 15)), "none");
}

TEST(NodeOrderTest, BestFitTakesTheFewestFreeThatSuffice) {
  Placer p(Cluster({{"a", 4, 8}}), {8, 3, 5, 3});
  EXPECT_EQ(p.Place("best-fit", NewJob(1, 3)), "a1:5,6,7");  // tie 1 vs 3: lowest index
  EXPECT_EQ(p.Place("best-fit", NewJob(1, 4)), "a2:3,4,5,6");
  EXPECT_EQ(p.Place("best-fit", NewJob(1, 6)), "a0:0,1,2,3,4,5");
  EXPECT_EQ(p.Place("best-fit", NewJob(1, 1)), "a1:5");
}

TEST(NodeOrderTest, BestFitPutsTheRemainderOnTheBestFittingNode) {
  Placer p(Cluster({{"a", 5, 8}}), {8, 8, 5, 4, 6});
  EXPECT_EQ(p.Place("best-fit", NewJob(1, 12)), "a0:0,1,2,3,4,5,6,7 a3:4,5,6,7");
}

TEST(NodeOrderTest, LeastAllocatedTakesTheMostFreeThatFits) {
  Placer p(Cluster({{"a", 4, 8}}), {8, 3, 5, 8});
  EXPECT_EQ(p.Place("least-allocated", NewJob(1, 3)), "a0:0,1,2");  // tie 0 vs 3: lowest index
  EXPECT_EQ(p.Place("least-allocated", NewJob(1, 6)), "a0:0,1,2,3,4,5");
  Placer partly(Cluster({{"a", 3, 8}}), {2, 6, 4});
  EXPECT_EQ(partly.Place("least-allocated", NewJob(1, 1)), "a1:2");
  EXPECT_EQ(partly.Place("least-allocated", NewJob(1, 7)), "none");
  Placer big(Cluster({{"a", 4, 8}}), {8, 3, 8, 5});
  EXPECT_EQ(big.Place("least-allocated", NewJob(1, 12)), "a0:0,1,2,3,4,5,6,7 a2:0,1,2,3");
}

// The Helios "consolidate": g <= 8 best fit with ties to the lowest id.
TEST(NodeOrderTest, ConsolidationSmallJobIsBestFit) {
  Placer p(Cluster({{"a", 4, 8}}), {8, 3, 5, 3});
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 3)), "a1:5,6,7");
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 4)), "a2:3,4,5,6");
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 8)), "a0:0,1,2,3,4,5,6,7");
  Placer full(Cluster({{"a", 2, 8}}), {2, 2});
  EXPECT_EQ(full.Place("consolidation", NewJob(1, 3)), "none");
}

// g > 8: whole free nodes, then the remainder on the next node in (most free, lowest id) order:
// another whole free node when there is one, not the best-fitting node.
TEST(NodeOrderTest, ConsolidationRemainderGoesToTheNextNodeInOrder) {
  Placer p(Cluster({{"a", 5, 8}}), {8, 8, 5, 4, 6});
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 12)), "a0:0,1,2,3,4,5,6,7 a1:0,1,2,3");
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 21)), "a0:0,1,2,3,4,5,6,7 a1:0,1,2,3,4,5,6,7 "
                                                     "a4:2,3,4,5,6");
  Placer one_full(Cluster({{"a", 4, 8}}), {5, 8, 6, 4});
  EXPECT_EQ(one_full.Place("consolidation", NewJob(1, 12)), "a1:0,1,2,3,4,5,6,7 a2:2,3,4,5");
  EXPECT_EQ(one_full.Place("consolidation", NewJob(1, 15)), "none");  // 7 left, 6 on the next
  EXPECT_EQ(one_full.Place("best-fit", NewJob(1, 12)), "a1:0,1,2,3,4,5,6,7 a3:4,5,6,7");
}

TEST(NodeOrderTest, ConsolidationMultipleOfEightNeedsWholeFreeNodes) {
  Placer ok(Cluster({{"a", 3, 8}}), {8, 7, 8});
  EXPECT_EQ(ok.Place("consolidation", NewJob(1, 16)),
            "a0:0,1,2,3,4,5,6,7 a2:0,1,2,3,4,5,6,7");
  Placer fails(Cluster({{"a", 3, 8}}), {8, 7, 7});
  EXPECT_EQ(fails.Place("consolidation", NewJob(1, 16)), "none");
  EXPECT_EQ(fails.Place("first-fit", NewJob(1, 16)), "a0:0,1,2,3,4,5,6,7 a1:1,2,3,4,5,6,7 a2:1");
  // Fewer whole free nodes than g / 8: fail although 20 GPUs are free.
  Placer short_of_nodes(Cluster({{"a", 3, 8}}), {8, 6, 6});
  EXPECT_EQ(short_of_nodes.Place("consolidation", NewJob(1, 17)), "none");
}

TEST(NodeOrderTest, FractionGoesToTheFullestGpuThatFits) {
  Placer p(Cluster({{"a", 2, 4}}), {4, 4});
  p.TakeMilli(0, 0, 600);  // a0: 400 free on GPU 0
  p.TakeMilli(0, 2, 400);  // a0: 600 free on GPU 2
  p.TakeMilli(1, 3, 300);  // a1: 700 free on GPU 3
  EXPECT_EQ(p.Place("best-fit", NewJob(1, 1).Milli(500)), "a0:2 milli=500");
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 1).Milli(500)), "a0:2 milli=500");
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 1).Milli(400)), "a0:0 milli=400");
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 1).Milli(650)), "a1:3 milli=650");
  EXPECT_EQ(p.Place("first-fit", NewJob(1, 1).Milli(500)), "a0:1 milli=500");
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 1).Milli(1000)), "a0:1");
}

TEST(NodeOrderTest, CpuAndMemoryMustFit) {
  // a0 has 4 cores and 32 GiB, a1 64 cores and 512 GiB.
  Placer p(Cluster({{"a", 1, 8, "gpu", 4000, 32768}, {"a", 1, 8, "gpu", 64000, 524288}}),
           {8, 8});
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 1).Cpu(4000)), "a0:0");
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 1).Cpu(8000)), "a1:0");
  EXPECT_EQ(p.Place("first-fit", NewJob(1, 1).Memory(65536)), "a1:0");
  EXPECT_EQ(p.Place("best-fit", NewJob(1, 1).Cpu(100000)), "none");
  // Spread over nodes in proportion: 12 GPUs with 24 cores ask 16 cores of the 8-GPU share.
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 12).Cpu(24000)), "none");
  EXPECT_EQ(p.Place("first-fit", NewJob(1, 12).Cpu(6000)), "a0:0,1,2,3,4,5,6,7 a1:0,1,2,3");
}

TEST(NodeOrderTest, NodeCapsLimitWhatAJobMayTakeThere) {
  Placer p(Cluster({{"a", 2, 8}}), {8, 4});
  const std::unordered_map<int, int> cap2 = {{0, 2}};
  EXPECT_EQ(p.Place("best-fit", NewJob(1, 3), &cap2), "a1:4,5,6");
  EXPECT_EQ(p.Place("best-fit", NewJob(1, 2), &cap2), "a0:0,1");  // 2 usable: the best fit
  EXPECT_EQ(p.Place("first-fit", NewJob(1, 3), &cap2), "a1:4,5,6");
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 5), &cap2), "none");
  const std::unordered_map<int, int> cap0 = {{0, 0}};
  EXPECT_EQ(p.Place("consolidation", NewJob(1, 1).Milli(500), &cap0), "a1:4 milli=500");
  Placer three(Cluster({{"a", 3, 8}}), {8, 8, 8});
  EXPECT_EQ(three.Place("consolidation", NewJob(1, 12), &cap0),
            "a1:0,1,2,3,4,5,6,7 a2:0,1,2,3");
  const std::unordered_map<int, int> cap_half = {{1, 4}};
  EXPECT_EQ(three.Place("consolidation", NewJob(1, 12), &cap_half),
            "a0:0,1,2,3,4,5,6,7 a2:0,1,2,3");
  EXPECT_EQ(three.Place("consolidation", NewJob(1, 20), &cap_half),
            "a0:0,1,2,3,4,5,6,7 a2:0,1,2,3,4,5,6,7 a1:0,1,2,3");
}

// Through the scheduler: the allowed GPU models and memory choose the node group.
TEST(NodeOrderScenarioTest, GpuModelAndMemoryConstraints) {
  Scenario s(Cluster({{"a", 1, 8, "v100", 0, 0, 16384}, {"a", 1, 8, "a100", 0, 0, 81920}}),
             "fifo");
  s.Add(NewJob(1, 2).Models({"a100"}));
  s.Add(NewJob(2, 2).GpuMemory(40000));
  s.Add(NewJob(3, 2).Models({"v100", "a100"}));
  s.Add(NewJob(4, 8).Models({"v100"}));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a1:0,1", "start 2 on a1:2,3",
                                      "start 3 on a1:4,5", "start 4 on a0:0,1,2,3,4,5,6,7"));
  Status st = s.Submit(NewJob(5, 1).Models({"h100"}));
  EXPECT_EQ(st.message(),
            "job 5: asks for GPU model 'h100', which no node has; models: a100, v100");
  EXPECT_EQ(s.Submit(NewJob(6, 1).GpuMemory(100000)).message(),
            "job 6: no node has its GPU memory (at least 100000 MiB); models: a100, v100; the "
            "largest cards have 81920 MiB (a100)");
}

}  // namespace
}  // namespace squeeze
