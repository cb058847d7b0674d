#include "export/kueue_export.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>

#include "export/export_test_clusters.h"

namespace squeeze {
namespace {

// The resources of `flavor` in the ClusterQueue, or a null node when it does not list it.
YAML::Node FlavorQuota(const YAML::Node& cq, const std::string& flavor) {
  for (const YAML::Node& f : cq["spec"]["resourceGroups"][0]["flavors"]) {
    if (f["name"].as<std::string>() == flavor) return f["resources"];
  }
  return YAML::Node();
}

bool Lists(const YAML::Node& cq, const std::string& flavor) {
  return !FlavorQuota(cq, flavor).IsNull();
}

// A model named as nvidia-smi names it (squeeze inventory's pool file) is exported with the
// label value GPU feature discovery gives such nodes.
TEST(KueueExportTest, ModelWithSpacesLabelsAsGpuFeatureDiscovery) {
  auto cluster = ParseClusterYaml(
      "pools:\n  - name: rtx\n    nodes: [{count: 1, gpus: 2, gpu_model: NVIDIA GeForce RTX 4090}]\n",
      "c.yaml");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  auto text = ExportKueue(*cluster, TwoTeamsOptions());
  ASSERT_TRUE(text.ok()) << text.status().message();
  const YAML::Node flavor = DocsByName(*text).at("ResourceFlavor/owned-nvidia-geforce-rtx-4090");
  EXPECT_EQ(flavor["spec"]["nodeLabels"]["nvidia.com/gpu.product"].as<std::string>(),
            "NVIDIA-GeForce-RTX-4090");
}

TEST(KueueExportTest, TwoTeamsObjects) {
  auto text = ExportKueue(TwoTeams(), TwoTeamsOptions());
  ASSERT_TRUE(text.ok()) << text.status().message();
  const auto docs = DocsByName(*text);
  ASSERT_EQ(docs.size(), 15u);  // 3 flavors, 4 priority classes, 4 + 4 queues
  const YAML::Node spot = docs.at("ResourceFlavor/spot-h100");
  EXPECT_EQ(spot["apiVersion"].as<std::string>(), "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(spot["spec"]["nodeLabels"]["nvidia.com/gpu.product"].as<std::string>(), "H100");
  EXPECT_EQ(spot["spec"]["nodeLabels"]["squeeze.dev/pool-kind"].as<std::string>(), "spot");
  EXPECT_EQ(spot["spec"]["nodeTaints"][0]["key"].as<std::string>(), "squeeze.dev/spot");
  EXPECT_EQ(spot["spec"]["nodeTaints"][0]["effect"].as<std::string>(), "NoSchedule");
  EXPECT_FALSE(docs.at("ResourceFlavor/owned-a100")["spec"]["nodeTaints"]);
  EXPECT_LT(docs.at("WorkloadPriorityClass/squeeze-low")["value"].as<int>(),
            docs.at("WorkloadPriorityClass/squeeze-critical")["value"].as<int>());

  const YAML::Node vision = docs.at("ClusterQueue/team-vision");
  EXPECT_EQ(vision["spec"]["cohortName"].as<std::string>(), "squeeze-eu-west");
  EXPECT_EQ(vision["spec"]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]
                .as<std::string>(),
            "vision");
  const YAML::Node a100 = FlavorQuota(vision, "owned-a100");
  ASSERT_EQ(a100.size(), 3u);  // nvidia.com/gpu, cpu, memory
  EXPECT_EQ(a100[0]["nominalQuota"].as<int>(), 16);
  EXPECT_EQ(a100[1]["nominalQuota"].as<std::string>(), "256");
  EXPECT_EQ(a100[2]["nominalQuota"].as<std::string>(), "2048Gi");
  EXPECT_FALSE(a100[0]["borrowingLimit"]);
  EXPECT_EQ(FlavorQuota(vision, "spot-h100")[0]["nominalQuota"].as<int>(), 0);  // borrows spot
  EXPECT_EQ(vision["spec"]["preemption"]["withinClusterQueue"].as<std::string>(), "LowerPriority");
  EXPECT_EQ(vision["spec"]["preemption"]["reclaimWithinCohort"].as<std::string>(), "Any");
  EXPECT_EQ(vision["spec"]["preemption"]["borrowWithinCohort"]["policy"].as<std::string>(),
            "LowerPriority");
  EXPECT_EQ(vision["spec"]["queueingStrategy"].as<std::string>(), "BestEffortFIFO");
  // The spot pool's own jobs stay on it: squeeze's pools lend only with the borrow action.
  const YAML::Node spot_pool = docs.at("ClusterQueue/pool-spot");
  EXPECT_EQ(FlavorQuota(spot_pool, "spot-h100")[0]["borrowingLimit"].as<int>(), 0);
  EXPECT_FALSE(Lists(spot_pool, "owned-a100"));
  EXPECT_EQ(docs.at("LocalQueue/vision/team-vision")["spec"]["clusterQueue"].as<std::string>(),
            "team-vision");
  EXPECT_TRUE(docs.count("LocalQueue/default/pool-spot"));

  int gpus = 0;
  for (const auto& [key, doc] : docs) {
    if (doc["kind"].as<std::string>() != "ClusterQueue") continue;
    for (const YAML::Node& f : doc["spec"]["resourceGroups"][0]["flavors"]) {
      gpus += f["resources"][0]["nominalQuota"].as<int>();
    }
  }
  EXPECT_EQ(gpus, 56);
}

TEST(KueueExportTest, ListsWhatKueueCannotExpressAndIsDeterministic) {
  auto text = ExportKueue(TwoTeams(), TwoTeamsOptions());
  ASSERT_TRUE(text.ok());
  for (const char* item : {"Not expressed in Kueue", "- checkpointed slices: a checkpointable",
                           "- checkpoint-aware victims", "- spot by reclaim rate",
                           "- job order: within an urgency class squeeze runs jobs by the"}) {
    EXPECT_NE(text->find(item), std::string::npos) << item;
  }
  EXPECT_EQ(*text, *ExportKueue(TwoTeams(), TwoTeamsOptions()));
}

TEST(KueueExportTest, FifoQueuesStrictlyAndPreemptsNothing) {
  auto text = ExportKueue(TwoTeams(), TwoTeamsOptions("fifo"));
  ASSERT_TRUE(text.ok());
  const auto docs = DocsByName(*text);
  const YAML::Node pool = docs.at("ClusterQueue/pool-a100-owned");
  EXPECT_EQ(pool["spec"]["queueingStrategy"].as<std::string>(), "StrictFIFO");
  EXPECT_EQ(pool["spec"]["preemption"]["withinClusterQueue"].as<std::string>(), "Never");
  EXPECT_EQ(pool["spec"]["preemption"]["reclaimWithinCohort"].as<std::string>(), "Never");
  EXPECT_FALSE(pool["spec"]["preemption"]["borrowWithinCohort"]);
  EXPECT_FALSE(Lists(pool, "spot-h100"));  // no spot action: no spot flavor
  EXPECT_EQ(text->find("checkpointed slices"), std::string::npos);
}

TEST(KueueExportTest, RefusesABadNamespace) {
  ExportOptions o = TwoTeamsOptions();
  o.pool_namespace = "Team A";
  auto text = ExportKueue(TwoTeams(), o);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(),
            "--namespace 'Team A' is not a DNS-1123 label (perhaps 'team-a')");
}

}  // namespace
}  // namespace squeeze
