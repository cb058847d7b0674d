#include "export/volcano_hypernodes.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

#include "export/export_test_clusters.h"
#include "export/volcano_export.h"
#include "export/volcano_scheduler_conf.h"

namespace squeeze {
namespace {

// The documents of a Volcano export by "Kind/name".
std::map<std::string, YAML::Node> VolcanoDocsByKey(const std::string& text) {
  std::map<std::string, YAML::Node> out;
  for (const YAML::Node& doc : YAML::LoadAll(text)) {
    out[doc["kind"].as<std::string>() + "/" + doc["metadata"]["name"].as<std::string>()] = doc;
  }
  return out;
}

// A HyperNode's members as "Type:name".
std::vector<std::string> HyperNodeMembers(const YAML::Node& hypernode) {
  std::vector<std::string> out;
  for (const YAML::Node& m : hypernode["spec"]["members"]) {
    out.push_back(m["type"].as<std::string>() + ":" +
                  m["selector"]["exactMatch"]["name"].as<std::string>());
  }
  return out;
}

using Members = std::vector<std::string>;

TEST(VolcanoHyperNodesTest, OneHyperNodePerDomainWithTiersAndMembers) {
  auto text = ExportVolcano(TwoTeamsRacks(), TwoTeamsOptions());
  ASSERT_TRUE(text.ok()) << text.status().message();
  const auto docs = VolcanoDocsByKey(*text);
  ASSERT_EQ(docs.size(), 14u);  // two-teams' 9, 3 blocks and 2 racks
  const YAML::Node blk0 = docs.at("HyperNode/block-blk-0");
  EXPECT_EQ(blk0["apiVersion"].as<std::string>(), "topology.volcano.sh/v1alpha1");
  EXPECT_EQ(blk0["spec"]["tier"].as<int>(), 1);
  EXPECT_EQ(blk0["spec"]["tierName"].as<std::string>(), "block");
  EXPECT_EQ(HyperNodeMembers(blk0), (Members{"Node:a100-0", "Node:a100-1"}));
  EXPECT_EQ(HyperNodeMembers(docs.at("HyperNode/block-blk-2")),
            (Members{"Node:spot-h100-0", "Node:spot-h100-1"}));
  const YAML::Node r0 = docs.at("HyperNode/rack-r0");
  EXPECT_EQ(r0["spec"]["tier"].as<int>(), 2);
  EXPECT_EQ(r0["spec"]["tierName"].as<std::string>(), "rack");
  EXPECT_EQ(HyperNodeMembers(r0), (Members{"HyperNode:block-blk-0", "HyperNode:block-blk-1"}));
  EXPECT_EQ(HyperNodeMembers(docs.at("HyperNode/rack-r1")), (Members{"HyperNode:block-blk-2"}));
  // spot-a100-0 is in no HyperNode.
  EXPECT_EQ(text->find("name: spot-a100-0"), std::string::npos);
}

TEST(VolcanoHyperNodesTest, SchedulerGetsTheNetworkTopologyPluginOnlyWithATopology) {
  auto with = ExportVolcano(TwoTeamsRacks(), TwoTeamsOptions());
  auto without = ExportVolcano(TwoTeams(), TwoTeamsOptions());
  ASSERT_TRUE(with.ok() && without.ok());
  auto conf = [](const std::string& text) {
    return YAML::Load(VolcanoDocsByKey(text)
                          .at("ConfigMap/volcano-scheduler-configmap")["data"]
                             ["volcano-scheduler.conf"]
                          .as<std::string>());
  };
  auto plugins = [&](const std::string& text) {
    std::vector<std::string> out;
    for (const YAML::Node& tier : conf(text)["tiers"]) {
      for (const YAML::Node& p : tier["plugins"]) out.push_back(p["name"].as<std::string>());
    }
    return out;
  };
  const auto w = plugins(*with);
  EXPECT_NE(std::find(w.begin(), w.end(), "network-topology-aware"), w.end());
  const auto wo = plugins(*without);
  EXPECT_EQ(std::find(wo.begin(), wo.end(), "network-topology-aware"), wo.end());
  EXPECT_EQ(without->find("HyperNode"), std::string::npos);
}

TEST(VolcanoHyperNodesTest, NetworkTopologyForEachRequest) {
  const TopologySpec t = TwoTeamsRacks().topology;
  auto network = [&](TopologyMode mode, const std::string& level, bool spans) {
    auto v = VolcanoNetworkTopology(TopologyRequest{mode, level}, t, spans);
    if (!v) return std::string("none");
    std::string s = v->Find("mode")->scalar();
    if (const YamlValue* tier = v->Find("highestTierAllowed")) s += " " + tier->scalar();
    return s;
  };
  EXPECT_EQ(network(TopologyMode::kRequired, "block", true), "hard 1");
  EXPECT_EQ(network(TopologyMode::kRequired, "rack", false), "hard 2");
  EXPECT_EQ(network(TopologyMode::kPreferred, "", true), "soft");
  EXPECT_EQ(network(TopologyMode::kPreferred, "", false), "none");  // one node
  EXPECT_EQ(network(TopologyMode::kPreferred, "rack", false), "soft");
  EXPECT_EQ(network(TopologyMode::kUnconstrained, "", true), "none");
  EXPECT_FALSE(VolcanoNetworkTopology(TopologyRequest{TopologyMode::kRequired, "rack"},
                                      TopologySpec{}, true));
}

TEST(VolcanoHyperNodesTest, NodeNamesAndCollidingDomainsAreRefusedByName) {
  auto bad_node = ParseClusterYaml(
      "topology: {levels: [{name: block}]}\n"
      "pools: [{name: p, nodes: [{name: Node_A, topology: {block: b0}}]}]\n",
      "c.yaml");
  ASSERT_TRUE(bad_node.ok()) << bad_node.status().message();
  auto text = ExportVolcano(*bad_node, TwoTeamsOptions());
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("node 'Node_A' is in the topology"), std::string::npos)
      << text.status().message();
  auto clash = ParseClusterYaml(
      "topology: {levels: [{name: x}, {name: x-y}]}\n"
      "pools: [{name: p, nodes: [{name: a, topology: {x: y-z, x-y: z}}]}]\n",
      "c.yaml");
  ASSERT_TRUE(clash.ok()) << clash.status().message();
  text = ExportVolcano(*clash, TwoTeamsOptions());
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("x-y 'z' and x 'y-z' both make the HyperNode name "
                                         "'x-y-z'"),
            std::string::npos)
      << text.status().message();
}

}  // namespace
}  // namespace squeeze
