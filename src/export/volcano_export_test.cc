#include "export/volcano_export.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>

#include "export/export_test_clusters.h"
#include "export/volcano_scheduler_conf.h"

namespace squeeze {
namespace {

std::map<std::string, YAML::Node> ByName(const std::string& text) {
  std::map<std::string, YAML::Node> out;
  for (const YAML::Node& doc : YAML::LoadAll(text)) {
    out[doc["kind"].as<std::string>() + "/" + doc["metadata"]["name"].as<std::string>()] = doc;
  }
  return out;
}

TEST(VolcanoExportTest, TwoTeamsQueues) {
  auto text = ExportVolcano(TwoTeams(), TwoTeamsOptions());
  ASSERT_TRUE(text.ok()) << text.status().message();
  const auto docs = ByName(*text);
  ASSERT_EQ(docs.size(), 9u);  // 4 priority classes, 4 queues, the ConfigMap
  const YAML::Node vision = docs.at("Queue/team-vision")["spec"];
  EXPECT_EQ(vision["weight"].as<int>(), 16);
  EXPECT_TRUE(vision["reclaimable"].as<bool>());
  EXPECT_EQ(vision["deserved"]["nvidia.com/gpu"].as<int>(), 16);
  EXPECT_EQ(vision["deserved"]["cpu"].as<std::string>(), "256");
  EXPECT_EQ(vision["capability"]["nvidia.com/gpu"].as<int>(), 56);  // its pool and spot
  EXPECT_FALSE(vision["guarantee"]);
  const YAML::Node spot = docs.at("Queue/pool-spot")["spec"];
  EXPECT_EQ(spot["deserved"]["nvidia.com/gpu"].as<int>(), 24);
  EXPECT_EQ(spot["capability"]["nvidia.com/gpu"].as<int>(), 24);
  int deserved = 0;
  for (const auto& [key, doc] : docs) {
    if (doc["kind"].as<std::string>() == "Queue") {
      deserved += doc["spec"]["deserved"]["nvidia.com/gpu"].as<int>();
      EXPECT_EQ(doc["apiVersion"].as<std::string>(), "scheduling.volcano.sh/v1beta1");
    }
  }
  EXPECT_EQ(deserved, 56);
  EXPECT_EQ(docs.at("PriorityClass/squeeze-low")["preemptionPolicy"].as<std::string>(), "Never");
  EXPECT_EQ(docs.at("PriorityClass/squeeze-high")["preemptionPolicy"].as<std::string>(),
            "PreemptLowerPriority");
  EXPECT_LT(docs.at("PriorityClass/squeeze-normal")["value"].as<int>(),
            docs.at("PriorityClass/squeeze-high")["value"].as<int>());
}

TEST(VolcanoExportTest, SchedulerConfigurationFollowsThePolicy) {
  auto text = ExportVolcano(TwoTeams(), TwoTeamsOptions());
  ASSERT_TRUE(text.ok());
  const YAML::Node cm = ByName(*text).at("ConfigMap/volcano-scheduler-configmap");
  EXPECT_EQ(cm["metadata"]["namespace"].as<std::string>(), "volcano-system");
  const YAML::Node conf = YAML::Load(cm["data"]["volcano-scheduler.conf"].as<std::string>());
  EXPECT_EQ(conf["actions"].as<std::string>(), "enqueue, allocate, reclaim, backfill, preempt");
  std::vector<std::string> plugins;
  for (const YAML::Node& tier : conf["tiers"]) {
    for (const YAML::Node& p : tier["plugins"]) plugins.push_back(p["name"].as<std::string>());
  }
  EXPECT_EQ(plugins, (std::vector<std::string>{"priority", "gang", "conformance", "sla", "drf",
                                               "predicates", "capacity", "nodeorder",
                                               "binpack"}));
  EXPECT_EQ(conf["tiers"][0]["plugins"][3]["arguments"]["sla-waiting-time"].as<std::string>(),
            "12h");

  auto fifo = ExportVolcano(TwoTeams(), TwoTeamsOptions("fifo"));
  ASSERT_TRUE(fifo.ok());
  const YAML::Node fifo_conf = YAML::Load(
      ByName(*fifo).at("ConfigMap/volcano-scheduler-configmap")["data"]["volcano-scheduler.conf"]
          .as<std::string>());
  EXPECT_EQ(fifo_conf["actions"].as<std::string>(), "enqueue, allocate");
  EXPECT_EQ(ByName(*fifo).at("PriorityClass/squeeze-high")["preemptionPolicy"].as<std::string>(),
            "Never");
  EXPECT_FALSE(ByName(*fifo).at("Queue/team-vision")["spec"]["reclaimable"].as<bool>());
}

TEST(VolcanoExportTest, CapabilityIsWhatThePolicyLetsAPoolsJobsReach) {
  auto cluster = LoadClusterFile(std::string(SQUEEZE_SOURCE_DIR) +
                                 "/examples/clusters/philly-half-two-regions.yaml");
  ASSERT_TRUE(cluster.ok());
  const auto capability = [&](const std::string& policy) {
    auto text = ExportVolcano(*cluster, TwoTeamsOptions(policy));
    EXPECT_TRUE(text.ok());
    return ByName(*text).at("Queue/pool-6214e9")["spec"]["capability"]["nvidia.com/gpu"].as<int>();
  };
  EXPECT_EQ(capability("fifo"), 256);           // its own pool
  EXPECT_EQ(capability("fifo+borrow"), 704);    // the pools of its region (us-east)
  EXPECT_EQ(capability("sliced"), 256 + 704);   // the region action: the linked us-west too
}

TEST(VolcanoExportTest, GoDurations) {
  EXPECT_EQ(GoDuration(12 * kHour), "12h");
  EXPECT_EQ(GoDuration(90 * kMinute), "1h30m");
  EXPECT_EQ(GoDuration(kHour + 2 * kMinute + 5 * kSecond), "1h2m5s");
  EXPECT_EQ(GoDuration(45 * kSecond), "45s");
  EXPECT_EQ(GoDuration(0), "0s");
}

}  // namespace
}  // namespace squeeze
