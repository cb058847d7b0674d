// Topology (issue 38): jobs of several nodes placed inside one block when one has room, what a
// job requires honoured, and the speed of a job spread over blocks.
#include "core/topology.h"

#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;

// Pool a: four 8-GPU nodes a0..a3; blocks {a0, a1} and {a2, a3}, both in rack r0.
ClusterSpec TwoBlocks(double block_speed = 0.5) {
  ClusterSpec spec = Cluster({{"a", 4, 8}});
  spec.topology.levels = {{"block", block_speed}, {"rack", 0.25}};
  for (size_t n = 0; n < spec.nodes.size(); ++n) {
    spec.nodes[n].domains = {n < 2 ? "b0" : "b1", "r0"};
  }
  return spec;
}

TEST(TopologyTest, ClusterStateIndexesTheDomainsOfEachLevel) {
  ClusterState cluster(TwoBlocks());
  ASSERT_EQ(cluster.TopologyLevels(), 2);
  EXPECT_THAT(cluster.Domains(0), ElementsAre(ElementsAre(0, 1), ElementsAre(2, 3)));
  EXPECT_THAT(cluster.Domains(1), ElementsAre(ElementsAre(0, 1, 2, 3)));
  EXPECT_EQ(cluster.DomainName(0, 1), "b1");
  EXPECT_EQ(cluster.DomainOf(0, 3), 1);
  Placement in_block, across;
  in_block.shares = {{2, {0}, kMilliPerGpu}, {3, {0}, kMilliPerGpu}};
  across.shares = {{1, {0}, kMilliPerGpu}, {2, {0}, kMilliPerGpu}};
  EXPECT_EQ(SpreadLevel(cluster, in_block), -1);
  EXPECT_EQ(SpreadLevel(cluster, across), 0);
  EXPECT_EQ(TopologySpeed(cluster, in_block), 1);
  EXPECT_EQ(TopologySpeed(cluster, across), 0.5);
}

// A 16-GPU job when a0 holds a 4-GPU job: first fit spreads it over a0, a1 and a2 (both
// blocks); aware of the blocks it takes a2 and a3, and runs at full speed.
TEST(TopologyTest, AJobOfSeveralNodesGoesInsideOneBlockWhenOneHasRoom) {
  auto run = [](bool aware) {
    Scenario s(TwoBlocks(), MakePolicy("fifo", {{"topology_aware", aware ? "true" : "false"}}));
    s.Add(NewJob(1, 4, 0).Pool("a"));
    s.Add(NewJob(2, 16, 0).Pool("a"));
    auto lines = s.Cycle(0);
    lines.push_back("speed " + std::to_string(s.job(2).run_speed_milli));
    lines.push_back(std::to_string(s.sched().counters().one_block_starts) + " of " +
                    std::to_string(s.sched().counters().multi_node_starts) + " in one block");
    return lines;
  };
  EXPECT_THAT(run(true), ElementsAre("start 1 on a0:0,1,2,3",
                                     "start 2 on a2:0,1,2,3,4,5,6,7 a3:0,1,2,3,4,5,6,7",
                                     "speed 1000", "1 of 1 in one block"));
  const auto blind = run(false);
  ASSERT_EQ(blind.size(), 4u);
  EXPECT_EQ(blind[1], "start 2 on a1:0,1,2,3,4,5,6,7 a2:0,1,2,3,4,5,6,7");  // both blocks
  EXPECT_EQ(blind[2], "speed 500");  // spread_speed of the block level
  EXPECT_EQ(blind[3], "0 of 1 in one block");
}

// First fit: job 1 (12 GPUs) inside b0, jobs 2 and 3 (4 each) on a1 and a2; job 2 ends: 16 GPUs
// free, 4 in block b0 and 12 in b1. A 16-GPU job that requires a block waits, one that
// prefers it (the default) spreads, and so do one that requires only the rack and an
// unconstrained one.
TEST(TopologyTest, ARequiredLevelIsHonouredAndAPreferredOneGivesWay) {
  auto full = [](TopologyMode mode, const std::string& level) {
    Scenario s(TwoBlocks(), MakePolicy("fifo", {{"node_order", "first-fit"}}));
    std::vector<std::string> lines;
    auto cycle = [&](Time now) {
      for (std::string& l : s.Cycle(now)) lines.push_back(std::move(l));
    };
    s.Add(NewJob(1, 12, 0).Pool("a"));
    cycle(0);
    s.Add(NewJob(2, 4, 0).Pool("a"));
    cycle(0);
    s.Add(NewJob(3, 4, 0).Pool("a"));
    cycle(0);
    s.Finish(2, kSecond);
    JobSpec big = NewJob(4, 16, kSecond).Pool("a");
    big.topology = {mode, level};
    s.Add(big);
    EXPECT_THAT(lines, ElementsAre("start 1 on a0:0,1,2,3,4,5,6,7 a1:0,1,2,3",
                                   "start 2 on a1:4,5,6,7", "start 3 on a2:0,1,2,3"));
    return s.Cycle(kSecond);
  };
  EXPECT_THAT(full(TopologyMode::kRequired, "block"), ElementsAre());
  EXPECT_THAT(full(TopologyMode::kPreferred, ""),
              ElementsAre("start 4 on a1:4,5,6,7 a2:4,5,6,7 a3:0,1,2,3,4,5,6,7"));
  EXPECT_THAT(full(TopologyMode::kRequired, "rack"),
              ElementsAre("start 4 on a1:4,5,6,7 a2:4,5,6,7 a3:0,1,2,3,4,5,6,7"));
  EXPECT_THAT(full(TopologyMode::kUnconstrained, ""),
              ElementsAre("start 4 on a1:4,5,6,7 a2:4,5,6,7 a3:0,1,2,3,4,5,6,7"));
}

// Backfill's reservation for a job that requires a block waits for a block to hold it (a2 and
// a3 at 2 h), not for the first 16 GPUs free over both blocks (a0 and a3 at 1 h).
TEST(TopologyTest, AReservationForAJobThatRequiresABlockIsInsideOne) {
  auto reserved = [](TopologyMode mode) {
    Scenario s(TwoBlocks(), MakePolicy("backfill", {{"node_order", "first-fit"}}));
    s.Add(NewJob(1, 8, 0).Pool("a").Estimate(kHour));      // a0 until 1 h
    s.Add(NewJob(2, 4, 0).Pool("a").Estimate(3 * kHour));  // a1:0-3 until 3 h
    s.Add(NewJob(3, 8, 0).Pool("a").Estimate(2 * kHour));  // a2 until 2 h
    s.Add(NewJob(4, 4, 0).Pool("a").Estimate(3 * kHour));  // a1:4-7 until 3 h; a3 free
    s.Cycle(0);
    JobSpec big = NewJob(5, 16, kSecond).Pool("a").Estimate(kHour);
    big.topology = {mode, mode == TopologyMode::kRequired ? "block" : ""};
    s.Add(big);
    s.Add(NewJob(6, 8, 2 * kSecond).Pool("a").Estimate(kHour));
    s.Cycle(2 * kSecond);
    const std::vector<Reservation> r = s.sched().ReservationsAhead(6, 2 * kSecond, 16);
    std::string out;
    for (const Reservation& each : r) {
      if (each.job != 5) continue;
      out += "at " + std::to_string(each.shadow / kHour) + "h on";
      std::set<int> nodes;
      for (const auto& [node, cap] : each.caps) nodes.insert(node);
      for (int node : nodes) out += " a" + std::to_string(node);
    }
    return out;
  };
  EXPECT_EQ(reserved(TopologyMode::kRequired), "at 2h on a2 a3");
  EXPECT_EQ(reserved(TopologyMode::kUnconstrained), "at 1h on a0 a3");
}

TEST(TopologyTest, RequestsNameALevelOfTheCluster) {
  TopologySpec t;
  t.levels = {{"block", 1}, {"rack", 1}};
  EXPECT_TRUE(CheckTopologyRequest({TopologyMode::kRequired, "rack"}, t).ok());
  EXPECT_TRUE(CheckTopologyRequest({}, t).ok());
  Status bad = CheckTopologyRequest({TopologyMode::kRequired, "spine"}, t);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.message(), HasSubstr("level 'spine' is not a level"));
  EXPECT_THAT(bad.message(), HasSubstr("block, rack"));
  EXPECT_FALSE(CheckTopologyRequest({TopologyMode::kRequired, ""}, t).ok());
  // A cluster without a topology: a preference is nothing to honour, a requirement is refused.
  EXPECT_TRUE(CheckTopologyRequest({TopologyMode::kPreferred, "rack"}, TopologySpec{}).ok());
  EXPECT_THAT(CheckTopologyRequest({TopologyMode::kRequired, "rack"}, TopologySpec{}).message(),
              HasSubstr("required:rack cannot be met: the cluster has no topology"));
}

TEST(TopologyTest, AJobThatRequiresMoreThanTheLargestDomainIsRefused) {
  ClusterState cluster(TwoBlocks());
  JobSpec job = NewJob(1, 24, 0).Pool("a");
  job.topology = {TopologyMode::kRequired, "block"};
  Status s = CheckTopologyFits(cluster, job);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "topology: it requires one block for its 24 GPUs; the largest block "
                         "of the cluster has 16");
  job.topology = {TopologyMode::kRequired, "rack"};
  EXPECT_TRUE(CheckTopologyFits(cluster, job).ok());
  job.topology = {TopologyMode::kPreferred, "block"};  // it may spread
  EXPECT_TRUE(CheckTopologyFits(cluster, job).ok());
  job.topology = {TopologyMode::kPreferred, "row"};
  EXPECT_THAT(CheckTopologyFits(cluster, job).message(), HasSubstr("level 'row'"));
  // The scheduler refuses it at submission.
  Scenario s2(TwoBlocks(), MakePolicy("fifo"));
  job.topology = {TopologyMode::kRequired, "block"};
  EXPECT_THAT(s2.sched().CheckFeasible(job).message(), HasSubstr("largest block"));
}

TEST(TopologyTest, RequestsReadAsUsersWriteThem) {
  for (const char* text : {"preferred", "preferred:block", "required:rack", "unconstrained"}) {
    auto r = ParseTopologyRequest(text);
    ASSERT_TRUE(r.ok()) << text << ": " << r.status().message();
    EXPECT_EQ(TopologyRequestText(*r), text);
  }
  EXPECT_TRUE(ParseTopologyRequest("preferred")->IsDefault());
  EXPECT_EQ(ParseTopologyRequest("required:rack")->mode, TopologyMode::kRequired);
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"", "'' is not preferred, required or unconstrained"},
           {"strict", "'strict' is not preferred"},
           {"required", "required needs a level"},
           {"required:", "a name of 1 to 64 characters"},
           {"unconstrained:rack", "unconstrained takes no level"},
           {"preferred:r a", "only letters, digits"},
           {"required:" + std::string(65, 'x'), "1 to 64 characters"}}) {
    auto r = ParseTopologyRequest(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.status().message(), HasSubstr(says)) << text;
    EXPECT_THAT(r.status().message(), HasSubstr("topology '")) << text;
  }
}

TEST(TopologyTest, ValidationRefusesBrokenTopologies) {
  ClusterSpec spec = TwoBlocks();
  EXPECT_TRUE(spec.Validate().ok());
  ClusterSpec tree = TwoBlocks();
  tree.nodes[1].domains = {"b0", "r1"};  // b0 in racks r0 and r1
  EXPECT_THAT(tree.Validate().message(), HasSubstr("block 'b0' is in rack 'r0' and in 'r1'"));
  ClusterSpec short_list = TwoBlocks();
  short_list.nodes[0].domains = {"b0"};
  EXPECT_THAT(short_list.Validate().message(), HasSubstr("1 topology domains for 2 levels"));
  ClusterSpec speed = TwoBlocks(0);
  EXPECT_THAT(speed.Validate().message(), HasSubstr("spread_speed 0.000000 is not in (0, 1]"));
}

}  // namespace
}  // namespace squeeze
