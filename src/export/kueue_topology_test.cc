#include "export/kueue_topology.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>

#include "export/export_test_clusters.h"
#include "export/kueue_export.h"
#include "export/node_labels.h"

namespace squeeze {
namespace {

// The text with each comment line break ("\n# " and the indent after it) made one space, so
// that a sentence can be found whatever the wrapping.
std::string KueueFoldedComments(const std::string& text) {
  std::string folded;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "\n# ") == 0) {
      folded += ' ';
      i += 2;
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
    } else {
      folded += text[i];
    }
  }
  return folded;
}

TEST(KueueTopologyTest, TopologyLevelsAreNodeLabelsWidestFirstThenTheHostname) {
  auto text = ExportKueue(TwoTeamsRacks(), TwoTeamsOptions());
  ASSERT_TRUE(text.ok()) << text.status().message();
  const auto docs = DocsByName(*text);
  ASSERT_EQ(docs.size(), 16u);  // two-teams' 15 and the Topology
  const YAML::Node topology = docs.at("Topology/squeeze");
  EXPECT_EQ(topology["apiVersion"].as<std::string>(), "kueue.x-k8s.io/v1beta2");
  std::vector<std::string> levels;
  for (const YAML::Node& l : topology["spec"]["levels"]) {
    levels.push_back(l["nodeLabel"].as<std::string>());
  }
  EXPECT_EQ(levels, (std::vector<std::string>{"squeeze.dev/rack", "squeeze.dev/block",
                                              "kubernetes.io/hostname"}));
  // The Topology comes before the flavors that name it.
  EXPECT_LT(text->find("kind: Topology"), text->find("kind: ResourceFlavor"));
}

TEST(KueueTopologyTest, FlavorsWhoseNodesAreAllInTheTopologyNameIt) {
  auto text = ExportKueue(TwoTeamsRacks(), TwoTeamsOptions());
  ASSERT_TRUE(text.ok()) << text.status().message();
  const auto docs = DocsByName(*text);
  EXPECT_EQ(docs.at("ResourceFlavor/owned-a100")["spec"]["topologyName"].as<std::string>(),
            "squeeze");
  EXPECT_EQ(docs.at("ResourceFlavor/spot-h100")["spec"]["topologyName"].as<std::string>(),
            "squeeze");
  EXPECT_FALSE(docs.at("ResourceFlavor/spot-a100")["spec"]["topologyName"]);  // in no rack
  EXPECT_NE(KueueFoldedComments(*text).find("2 of 3 ResourceFlavors name it"),
            std::string::npos)
      << *text;
}

TEST(KueueTopologyTest, WithoutATopologyNoTopologyAndNoTopologyName) {
  auto text = ExportKueue(TwoTeams(), TwoTeamsOptions());
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(text->find("Topology"), std::string::npos);
  EXPECT_EQ(text->find("topologyName"), std::string::npos);
  EXPECT_EQ(text->find("podset-"), std::string::npos);
}

TEST(KueueTopologyTest, EachNodeInTheTopologyGetsItsDomainLabels) {
  auto nodes = TopologyNodeLabels(TwoTeamsRacks());
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  std::map<std::string, std::map<std::string, std::string>> by_node;
  for (const auto& n : *nodes) by_node[n.node] = n.labels;
  ASSERT_EQ(by_node.size(), 6u);  // spot-a100-0 is in no rack
  using Labels = std::map<std::string, std::string>;
  EXPECT_EQ(by_node.at("a100-0"), (Labels{{"squeeze.dev/block", "blk-0"},
                                           {"squeeze.dev/rack", "r0"}}));
  EXPECT_EQ(by_node.at("a100-3"), (Labels{{"squeeze.dev/block", "blk-1"},
                                           {"squeeze.dev/rack", "r0"}}));
  EXPECT_EQ(by_node.at("spot-h100-1"), (Labels{{"squeeze.dev/block", "blk-2"},
                                                {"squeeze.dev/rack", "r1"}}));
  EXPECT_FALSE(by_node.count("spot-a100-0"));
  // The Topology's comments say how to label each.
  auto text = ExportKueue(TwoTeamsRacks(), TwoTeamsOptions());
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("#   kubectl label node --overwrite a100-2 squeeze.dev/block=blk-1 "
                       "squeeze.dev/rack=r0\n"),
            std::string::npos)
      << *text;
  EXPECT_EQ(text->find("kubectl label node --overwrite spot-a100-0"), std::string::npos);
}

TEST(KueueTopologyTest, AnnotationForEachRequest) {
  const TopologySpec t = TwoTeamsRacks().topology;
  ASSERT_EQ(t.levels.size(), 2u);
  auto annotation = [&](TopologyMode mode, const std::string& level, bool spans) {
    auto a = KueueTopologyAnnotation(TopologyRequest{mode, level}, t, spans);
    return a ? a->key + "=" + a->value : std::string("none");
  };
  EXPECT_EQ(annotation(TopologyMode::kPreferred, "", true),
            "kueue.x-k8s.io/podset-preferred-topology=squeeze.dev/block");
  EXPECT_EQ(annotation(TopologyMode::kPreferred, "", false), "none");  // one node
  EXPECT_EQ(annotation(TopologyMode::kPreferred, "rack", false),
            "kueue.x-k8s.io/podset-preferred-topology=squeeze.dev/rack");
  EXPECT_EQ(annotation(TopologyMode::kRequired, "rack", true),
            "kueue.x-k8s.io/podset-required-topology=squeeze.dev/rack");
  EXPECT_EQ(annotation(TopologyMode::kRequired, "block", true),
            "kueue.x-k8s.io/podset-required-topology=squeeze.dev/block");
  EXPECT_EQ(annotation(TopologyMode::kUnconstrained, "", true),
            "kueue.x-k8s.io/podset-unconstrained-topology=true");
  EXPECT_FALSE(KueueTopologyAnnotation(TopologyRequest{TopologyMode::kRequired, "rack"},
                                       TopologySpec{}, true));
}

TEST(KueueTopologyTest, HeaderSaysWhatAJobCarries) {
  auto text = ExportKueue(TwoTeamsRacks(), TwoTeamsOptions());
  ASSERT_TRUE(text.ok());
  for (const char* part : {"kueue.x-k8s.io/podset-preferred-topology: squeeze.dev/block",
                           "kueue.x-k8s.io/podset-required-topology: squeeze.dev/rack",
                           "kueue.x-k8s.io/podset-unconstrained-topology: \"true\"",
                           "spread_speed: block 0.8, rack 0.6"}) {
    EXPECT_NE(KueueFoldedComments(*text).find(part), std::string::npos) << part;
  }
}

TEST(KueueTopologyTest, LevelsAndDomainsThatCannotBeLabelsAreRefusedByName) {
  const std::string pools = "pools: [{name: p, nodes: [{name: a, topology: {";
  struct Case {
    std::string yaml;
    std::string message;
  };
  for (const Case& c :
       {Case{"topology: {levels: [{name: pool}]}\n" + pools + "pool: x}}]}]\n",
             "topology level 'pool' would name the node label squeeze.dev/pool"},
        Case{"topology: {levels: [{name: 'my block'}]}\n" + pools + "'my block': x}}]}]\n",
             "topology level 'my block' cannot name the node label"},
        Case{"topology: {levels: [{name: block}]}\n" + pools + "block: 'b/0'}}]}]\n",
             "node 'a': block 'b/0' cannot be the value of the node label squeeze.dev/block"}}) {
    auto cluster = ParseClusterYaml(c.yaml, "c.yaml");
    ASSERT_TRUE(cluster.ok()) << c.yaml << cluster.status().message();
    auto text = ExportKueue(*cluster, TwoTeamsOptions());
    ASSERT_FALSE(text.ok()) << c.yaml;
    EXPECT_NE(text.status().message().find(c.message), std::string::npos)
        << text.status().message();
  }
}

}  // namespace
}  // namespace squeeze
