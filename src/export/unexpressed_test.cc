#include "export/unexpressed.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "export/export_test_clusters.h"

namespace squeeze {
namespace {

bool Lists(const std::vector<std::string>& items, const std::string& start) {
  for (const std::string& item : items) {
    if (item.rfind(start, 0) == 0) return true;
  }
  return false;
}

std::vector<std::string> For(const ClusterSpec& cluster, const std::string& policy,
                             ExportTarget target) {
  auto plan = PlanCapacity(cluster, {});
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return Unexpressed(cluster, *plan, *NamedPolicy(policy), target);
}

TEST(UnexpressedTest, FollowsThePolicy) {
  const auto sliced = For(TwoTeams(), "sliced", ExportTarget::kKueue);
  for (const char* item : {"checkpointed slices", "checkpoint-aware victims",
                           "preemption within a class", "job order", "deadlines",
                           "reservations and backfill", "defragmentation", "fair share",
                           "elastic jobs"}) {
    EXPECT_TRUE(Lists(sliced, item)) << item;
  }
  EXPECT_NE(sliced.end(), std::find_if(sliced.begin(), sliced.end(), [](const std::string& s) {
    return s.find("partial admission (a podSet's minCount)") != std::string::npos;
  }));
  const auto volcano = For(TwoTeams(), "squeeze", ExportTarget::kVolcano);
  EXPECT_NE(volcano.end(), std::find_if(volcano.begin(), volcano.end(), [](const std::string& s) {
    return s.find("Volcano's minAvailable") != std::string::npos;
  }));
  const auto fifo = For(TwoTeams(), "fifo", ExportTarget::kKueue);
  for (const char* item : {"checkpointed slices", "checkpoint-aware victims", "job order",
                           "deadlines", "reservations and backfill", "fair share",
                           "elastic jobs"}) {
    EXPECT_FALSE(Lists(fifo, item)) << item;
  }
  EXPECT_TRUE(Lists(fifo, "fractional GPUs"));
}

TEST(UnexpressedTest, FollowsTheCluster) {
  const auto two_teams = For(TwoTeams(), "sliced", ExportTarget::kVolcano);
  EXPECT_TRUE(Lists(two_teams, "spot by reclaim rate"));
  EXPECT_TRUE(Lists(two_teams, "prices"));
  EXPECT_TRUE(Lists(two_teams, "GPU models and pool kinds"));  // Volcano has no flavors
  EXPECT_FALSE(Lists(two_teams, "co-location caps"));
  EXPECT_FALSE(Lists(two_teams, "region links"));
  EXPECT_FALSE(Lists(two_teams, "home pools"));
  EXPECT_TRUE(Lists(two_teams, "GPU memory and speed"));  // its nodes give gpu_memory_mib

  const ClusterSpec shared = ParseOrEmpty(R"(pools:
  - {name: a, region: east, nodes: [{count: 1}]}
  - {name: b, region: east, nodes: [{count: 1}]}
  - {name: c, region: west, nodes: [{count: 1}]}
  - name: inference
    kind: colocated
    region: west
    nodes: [{count: 1}]
region_links:
  - {from: east, to: west, bandwidth_gbps: 10}
)");
  const auto items = For(shared, "sliced", ExportTarget::kKueue);
  EXPECT_TRUE(Lists(items, "co-location caps"));
  EXPECT_TRUE(Lists(items, "region links"));
  EXPECT_TRUE(Lists(items, "home pools"));
  EXPECT_FALSE(Lists(items, "spot by reclaim rate"));
  EXPECT_FALSE(Lists(items, "GPU memory and speed"));  // no card's memory or speed given
}

// Cards of known memory: a job's gpu_memory becomes a node affinity on GPU feature discovery's
// label, and the speeds are named as lost.
TEST(UnexpressedTest, GpuMemoryIsANodeAffinityThere) {
  ClusterSpec cards = ParseOrEmpty(R"(pools:
  - {name: a, nodes: [{name: big, gpu_model: A100}, {name: small, gpu_model: T4}]}
gpu_models:
  A100: {memory_mib: 81920, speed: 2}
  T4: {memory_mib: 16384}
)");
  ASSERT_FALSE(cards.nodes.empty());
  for (ExportTarget target : {ExportTarget::kKueue, ExportTarget::kVolcano}) {
    const auto items = For(cards, "squeeze", target);
    const auto it = std::find_if(items.begin(), items.end(), [](const std::string& s) {
      return s.rfind("GPU memory and speed", 0) == 0;
    });
    ASSERT_NE(it, items.end());
    EXPECT_NE(it->find("nodeAffinity on nvidia.com/gpu.memory"), std::string::npos) << *it;
    EXPECT_NE(it->find("the smallest card that serves it"), std::string::npos) << *it;
  }
}

}  // namespace
}  // namespace squeeze
