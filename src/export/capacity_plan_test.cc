#include "export/capacity_plan.h"

#include <gtest/gtest.h>

#include "export/export_test_clusters.h"

namespace squeeze {
namespace {

const QueueShare* Queue(const CapacityPlan& plan, const std::string& name) {
  for (const QueueShare& q : plan.queues) {
    if (q.name == name) return &q;
  }
  return nullptr;
}

Amounts QueueTotal(const QueueShare& q) {
  Amounts a;
  for (const auto& [f, amounts] : q.quota) a += amounts;
  return a;
}

TEST(CapacityPlanTest, TwoTeamsFlavorsAndQueuesCountEveryGpuOnce) {
  const ClusterSpec cluster = TwoTeams();
  ASSERT_EQ(cluster.TotalGpus(), 56);
  auto plan = PlanCapacity(cluster, {});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->flavors.size(), 3u);
  EXPECT_EQ(plan->flavors[0].name, "owned-a100");
  EXPECT_EQ(plan->flavors[1].name, "spot-a100");
  EXPECT_EQ(plan->flavors[2].name, "spot-h100");
  EXPECT_EQ(plan->flavors[2].total.gpus, 16);
  EXPECT_TRUE(plan->tracks_cpu);
  EXPECT_TRUE(plan->tracks_memory);
  ASSERT_EQ(plan->queues.size(), 4u);
  EXPECT_EQ(plan->queues[0].name, "pool-a100-owned");
  EXPECT_EQ(plan->queues[1].name, "pool-spot");
  EXPECT_EQ(plan->queues[2].name, "team-nlp");
  EXPECT_EQ(plan->queues[3].name, "team-vision");
  EXPECT_EQ(QueueTotal(*Queue(*plan, "pool-a100-owned")).gpus, 8);
  EXPECT_EQ(QueueTotal(*Queue(*plan, "pool-spot")).gpus, 24);
  EXPECT_EQ(QueueTotal(*Queue(*plan, "team-nlp")).gpus, 8);
  const Amounts vision = QueueTotal(*Queue(*plan, "team-vision"));
  EXPECT_EQ(vision.gpus, 16);
  EXPECT_EQ(vision.cpu_milli, 256000);  // half of the pool's 512 cores, as of its GPUs
  EXPECT_EQ(vision.memory_mib, 2097152);
  Amounts sum;
  for (const QueueShare& q : plan->queues) sum += QueueTotal(q);
  EXPECT_EQ(sum.gpus, plan->Total().gpus);
  EXPECT_EQ(sum.cpu_milli, plan->Total().cpu_milli);
  EXPECT_EQ(sum.memory_mib, plan->Total().memory_mib);
  EXPECT_EQ(Queue(*plan, "team-vision")->team_namespace, "vision");
  EXPECT_EQ(Queue(*plan, "team-vision")->origin,
            (std::vector<std::string>{"16 GPUs of pool 'a100-owned' (team_quota_gpus.vision)"}));
}

TEST(CapacityPlanTest, AGuaranteeInAPoolOfSeveralModelsTakesThemInFlavorOrder) {
  const ClusterSpec c = ParseOrEmpty(R"(pools:
  - name: mixed
    team_quota_gpus: {b: 6, a: 4}
    nodes:
      - {count: 1, name_prefix: h-, gpus: 8, gpu_model: H100}
      - {count: 1, name_prefix: a-, gpus: 4, gpu_model: A100}
)");
  auto plan = PlanCapacity(c, {});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->flavors.size(), 2u);  // owned-a100, then owned-h100
  const QueueShare& a = *Queue(*plan, "team-a");
  const QueueShare& b = *Queue(*plan, "team-b");
  EXPECT_EQ(a.quota.at(0).gpus, 4);  // a first (by name): all 4 A100s
  EXPECT_EQ(a.quota.count(1), 0u);
  EXPECT_EQ(b.quota.at(1).gpus, 6);  // then b: H100s
  EXPECT_EQ(Queue(*plan, "pool-mixed")->quota.at(0).gpus, 0);
  EXPECT_EQ(Queue(*plan, "pool-mixed")->quota.at(1).gpus, 2);
}

TEST(CapacityPlanTest, SeveralRegionsNameFlavorsAndTeamQueuesByRegion) {
  const ClusterSpec c = ParseOrEmpty(R"(pools:
  - name: east
    region: us-east
    team_quota_gpus: {nlp: 8}
    nodes: [{count: 2, gpus: 8}]
  - name: west
    region: us-west
    team_quota_gpus: {nlp: 4}
    nodes: [{count: 1, gpus: 8}]
)");
  auto plan = PlanCapacity(c, {"vision", "nlp"});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->flavors[0].name, "owned-gpu-us-east");
  EXPECT_EQ(plan->flavors[1].name, "owned-gpu-us-west");
  std::vector<std::string> names;
  for (const auto& q : plan->queues) names.push_back(q.name);
  EXPECT_EQ(names, (std::vector<std::string>{"pool-east", "pool-west", "team-nlp-us-east",
                                             "team-nlp-us-west", "team-vision-us-east",
                                             "team-vision-us-west"}));
  EXPECT_TRUE(Queue(*plan, "team-vision-us-west")->quota.empty());  // from the history only
}

TEST(CapacityPlanTest, PoolsWithoutNodesHoldNothing) {
  const ClusterSpec c = ParseOrEmpty(R"(pools:
  - name: home
    nodes: [{count: 1, gpus: 8}]
  - name: cloud
    kind: on-demand
)");
  auto plan = PlanCapacity(c, {});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->pools_without_nodes, (std::vector<std::string>{"cloud"}));
  EXPECT_EQ(plan->queues.size(), 1u);
  EXPECT_FALSE(plan->tracks_cpu);
}

void ExpectError(const std::string& yaml, const std::string& message,
                 std::vector<std::string> teams = {}) {
  const ClusterSpec c = ParseOrEmpty(yaml);
  ASSERT_FALSE(c.pools.empty()) << yaml;
  auto plan = PlanCapacity(c, teams);
  ASSERT_FALSE(plan.ok()) << yaml;
  EXPECT_NE(plan.status().message().find(message), std::string::npos)
      << plan.status().message();
}

TEST(CapacityPlanTest, RefusesWhatCannotBeExportedNamingIt) {
  ExpectError("pools:\n  - name: a\n    team_quota_gpus: {x: 12}\n    nodes: [{count: 1}]\n",
              "pool 'a': team_quota_gpus add up to 12 GPUs, more than the pool's 8");
  ExpectError("pools:\n  - name: a\n    team_quota_gpus: {Vision: 1, vision: 1}\n"
              "    nodes: [{count: 1}]\n",
              "teams 'Vision' and 'vision' both make the namespace 'vision'");
  ExpectError("pools:\n  - name: a\n    nodes: [{name: n0, gpu_model: \"RTX 3090 (24 GB)\"}]\n",
              "node 'n0' (pool 'a'): gpu_model 'RTX 3090 (24 GB)' cannot be the value of the "
              "node label nvidia.com/gpu.product, even with its spaces as '-'");
  ExpectError("pools:\n  - name: a\n    nodes: [{name: n0, gpu_model: A100}, {name: n1, "
              "gpu_model: a100}]\n",
              "GPU models 'owned-A100' and 'owned-a100' both make the flavor name 'owned-a100'");
  ExpectError("pools:\n  - name: \"__\"\n    nodes: [{count: 1}]\n",
              "pool '__' cannot be made a Kubernetes name");
  ExpectError("pools:\n  - name: a\n    nodes: [{count: 1}]\n", "team '+++' cannot be made",
              {"+++"});
  ExpectError("pools:\n  - name: a-b\n    nodes: [{count: 1}]\n  - name: a_b\n"
              "    nodes: [{count: 1}]\n",
              "pool 'a-b' and pool 'a_b' both make the queue name 'pool-a-b'");
}

}  // namespace
}  // namespace squeeze
