#include "core/cluster_state.h"

#include <set>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Cluster;

NodeShare Share(int node, std::vector<int> gpus, int milli = kMilliPerGpu, int64_t cpu = 0,
                int64_t mem = 0) {
  NodeShare s;
  s.node = node;
  s.gpus = std::move(gpus);
  s.milli_per_gpu = milli;
  s.cpu_milli = cpu;
  s.memory_mib = mem;
  return s;
}

Placement Of(std::vector<NodeShare> shares) {
  Placement p;
  p.shares = std::move(shares);
  return p;
}

// Pool a: a0 (v100, 8), a1 (a100, 4), a2 (v100, 4); pool b: b0 (v100, 2).
ClusterSpec Mixed() {
  return Cluster({{"a", 1, 8, "v100", 0, 0, 16000},
                  {"a", 1, 4, "a100", 0, 0, 80000},
                  {"a", 1, 4, "v100", 0, 0, 32000},
                  {"b", 1, 2, "v100"}});
}

TEST(ClusterStateTest, GroupsNodesByPoolAndModel) {
  ClusterState c(Mixed());
  EXPECT_EQ(c.PoolCount(), 2);
  EXPECT_EQ(c.TotalGpus(), 18);
  EXPECT_EQ(c.PoolTotalGpus(0), 16);
  EXPECT_EQ(c.PoolTotalGpus(1), 2);
  EXPECT_EQ(c.FreeMilli(), 18000);
  ASSERT_EQ(c.groups().size(), 3u);
  const NodeGroup& v100 = c.group(0);
  EXPECT_EQ(v100.pool, 0);
  EXPECT_EQ(v100.gpu_model, "v100");
  EXPECT_THAT(v100.nodes, ElementsAre(0, 2));
  EXPECT_EQ(v100.max_gpus_per_node, 8);
  EXPECT_EQ(v100.total_gpus, 12);
  EXPECT_EQ(v100.whole_free, 12);
  EXPECT_EQ(v100.free_milli, 12000);
  EXPECT_EQ(v100.gpu_memory_mib, 16000);  // the smallest of its nodes
  EXPECT_THAT(v100.by_whole_free[8], ElementsAre(0));
  EXPECT_THAT(v100.by_whole_free[4], ElementsAre(2));
  EXPECT_EQ(c.group(1).gpu_model, "a100");
  EXPECT_EQ(c.group(1).gpu_memory_mib, 80000);
  EXPECT_EQ(c.group(2).pool, 1);
  // Groups of a pool come in model-name order: a100 before v100.
  EXPECT_THAT(c.PoolGroups(0), ElementsAre(1, 0));
  EXPECT_THAT(c.PoolGroups(1), ElementsAre(2));
  EXPECT_EQ(c.node(2).group, 0);
  EXPECT_EQ(c.node(3).pool, 1);
  EXPECT_THAT(c.node(1).free_milli, ElementsAre(1000, 1000, 1000, 1000));
}

TEST(ClusterStateTest, AllocateAndReleaseWholeGpusKeepBucketsAndSums) {
  ClusterState c(Mixed());
  c.Allocate(Of({Share(0, {0, 1, 2}), Share(2, {3})}));
  EXPECT_EQ(c.node(0).whole_free, 5);
  EXPECT_EQ(c.node(2).whole_free, 3);
  EXPECT_THAT(c.node(0).free_milli, ElementsAre(0, 0, 0, 1000, 1000, 1000, 1000, 1000));
  const NodeGroup& g = c.group(0);
  EXPECT_EQ(g.whole_free, 8);
  EXPECT_EQ(g.free_milli, 8000);
  EXPECT_TRUE(g.by_whole_free[8].empty());
  EXPECT_THAT(g.by_whole_free[5], ElementsAre(0));
  EXPECT_THAT(g.by_whole_free[3], ElementsAre(2));
  EXPECT_TRUE(g.by_whole_free[4].empty());
  EXPECT_EQ(c.FreeMilli(), 14000);
  c.Release(Of({Share(0, {0, 1, 2}), Share(2, {3})}));
  EXPECT_EQ(c.node(0).whole_free, 8);
  EXPECT_THAT(g.by_whole_free[8], ElementsAre(0));
  EXPECT_THAT(g.by_whole_free[4], ElementsAre(2));
  EXPECT_EQ(g.whole_free, 12);
  EXPECT_EQ(c.FreeMilli(), 18000);
}

TEST(ClusterStateTest, PoolVersionChangesWithThatPoolsCapacityOnly) {
  ClusterState c(Mixed());
  const uint64_t a = c.PoolVersion(0), b = c.PoolVersion(1);
  c.Allocate(Of({Share(3, {0})}));
  EXPECT_EQ(c.PoolVersion(0), a);
  EXPECT_NE(c.PoolVersion(1), b);
  const uint64_t b_after = c.PoolVersion(1);
  c.Release(Of({Share(3, {0})}));
  EXPECT_NE(c.PoolVersion(1), b_after);  // back to the same capacity, but a new version
}

TEST(ClusterStateTest, FractionsTakeMilliAndTheWholeGpuOnlyOnce) {
  ClusterState c(Mixed());
  c.Allocate(Of({Share(1, {2}, 300)}));
  EXPECT_THAT(c.node(1).free_milli, ElementsAre(1000, 1000, 700, 1000));
  EXPECT_EQ(c.node(1).whole_free, 3);
  EXPECT_EQ(c.group(1).free_milli, 3700);
  EXPECT_THAT(c.group(1).by_whole_free[3], ElementsAre(1));
  c.Allocate(Of({Share(1, {2}, 600)}));
  EXPECT_THAT(c.node(1).free_milli, ElementsAre(1000, 1000, 100, 1000));
  EXPECT_EQ(c.node(1).whole_free, 3);
  EXPECT_EQ(c.FreeMilli(), 17100);
  EXPECT_FALSE(c.Fits(Share(1, {2}, 200)));
  EXPECT_TRUE(c.Fits(Share(1, {2}, 100)));
  c.Release(Of({Share(1, {2}, 300)}));
  c.Release(Of({Share(1, {2}, 600)}));
  EXPECT_EQ(c.node(1).whole_free, 4);
  EXPECT_THAT(c.group(1).by_whole_free[4], ElementsAre(1));
  EXPECT_EQ(c.FreeMilli(), 18000);
}

// The pod classes GPU clustering reads: "share" (one GPU, part of it), "k-gpu" (whole GPUs);
// a CPU-only share is neither. Every change gives the node a new stamp.
TEST(ClusterStateTest, PodClassesAndStampFollowAllocateAndRelease) {
  ClusterState c(Mixed());
  const uint64_t stamp = c.node(1).stamp;
  c.Allocate(Of({Share(1, {2}, 300), Share(1, {0, 1}), Share(1, {}, 0, 500)}));
  EXPECT_NE(c.node(1).stamp, stamp);
  EXPECT_EQ(c.node(1).share_pods, 1);
  EXPECT_EQ(c.node(1).kgpu_pods, 1);
  c.Allocate(Of({Share(1, {2}, 300), Share(1, {3})}));
  EXPECT_EQ(c.node(1).share_pods, 2);
  EXPECT_EQ(c.node(1).kgpu_pods, 2);
  c.Release(Of({Share(1, {0, 1}), Share(1, {3})}));
  EXPECT_EQ(c.node(1).share_pods, 2);
  EXPECT_EQ(c.node(1).kgpu_pods, 0);
  EXPECT_EQ(c.node(0).share_pods + c.node(0).kgpu_pods, 0);
}

TEST(ClusterStateTest, StampsDifferAcrossStates) {
  ClusterState a(Mixed());
  ClusterState b(Mixed());
  std::set<uint64_t> stamps;
  for (const ClusterState* s : {&a, &b}) {
    for (const NodeState& n : s->nodes()) stamps.insert(n.stamp);
  }
  EXPECT_EQ(stamps.size(), 8u);
}

TEST(ClusterStateTest, FitsChecksGpusCpuAndMemory) {
  ClusterState c(Cluster({{"a", 1, 4, "gpu", 8000, 64000}, {"a", 1, 4}}));
  EXPECT_TRUE(c.node(0).cpu_tracked);
  EXPECT_TRUE(c.node(0).memory_tracked);
  EXPECT_FALSE(c.node(1).cpu_tracked);
  EXPECT_TRUE(c.Fits(Share(0, {0, 1}, 1000, 8000, 64000)));
  EXPECT_FALSE(c.Fits(Share(0, {0}, 1000, 8001, 0)));
  EXPECT_FALSE(c.Fits(Share(0, {0}, 1000, 0, 64001)));
  EXPECT_FALSE(c.Fits(Share(0, {4})));   // no such GPU
  EXPECT_FALSE(c.Fits(Share(0, {-1})));
  EXPECT_TRUE(c.Fits(Share(1, {3}, 1000, 1000000, 1000000)));  // untracked: anything goes
  c.Allocate(Of({Share(0, {0}, 1000, 6000, 60000)}));
  EXPECT_EQ(c.node(0).cpu_free, 2000);
  EXPECT_EQ(c.node(0).memory_free, 4000);
  EXPECT_FALSE(c.Fits(Share(0, {0})));  // taken
  EXPECT_FALSE(c.Fits(Share(0, {1}, 1000, 2001, 0)));
  EXPECT_TRUE(c.Fits(Share(0, {1}, 1000, 2000, 4000)));
  c.Release(Of({Share(0, {0}, 1000, 6000, 60000)}));
  EXPECT_EQ(c.node(0).cpu_free, 8000);
  EXPECT_EQ(c.node(0).memory_free, 64000);
}

TEST(ClusterSpecTest, ValidateNamesTheProblem) {
  ClusterSpec ok = Cluster({{"a", 2, 8}});
  EXPECT_TRUE(ok.Validate().ok());
  EXPECT_EQ(ok.TotalGpus(), 16);
  EXPECT_EQ(ok.PoolIndex("a"), 0);
  EXPECT_EQ(ok.PoolIndex("zz"), -1);

  ClusterSpec dup_node = ok;
  dup_node.nodes[1].name = "a0";
  EXPECT_EQ(dup_node.Validate().message(), "cluster: node 'a0' is defined twice");
  ClusterSpec bad_pool = ok;
  bad_pool.nodes[0].pool = "zz";
  EXPECT_EQ(bad_pool.Validate().message(), "cluster: node 'a0': pool 'zz' is not defined");
  ClusterSpec big = ok;
  big.nodes[0].gpus = 65;
  EXPECT_EQ(big.Validate().message(), "cluster: node 'a0': gpus 65 is out of range 0..64");
  ClusterSpec quota = ok;
  quota.pools[0].team_quota_gpus["x"] = -1;
  EXPECT_EQ(quota.Validate().message(), "cluster: pool 'a': quota of team 'x' is -1");
  ClusterSpec no_nodes = ok;
  no_nodes.nodes.clear();
  EXPECT_EQ(no_nodes.Validate().message(), "cluster: no nodes");
  EXPECT_EQ(ClusterSpec{}.Validate().message(), "cluster: no pools");
  ClusterSpec dup_pool = ok;
  dup_pool.pools.push_back(dup_pool.pools[0]);
  EXPECT_THAT(dup_pool.Validate().message(), HasSubstr("pool 'a' is defined twice"));
}

}  // namespace
}  // namespace squeeze
