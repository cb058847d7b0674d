#include "slurm/scontrol_topology.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// As Slurm 22.05 prints a topology.conf of two leaf switches under one top switch.
constexpr char kTwoLeaves[] =
    "SwitchName=east-s0 Level=0 LinkSpeed=1 Nodes=east-n[0-1]\n"
    "SwitchName=east-s1 Level=0 LinkSpeed=1 Nodes=east-n[2-3]\n"
    "SwitchName=east-top Level=1 LinkSpeed=1 Nodes=east-n[0-3] Switches=east-s[0-1]\n";

TEST(ScontrolTopologyTest, ReadsEachSwitchWithItsLevelAndNodes) {
  auto r = ParseScontrolTopology(kTwoLeaves);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[1].name, "east-s1");
  EXPECT_EQ((*r)[1].level, 0);
  EXPECT_THAT((*r)[1].nodes, ElementsAre("east-n2", "east-n3"));
  EXPECT_EQ((*r)[2].level, 1);
  EXPECT_EQ((*r)[2].nodes.size(), 4u);
  auto none = ParseScontrolTopology("No topology information available\n");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(ScontrolTopologyTest, BrokenLinesNameTheLineAndValue) {
  for (const auto& [text, parts] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"SwitchName=s0 Level=x Nodes=n0\n", {"line 1", "Level 'x'"}},
           {"SwitchName=s0 Level=9 Nodes=n0\n", {"Level '9'", "0 to 7"}},
           {"\nSwitchName=s0 Nodes=n0\n", {"line 2", "switch 's0' has no Level"}},
           {"SwitchName= Level=0 Nodes=n0\n", {"SwitchName is empty"}},
           {"SwitchName=s0 Level=0 Nodes=n[0-\n", {"line 1: Nodes"}}}) {
    auto r = ParseScontrolTopology(text);
    ASSERT_FALSE(r.ok()) << text;
    for (const std::string& part : parts) {
      EXPECT_THAT(r.status().message(), HasSubstr(part)) << text;
    }
  }
}

// A Slurm pool "east" of five nodes, east-n0 .. east-n4.
ClusterSpec EastPool() {
  ClusterSpec spec;
  spec.pools.push_back({});
  spec.pools[0].name = "east";
  spec.pools[0].backend = "slurm";
  spec.pools[0].slurm.conf = "/etc/slurm/slurm.conf";
  for (const char* n : {"east-n0", "east-n1", "east-n2", "east-n3", "east-n4"}) {
    NodeSpec node;
    node.name = n;
    node.pool = "east";
    spec.nodes.push_back(node);
  }
  return spec;
}

TEST(ScontrolTopologyTest, APoolsNodesGetTheirSwitchesAsDomains) {
  ClusterSpec spec = EastPool();
  ApplySlurmTopology(ParseScontrolTopology(kTwoLeaves).value(), "east", spec);
  ASSERT_EQ(spec.topology.levels.size(), 2u);
  EXPECT_EQ(spec.topology.levels[0].name, "switch");
  EXPECT_EQ(spec.topology.levels[1].name, "switch2");
  EXPECT_THAT(spec.nodes[0].domains, ElementsAre("east/east-s0", "east/east-top"));
  EXPECT_THAT(spec.nodes[3].domains, ElementsAre("east/east-s1", "east/east-top"));
  // east-n4 is under no switch: a domain of its own at each level.
  EXPECT_THAT(spec.nodes[4].domains, ElementsAre("east/east-n4", "east/east-n4^"));
  EXPECT_TRUE(spec.Validate().ok()) << spec.Validate().message();
}

// As Slurm 23.11's topology/block prints a topology.conf of two blocks (the format of
// src/plugins/topology/block's _print_topo_record).
constexpr char kTwoBlocks[] =
    "BlockName=b1 BlockIndex=0 Nodes=east-n[0-1]\n"
    "BlockName=b2 BlockIndex=1 Nodes=east-n[2-3]\n";

TEST(ScontrolTopologyTest, BlocksAreDomainsOfTheLevelBlock) {
  auto blocks = ParseScontrolTopology(kTwoBlocks);
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  ASSERT_EQ(blocks->size(), 2u);
  EXPECT_TRUE((*blocks)[1].block);
  EXPECT_THAT((*blocks)[1].nodes, ElementsAre("east-n2", "east-n3"));
  ClusterSpec spec = EastPool();
  ApplySlurmTopology(*blocks, "east", spec);
  ASSERT_EQ(spec.topology.levels.size(), 1u);
  EXPECT_EQ(spec.topology.levels[0].name, "block");
  EXPECT_THAT(spec.nodes[1].domains, ElementsAre("east/b1"));
  EXPECT_THAT(spec.nodes[2].domains, ElementsAre("east/b2"));
  EXPECT_THAT(spec.nodes[4].domains, ElementsAre("east/east-n4"));
  EXPECT_TRUE(spec.Validate().ok()) << spec.Validate().message();
  for (const auto& [text, part] : std::vector<std::pair<std::string, std::string>>{
           {"BlockName= BlockIndex=0 Nodes=n0\n", "line 1: BlockName is empty"},
           {"BlockName=b1 BlockIndex=0 Nodes=n[0-\n", "line 1: Nodes"},
           {std::string(kTwoBlocks) + kTwoLeaves, "both switches and blocks"}}) {
    auto r = ParseScontrolTopology(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.status().message(), HasSubstr(part)) << text;
  }
}

}  // namespace
}  // namespace squeeze
