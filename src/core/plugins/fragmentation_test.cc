#include "core/plugins/fragmentation.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/testing/pod_builders.h"

namespace squeeze {
namespace {

using testing::Node;
using testing::Pod;

std::vector<PodSpec> Repeat(const PodSpec& p, int n) { return std::vector<PodSpec>(n, p); }

void Append(std::vector<PodSpec>& to, const std::vector<PodSpec>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

TEST(PodSpecTest, GpuSpecAndModels) {
  EXPECT_EQ(Pod(0, 500, 1, {"V100", "T4"}).GpuSpec(), "V100|T4");
  EXPECT_EQ(Pod(0, 500, 1).GpuSpec(), "");
  EXPECT_TRUE(Pod(0, 500, 1, {"V100", "T4"}).AllowsModel("T4"));
  EXPECT_FALSE(Pod(0, 500, 1, {"V100", "T4"}).AllowsModel("A100"));
  EXPECT_TRUE(Pod(0, 500, 1).AllowsModel("A100"));
  EXPECT_TRUE(Pod(1000, 0, 0, {"V100"}).CpuOnly());
  EXPECT_EQ(Pod(0, 1000, 4).TotalMilli(), 4000);
}

// 20 pods: A x12 (60%), B x7 (95% cumulative), C x1.
std::vector<PodSpec> TwentyPods() {
  std::vector<PodSpec> pods;
  Append(pods, Repeat(Pod(1000, 500, 1), 12));
  Append(pods, Repeat(Pod(2000, 1000, 2), 7));
  Append(pods, Repeat(Pod(4000, 0, 0), 1));
  return pods;
}

// The cut stops once cumulative >= 95%, so C is dropped and p_A = 12/19, p_B = 7/19.
TEST(TargetWorkloadTest, KeepsTopSpecsUntilNinetyFivePercent) {
  const TargetWorkload m(TwentyPods());
  ASSERT_EQ(m.entries().size(), 2u);
  EXPECT_EQ(m.entries()[0].spec.cpu_milli, 1000);
  EXPECT_EQ(m.entries()[0].count, 12);
  EXPECT_DOUBLE_EQ(m.entries()[0].p, 12.0 / 19.0);
  EXPECT_EQ(m.entries()[1].spec.gpus, 2);
  EXPECT_DOUBLE_EQ(m.entries()[1].p, 7.0 / 19.0);
}

// 21 pods: A x19 (90.5%), then B and C tie at one pod each. B = (1000, 300, 1) is larger than
// C = (1000, 200, 1) in g, so B comes first: 20/21 = 95.2% >= 95% and C is dropped.
TEST(TargetWorkloadTest, CountTiesGoToTheLargerSpec) {
  std::vector<PodSpec> pods;
  Append(pods, Repeat(Pod(500, 1000, 1), 19));
  pods.push_back(Pod(1000, 200, 1));
  pods.push_back(Pod(1000, 300, 1));
  const TargetWorkload m(pods);
  ASSERT_EQ(m.entries().size(), 2u);
  EXPECT_EQ(m.entries()[1].spec.gpu_milli, 300);
  EXPECT_DOUBLE_EQ(m.entries()[0].p, 19.0 / 20.0);
  EXPECT_DOUBLE_EQ(m.entries()[1].p, 1.0 / 20.0);
}

// E twice (its two pods differ only in memory, which is not part of the spec), then X and F
// once each, all kept (2/4, 3/4, 4/4). E leads on count; X = (2000, 0, 0, "") and
// F = (1000, 500, 1, "V100") tie on count, and X is larger in c. Specs equal in (c, g, k)
// order by the spec string, descending.
TEST(TargetWorkloadTest, TiesOrderedByCpuThenSpecString) {
  PodSpec e = Pod(1000, 500, 1);
  PodSpec e2 = e;
  e2.memory_mib = 123;
  const TargetWorkload m({e, Pod(1000, 500, 1, {"V100"}), Pod(2000, 0, 0), e2});
  ASSERT_EQ(m.entries().size(), 3u);
  EXPECT_EQ(m.entries()[0].spec.GpuSpec(), "");
  EXPECT_EQ(m.entries()[0].count, 2);
  EXPECT_DOUBLE_EQ(m.entries()[0].p, 0.5);
  EXPECT_EQ(m.entries()[1].spec.cpu_milli, 2000);
  EXPECT_DOUBLE_EQ(m.entries()[1].p, 0.25);
  EXPECT_EQ(m.entries()[2].spec.GpuSpec(), "V100");

  // Same (c, g, k), one pod each: "V100" > "T4" > "".
  const TargetWorkload n({Pod(0, 500, 1), Pod(0, 500, 1, {"V100"}), Pod(0, 500, 1, {"T4"})});
  ASSERT_EQ(n.entries().size(), 3u);
  EXPECT_EQ(n.entries()[0].spec.GpuSpec(), "V100");
  EXPECT_EQ(n.entries()[1].spec.GpuSpec(), "T4");
  EXPECT_EQ(n.entries()[2].spec.GpuSpec(), "");
}

TEST(TargetWorkloadTest, EmptyTraceGivesNoFragmentation) {
  const TargetWorkload m(std::vector<PodSpec>{});
  EXPECT_TRUE(m.entries().empty());
  EXPECT_DOUBLE_EQ(NodeFragmentation(Node(1000, {1000, 300}), m), 0.0);
}

// The node of these tests: C = 4000, l = {1000, 300}, U = 1300, model V100.
TEST(SpecFragmentationTest, CpuOnlySpecSeesAllFreeGpuMilli) {
  EXPECT_EQ(SpecFragmentation(Node(4000, {1000, 300}), Pod(1000, 0, 0)), 1300);
}

TEST(SpecFragmentationTest, GpuSpecMismatchSeesAllFreeGpuMilli) {
  // T4 only: the V100 node is useless to it, f = U = 1300.
  EXPECT_EQ(SpecFragmentation(Node(4000, {1000, 300}), Pod(0, 200, 1, {"T4"})), 1300);
  // T4|V100: both GPUs have >= 200 free, nothing is unusable.
  EXPECT_EQ(SpecFragmentation(Node(4000, {1000, 300}), Pod(0, 200, 1, {"T4", "V100"})), 0);
}

TEST(SpecFragmentationTest, FittingSpecSeesTheGpusTooSmallForIt) {
  // g = 500: GPU 0 fits, GPU 1 (300 < 500) does not: f = 300.
  EXPECT_EQ(SpecFragmentation(Node(4000, {1000, 300}), Pod(1000, 500, 1)), 300);
  // Boundaries count as fitting: g = l = 300 and C = c = 4000: f = 0.
  EXPECT_EQ(SpecFragmentation(Node(4000, {1000, 300}), Pod(4000, 300, 1)), 0);
}

TEST(SpecFragmentationTest, LackingCpuSeesAllFreeGpuMilli) {
  // c = 4001 > C = 4000: f = U = 1300, though a GPU fits.
  EXPECT_EQ(SpecFragmentation(Node(4000, {1000, 300}), Pod(4001, 500, 1)), 1300);
}

TEST(SpecFragmentationTest, MultiGpuSpecNeedsKFittingGpus) {
  // k = 2, g = 1000: only one GPU fits, f = U = 1300.
  EXPECT_EQ(SpecFragmentation(Node(4000, {1000, 300}), Pod(0, 1000, 2)), 1300);
  // {1000, 1000, 300}: two fit, f = 300.
  EXPECT_EQ(SpecFragmentation(Node(4000, {1000, 1000, 300}), Pod(0, 1000, 2)), 300);
}

// M = {P1 = (1000, 500, 1), P2 = (0, 1000, 2)}, one pod each, p = 0.5 each.
// f(P1) = 300 (GPU 1 too small), f(P2) = 1300 (one GPU for two): F = 0.5*300 + 0.5*1300 = 800.
TEST(NodeFragmentationTest, WeighsSpecsByProbability) {
  const TargetWorkload m({Pod(1000, 500, 1), Pod(0, 1000, 2)});
  EXPECT_DOUBLE_EQ(NodeFragmentation(Node(4000, {1000, 300}), m), 800.0);
  // With C = 500 < 1000, P1 lacks CPU too: F = 0.5*1300 + 0.5*1300 = 1300.
  EXPECT_DOUBLE_EQ(NodeFragmentation(Node(500, {1000, 300}), m), 1300.0);
  // {1000, 1000, 600}: f(P1) = 0, f(P2) = 600: F = 300.
  EXPECT_DOUBLE_EQ(NodeFragmentation(Node(4000, {1000, 1000, 600}), m), 300.0);
}

// Coverage 1.0 keeps C, which the 95% cut drops: p = 12/20, 7/20, 1/20.
TEST(TargetWorkloadTest, FullCoverageKeepsEverySpec) {
  TargetWorkload::Options all;
  all.coverage = 1.0;
  const TargetWorkload m(TwentyPods(), all);
  ASSERT_EQ(m.entries().size(), 3u);
  EXPECT_DOUBLE_EQ(m.entries()[0].p, 12.0 / 20.0);
  EXPECT_DOUBLE_EQ(m.entries()[1].p, 7.0 / 20.0);
  EXPECT_EQ(m.entries()[2].spec.cpu_milli, 4000);
  EXPECT_DOUBLE_EQ(m.entries()[2].p, 1.0 / 20.0);
}

TEST(TargetWorkloadTest, ReweightedNormalisesAndKeepsTheSpecs) {
  const TargetWorkload m({Pod(1000, 500, 1), Pod(1000, 500, 1), Pod(0, 1000, 2)});
  const TargetWorkload r = m.Reweighted({1.0, 3.0});
  ASSERT_EQ(r.entries().size(), 2u);
  EXPECT_DOUBLE_EQ(r.entries()[0].p, 0.25);
  EXPECT_DOUBLE_EQ(r.entries()[1].p, 0.75);
  EXPECT_EQ(r.entries()[0].count, 2);
  EXPECT_EQ(r.entries()[1].spec.gpus, 2);
  EXPECT_DOUBLE_EQ(m.entries()[0].p, 2.0 / 3.0);  // the original is unchanged
  EXPECT_DOUBLE_EQ(m.Reweighted({0.0, 0.0}).entries()[1].p, 0.0);
}

// A mix with every kind of spec: fractions, whole GPUs, a pair, CPU-only, a model constraint.
TargetWorkload Mixed() {
  return TargetWorkload({Pod(2000, 300, 1), Pod(2000, 300, 1), Pod(1000, 1000, 2),
                         Pod(0, 1000, 1), Pod(4000, 0, 0), Pod(0, 500, 1, {"T4"}),
                         Pod(8000, 700, 1, {"T4", "V100"})});
}

std::vector<NodeView> VariedNodes() {
  return {Node(32000, {1000, 700, 250, 0}),         Node(5000, {1000, 700, 250, 0}),
          Node(32000, {1000, 1000, 1000, 700}),     Node(10000, {1000, 1000}, "T4"),
          Node(32000, {300, 300, 300, 300}, "A100"), Node(0, {}, "V100"),
          Node(1500, {1000, 1000, 1000, 1000}),     Node(32000, {690, 1000}, "T4")};
}

// Also checks the per-model cache: the nodes alternate between models.
TEST(FragmentationCalculatorTest, FragmentationIsNodeFragmentation) {
  const TargetWorkload m = Mixed();
  const FragmentationCalculator calc(m);
  for (int round = 0; round < 2; ++round) {
    for (const NodeView& n : VariedNodes()) {
      EXPECT_DOUBLE_EQ(calc.Fragmentation(n), NodeFragmentation(n, m)) << n.gpu_model;
    }
  }
}

// Node C = 32000, {1000, 700, 250, 0}, V100 (U = 1950), and the same with C = 5000.
TEST(FragmentationCalculatorTest, RoomByHand) {
  auto room = [](const PodSpec& spec, const NodeView& n) {
    return FragmentationCalculator(TargetWorkload({spec})).Room(n, 0);
  };
  const NodeView roomy = Node(32000, {1000, 700, 250, 0});
  const NodeView short_of_cpu = Node(5000, {1000, 700, 250, 0});
  // 300 milli, 2000 CPU: GPUs 3 + 2 + 0 + 0 = 5, CPU 16: 5; with 5000 CPU, 2.
  EXPECT_EQ(room(Pod(2000, 300, 1), roomy), 5);
  EXPECT_EQ(room(Pod(2000, 300, 1), short_of_cpu), 2);
  // Pairs of whole GPUs: one whole GPU, none; {1000, 1000, 1000, 700}: 3 / 2 = 1.
  EXPECT_EQ(room(Pod(1000, 1000, 2), roomy), 0);
  EXPECT_EQ(room(Pod(1000, 1000, 2), Node(32000, {1000, 1000, 1000, 700})), 1);
  // T4 only: none on a V100; 1000 / 500 x 2 on a T4 node.
  EXPECT_EQ(room(Pod(0, 500, 1, {"T4"}), roomy), 0);
  EXPECT_EQ(room(Pod(0, 500, 1, {"T4"}), Node(10000, {1000, 1000}, "T4")), 4);
  // CPU only: by CPU alone, 32000 / 4000 = 8 and 5000 / 4000 = 1.
  EXPECT_EQ(room(Pod(4000, 0, 0), roomy), 8);
  EXPECT_EQ(room(Pod(4000, 0, 0), short_of_cpu), 1);
}

// U - R x room, weighted by p: what a stream of the spec could never fill.
TEST(FragmentationCalculatorTest, StreamWasteByHand) {
  auto waste = [](const std::vector<PodSpec>& specs, const NodeView& n) {
    TargetWorkload::Options all;
    all.coverage = 1.0;
    return FragmentationCalculator(TargetWorkload(specs, all)).StreamWaste(n);
  };
  const NodeView roomy = Node(32000, {1000, 700, 250, 0});  // U = 1950
  EXPECT_DOUBLE_EQ(waste({Pod(2000, 300, 1)}, roomy), 1950 - 5 * 300);
  EXPECT_DOUBLE_EQ(waste({Pod(2000, 300, 1)}, Node(5000, {1000, 700, 250, 0})), 1950 - 2 * 300);
  EXPECT_DOUBLE_EQ(waste({Pod(4000, 0, 0)}, roomy), 1950);         // CPU only: all of U
  EXPECT_DOUBLE_EQ(waste({Pod(0, 500, 1, {"T4"})}, roomy), 1950);  // wrong model: all of U
  // An 810-milli stream strands 190 on each whole GPU, which F_n does not count.
  EXPECT_DOUBLE_EQ(waste({Pod(0, 810, 1)}, Node(0, {1000, 1000})), 380);
  EXPECT_DOUBLE_EQ(NodeFragmentation(Node(0, {1000, 1000}), TargetWorkload({Pod(0, 810, 1)})), 0);
  // Half 300s (11 fit {1000, 1000, 1000, 700}: 3700 - 3300 = 400), half pairs (3700 - 2000):
  EXPECT_DOUBLE_EQ(waste({Pod(2000, 300, 1), Pod(1000, 1000, 2)},
                         Node(32000, {1000, 1000, 1000, 700})),
                   0.5 * 400 + 0.5 * 1700);
}

TEST(FragmentationCalculatorTest, MixedWasteIsTheWeightedSum) {
  TargetWorkload::Options all;
  all.coverage = 1.0;
  std::vector<PodSpec> specs = {Pod(2000, 300, 1), Pod(1000, 1000, 2), Pod(0, 1000, 1),
                                Pod(4000, 0, 0),   Pod(0, 500, 1, {"T4"}),
                                Pod(8000, 700, 1, {"T4", "V100"})};
  const FragmentationCalculator calc(TargetWorkload(specs, all));
  for (const NodeView& n : VariedNodes()) {
    for (double share : {0.0, 0.5, 1.0}) {
      EXPECT_NEAR(calc.MixedWaste(n, share),
                  share * calc.Fragmentation(n) + (1 - share) * calc.StreamWaste(n), 1e-9)
          << n.gpu_model << " share " << share;
    }
  }
}

}  // namespace
}  // namespace squeeze
