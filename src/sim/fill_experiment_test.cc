#include "sim/fill_experiment.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/cluster_state.h"
#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using testing::NewJob;

// p0, p1: 600 milli and 1000 CPU; p2: 2 whole GPUs and 2000 CPU; p3: 500 milli and 1000 CPU.
// 3700 milli in all. The target workload: p0's spec A (p .5), p2's B (.25), p3's C (.25).
Trace FourPods() {
  Trace t;
  t.format = "openb-pods";
  const std::vector<JobSpec> pods = {
      NewJob(0, 1).Milli(600).Cpu(1000).Name("p0"), NewJob(1, 1).Milli(600).Cpu(1000).Name("p1"),
      NewJob(2, 2).Cpu(2000).Name("p2"), NewJob(3, 1).Milli(500).Cpu(1000).Name("p3")};
  for (const JobSpec& p : pods) t.jobs.push_back(TraceJob{p, kSecond});
  return t;
}

// n0 and n1: 2 V100s and 8000 CPU each; 4000 milli of capacity.
ClusterSpec TwoNodes() {
  ClusterSpec spec;
  spec.pools.emplace_back();
  spec.pools.back().name = "p";
  for (const char* name : {"n0", "n1"}) {
    NodeSpec n;
    n.name = name;
    n.pool = "p";
    n.gpu_model = "V100";
    n.gpus = 2;
    n.cpu_milli = 8000;
    spec.nodes.push_back(n);
  }
  return spec;
}

// The pod orders (Fisher-Yates of [p0 p1 p2 p3] on the SplitMix64 stream of the seed, worked
// out apart from the code): seed 44 [p2 p1 p0 p3], seed 45 [p0 p1 p3 p2]. No tuning (fill 0).
// bestfit (ties in one node or the other are symmetric here, so the node rank does not matter):
//   seed 44: p2 on one node {0, 0}; p1, p0 on the other, {400, 400}; p3 (500) fails.
//     arrived 2000, 2600, 3200, 3700 -> r = arrived / 4 / 10 = 50, 65, 80, 92.5 -> 92 (to even)
//     A = 50, 65, 80, 80
//   seed 45: p0 on n0 {400, 1000}; p1: n0 raw floor(100 (1 - .0234375 - .05)) = 92 against n1's
//     floor(100 (1 - .02734375 - .0875)) = 88: n0 {400, 400}; p3 on n1 {500, 1000}; p2 fails.
//     r = 15, 30, 42.5 -> 42, 92;  A = 15, 30, 42.5, 42.5
// Columns average the seeds that have them: @15 only 45, @50 and @80 only 44, @92 both:
// (80 + 42.5) / 2 = 61.25; @93 has no event and takes [92, 94], the same.
// Fragmentation at the end, F_n with M = {A .5, B .25, C .25}:
//   {400, 400}: every spec lacks a GPU: 800.  {0, 0}: 0.
//   {500, 1000}: A .5 * 500 + B .25 * 1500 (one whole GPU) + C .25 * 0 = 625.
//   seed 44: 100 * 800 / 1000 / 4 = 20;  seed 45: 100 * 1425 / 4000 = 35.625 -> 35.62 (even)
//   @92: (20 + 35.62) / 2 = 27.81
TEST(FillExperimentTest, BestFitColumnsWorkedByHand) {
  FillExperimentOptions o;
  o.placements = {"bestfit"};
  o.first_seed = 44;
  o.last_seed = 45;
  o.fill = 0;
  o.report_at = {15, 50, 80, 92, 93};
  auto r = RunFillExperiment(FourPods(), TwoNodes(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  const PlacementOutcome& out = r->front();
  EXPECT_EQ(out.placement, "bestfit");
  EXPECT_EQ(out.seeds, 2);
  EXPECT_DOUBLE_EQ(out.failed_pods, 1.0);
  const std::map<int, double> by44 = {{50, 50.0}, {80, 80.0}, {92, 80.0}, {93, 80.0}};
  const std::map<int, double> by45 = {{15, 15.0}, {92, 42.5}, {93, 42.5}};
  EXPECT_EQ(out.alloc_by_seed.at(44), by44);
  EXPECT_EQ(out.alloc_by_seed.at(45), by45);
  const std::map<int, double> alloc = {{15, 15.0}, {50, 50.0}, {80, 80.0}, {92, 61.25},
                                       {93, 61.25}};
  EXPECT_EQ(out.alloc_at, alloc);
  EXPECT_DOUBLE_EQ(out.frag_at.at(92), 27.81);
  EXPECT_GE(out.wall_s, 0);
}

TEST(FillExperimentTest, OneOutcomePerPlacementInTheGivenOrder) {
  FillExperimentOptions o;
  o.placements = {"packing", "bestfit"};
  o.first_seed = o.last_seed = 45;
  o.fill = 0;
  o.report_at = {92};
  int runs = 0;
  o.progress = [&](const std::string&, uint64_t seed) {
    EXPECT_EQ(seed, 45u);
    ++runs;
  };
  auto r = RunFillExperiment(FourPods(), TwoNodes(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].placement, "packing");
  EXPECT_EQ((*r)[1].placement, "bestfit");
  EXPECT_EQ((*r)[1].alloc_at.at(92), 42.5);
  EXPECT_EQ(runs, 2);
}

TEST(FillExperimentTest, EmptySeedRangeIsAnError) {
  FillExperimentOptions o;
  o.first_seed = 51;
  o.last_seed = 42;
  auto r = RunFillExperiment(FourPods(), TwoNodes(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "seeds: the range 51-42 is empty");
}

TEST(FillExperimentTest, UnknownPlacementIsNamed) {
  FillExperimentOptions o;
  o.placements = {"bestfit", "nosuch"};
  o.first_seed = o.last_seed = 42;
  auto r = RunFillExperiment(FourPods(), TwoNodes(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("placement: unknown node order 'nosuch'"),
            std::string::npos)
      << r.status().message();
}

TEST(FillExperimentTest, ClusterWithoutGpusIsAnError) {
  ClusterSpec spec = TwoNodes();
  for (NodeSpec& n : spec.nodes) n.gpus = 0;
  auto r = RunFillExperiment(FourPods(), spec, FillExperimentOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "nodes: the cluster has no GPUs");
}

// n0 {400, 1000} with 7000 CPU (p0), n1 {0, 0} (p2). F(n0) = .5 * 400 (A: GPU 0 under 600)
// + .25 * 1400 (B: one whole GPU, U) + .25 * 400 (C) = 650; F(n1) = 0. 100 * 650 / 1000 / 4.
// Then p3 on n0's GPU 1, {400, 500}: A and B lack a GPU: .75 * 900, C .25 * 400: 775.
TEST(FragmentationAmountMeterTest, PercentOfClusterGpusByHand) {
  const Trace pods = FourPods();
  FragmentationAmountMeter meter{TargetWorkload(PodSpecsOf(pods))};
  ClusterState state(TwoNodes());
  auto put = [&](int node, std::vector<int> gpus, const JobSpec& pod) {
    Placement p;
    p.shares.push_back(NodeShare{node, std::move(gpus), pod.gpu_milli, pod.cpu_milli, 0});
    state.Allocate(p);
  };
  EXPECT_DOUBLE_EQ(meter(state), 0.0);
  put(0, {0}, pods.jobs[0].spec);
  put(1, {0, 1}, pods.jobs[2].spec);
  EXPECT_DOUBLE_EQ(meter(state), 16.25);
  put(0, {1}, pods.jobs[3].spec);
  EXPECT_DOUBLE_EQ(meter(state), 19.375);
  FragmentationAmountMeter fresh{TargetWorkload(PodSpecsOf(pods))};
  EXPECT_DOUBLE_EQ(fresh(state), 19.375);
}

TEST(FragmentationAmountMeterTest, PodSpecsOfKeepsTheShape) {
  const std::vector<PodSpec> specs = PodSpecsOf(FourPods());
  ASSERT_EQ(specs.size(), 4u);
  EXPECT_EQ(specs[2].gpus, 2);
  EXPECT_EQ(specs[2].gpu_milli, 1000);
  EXPECT_EQ(specs[2].cpu_milli, 2000);
  EXPECT_EQ(specs[3].gpu_milli, 500);
}

}  // namespace
}  // namespace squeeze
