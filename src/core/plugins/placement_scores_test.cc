#include "core/plugins/placement_scores.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/pod_builders.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using testing::Node;
using testing::Pod;

TEST(PodFitsTest, FractionalPodNeedsOneGpuWithEnoughFree) {
  const NodeView n = Node(4000, {1000, 300});
  EXPECT_TRUE(PodFits(n, Pod(4000, 300, 1)));  // CPU and GPU 1 exactly enough
  EXPECT_TRUE(PodFits(n, Pod(0, 999, 1)));     // GPU 0
  EXPECT_FALSE(PodFits(Node(4000, {999, 300}), Pod(0, 1000, 1)));
  EXPECT_FALSE(PodFits(n, Pod(4001, 300, 1)));  // CPU short
}

TEST(PodFitsTest, MultiGpuPodNeedsKFullyFreeGpus) {
  EXPECT_FALSE(PodFits(Node(0, {1000, 999, 1000}), Pod(0, 1000, 3)));
  EXPECT_TRUE(PodFits(Node(0, {1000, 999, 1000}), Pod(0, 1000, 2)));
}

TEST(PodFitsTest, ModelMemoryAndCpuOnly) {
  NodeView n = Node(4000, {1000, 300});
  EXPECT_FALSE(PodFits(n, Pod(0, 100, 1, {"T4"})));
  EXPECT_TRUE(PodFits(n, Pod(0, 100, 1, {"T4", "V100"})));
  EXPECT_TRUE(PodFits(n, Pod(100, 0, 0, {"T4"})));  // the model binds GPU pods only
  n.memory_free = 8000;
  PodSpec big = Pod(0, 100, 1);
  big.memory_mib = 8001;
  EXPECT_FALSE(PodFits(n, big));
  big.memory_mib = 8000;
  EXPECT_TRUE(PodFits(n, big));
  EXPECT_TRUE(PodFits(Node(100, {}), Pod(100, 0, 0)));
  EXPECT_FALSE(PodFits(Node(100, {}), Pod(100, 100, 1)));
}

TEST(GpuChoiceTest, LeastFreeFittingLowestIndexOnTies) {
  const NodeView n = Node(0, {800, 400, 400, 1000});
  EXPECT_EQ(LeastFreeFittingGpu(n, 300), 1);  // 400 is least; GPUs 1 and 2 tie
  EXPECT_EQ(LeastFreeFittingGpu(n, 500), 0);  // 800
  EXPECT_EQ(LeastFreeFittingGpu(n, 1001), -1);
  EXPECT_THAT(ChooseGpus(n, Pod(0, 300, 1)), ElementsAre(1));
}

TEST(GpuChoiceTest, WholeGpuPodsTakeLowestIndexFreeGpus) {
  const NodeView n = Node(0, {1000, 500, 1000, 1000});
  EXPECT_THAT(LowestFreeGpus(n, 2), ElementsAre(0, 2));
  EXPECT_THAT(LowestFreeGpus(n, 4), IsEmpty());
  EXPECT_THAT(ChooseGpus(n, Pod(0, 1000, 2)), ElementsAre(0, 2));
  EXPECT_THAT(ChooseGpus(n, Pod(0, 1000, 1)), ElementsAre(0));
  EXPECT_THAT(ChooseGpus(n, Pod(0, 0, 0)), IsEmpty());
  EXPECT_THAT(ChooseGpus(n, Pod(0, 1000, 4)), IsEmpty());
}

// C = 64000, U = 4000; c = 32000, R = 2*1000: (0.5)(0.25) + (0.5)(0.25) = 0.25;
// 100(1 - 0.125) = 87.5 -> 87.
TEST(DotProdTest, TruncatesTheHalvedDotProduct) {
  EXPECT_EQ(DotProdScore(Node(64000, {1000, 1000, 1000, 1000}), Pod(32000, 1000, 2)), 87);
  // CPU-only, C = 128000, c = 1280: 1 * 0.01 = 0.01; 100(1 - 0.005) = 99.5 -> 99.
  EXPECT_EQ(DotProdScore(Node(128000, {}), Pod(1280, 0, 0)), 99);
  // C = c = 128000: 100(1 - 0.5) = 50 exactly.
  EXPECT_EQ(DotProdScore(Node(128000, {}), Pod(128000, 0, 0)), 50);
  // Less free GPU on the node, smaller product, higher score: U = 2000 gives
  // 0.125 + 0.0625 = 0.1875; 100(1 - 0.09375) = 90.6 -> 90.
  EXPECT_EQ(DotProdScore(Node(64000, {1000, 1000}), Pod(32000, 1000, 2)), 90);
}

TEST(GpuPackingTest, AllFreeNodeScoresMaxOf33MinusGAndG) {
  EXPECT_EQ(GpuPackingScore(Node(0, std::vector<int>(8, 1000)), Pod(0, 500, 1)), 25);  // 33-8
  EXPECT_EQ(GpuPackingScore(Node(0, {1000, 1000}), Pod(0, 1000, 2)), 31);               // 33-2
  EXPECT_EQ(GpuPackingScore(Node(0, std::vector<int>(20, 1000)), Pod(0, 500, 1)), 20);  // G
  EXPECT_EQ(GpuPackingScore(Node(0, std::vector<int>(8, 1000)), Pod(0, 0, 0)), 0);
}

TEST(GpuPackingTest, FullyFreeGpusUsedScoreMaxOf50MinusCountAnd33) {
  // {1000, 1000, 500}, k = 2: two fully free used, 50 - 2 = 48.
  EXPECT_EQ(GpuPackingScore(Node(0, {1000, 1000, 500}), Pod(0, 1000, 2)), 48);
  // g = 600 does not fit the 500; the least-free fitting GPU is fully free: 50 - 1 = 49.
  EXPECT_EQ(GpuPackingScore(Node(0, {1000, 1000, 500}), Pod(0, 600, 1)), 49);
  // k = 20 on 20 free GPUs and one used: 50 - 20 = 30, clamped to 33.
  std::vector<int> free(20, 1000);
  free.push_back(0);
  EXPECT_EQ(GpuPackingScore(Node(0, free), Pod(0, 1000, 20)), 33);
}

TEST(GpuPackingTest, SharedGpuScoresByItsFreeMilli) {
  // l = 500: floor(100*500/1000) = 50, floor(50/10) = 5: 100 - 5 = 95.
  EXPECT_EQ(GpuPackingScore(Node(0, {1000, 1000, 500}), Pod(0, 200, 1)), 95);
  // l = 999: floor(99.9) = 99, floor(9.9) = 9: 91. l = 299: 29 -> 2: 98.
  EXPECT_EQ(GpuPackingScore(Node(0, {1000, 999}), Pod(0, 200, 1)), 91);
  EXPECT_EQ(GpuPackingScore(Node(0, {1000, 299, 999}), Pod(0, 200, 1)), 98);
  // l = 9: floor(0.9) = 0: 100. (l < 1000 keeps 100 - floor(l/100) >= 91, so the floor of
  // 50 never binds.)
  EXPECT_EQ(GpuPackingScore(Node(0, {1000, 9}), Pod(0, 5, 1)), 100);
  EXPECT_EQ(GpuPackingScore(Node(0, {1000, 9}), Pod(0, 1001, 1)), 0);  // does not fit
}

// {1000, 1000, 0, 0}: U = 2000, b = floor(25 * 6000 / 8000) = floor(18.75) = 18.
TEST(GpuClusteringTest, BonusByPodClassesOnTheNode) {
  NodeView n = Node(0, {1000, 1000, 0, 0});
  const PodSpec share = Pod(0, 500, 1);
  const PodSpec whole = Pod(0, 1000, 1);
  EXPECT_EQ(GpuClusteringScore(n, share), 18 + 25);  // hosts no GPU pod
  n.hosts_any_gpu_pod = true;
  n.hosts_kgpu = true;
  EXPECT_EQ(GpuClusteringScore(n, share), 18);       // only the other class
  EXPECT_EQ(GpuClusteringScore(n, whole), 18 + 75);  // only its own class
  n.hosts_share = true;
  EXPECT_EQ(GpuClusteringScore(n, share), 18 + 50);  // both classes
  EXPECT_EQ(GpuClusteringScore(n, whole), 18 + 50);
  n.hosts_kgpu = false;
  EXPECT_EQ(GpuClusteringScore(n, share), 18 + 75);
  EXPECT_EQ(GpuClusteringScore(n, Pod(0, 0, 0)), 0);
  // All eight free: b = 0; 0 + 75.
  n.free_milli = std::vector<int>(8, 1000);
  EXPECT_EQ(GpuClusteringScore(n, share), 75);
}

// C = 64000, U = 3000; c = 32000, R = 2000: 0.5*32000/128000 + 0.5*1000/8000
// = 0.125 + 0.0625 = 0.1875; 100(1 - 0.1875) = 81.25 -> 81.
TEST(BestFitTest, RawScoreTruncates) {
  EXPECT_EQ(BestFitRawScore(Node(64000, {1000, 1000, 1000}), Pod(32000, 1000, 2)), 81);
  // C = 257280, U = 8000, CPU-only c = 0: 0.5*2.01 + 0.5*1 = 1.505; 100(1 - 1.505) = -50.5,
  // floored to -51.
  EXPECT_EQ(BestFitRawScore(Node(257280, std::vector<int>(8, 1000)), Pod(0, 0, 0)), -51);
}

TEST(BestFitTest, MinMaxNormalisation) {
  // lo = 50, hi = 81, range 31: 81 -> 100, 50 -> 0, 60 -> floor(1000/31) = floor(32.26) = 32.
  EXPECT_THAT(NormaliseMinMax({81, 50, 81, 60}), ElementsAre(100, 0, 100, 32));
  // Negative raw scores: lo = -51, hi = -1, range 50: -26 -> floor(2500/50) = 50.
  EXPECT_THAT(NormaliseMinMax({-51, -26, -1}), ElementsAre(0, 50, 100));
  EXPECT_THAT(NormaliseMinMax({7, 7, 7}), ElementsAre(0, 0, 0));
  EXPECT_THAT(NormaliseMinMax({}), IsEmpty());
}

// M = {P1 = (0, 500, 1), P2 = (0, 1000, 1)}, p = 0.5 each.
// Node {1000, 600}: f(P1) = 0, f(P2) = 600; F = 300. A pod g = 500:
//   on GPU 0 -> {500, 600}: f(P1) = 0, f(P2) = U = 1100; F' = 550; sigma(-0.25) = 0.4378 -> 43.
//   on GPU 1 -> {1000, 100}: f(P1) = 100, f(P2) = 100; F' = 100; sigma(0.2) = 0.5498 -> 54
//   (rounding would give 55).
TEST(FgdTest, TriesEveryFittingGpuAndKeepsTheBest) {
  const TargetWorkload m({Pod(0, 500, 1), Pod(0, 1000, 1)});
  const FgdResult r = FgdScore(Node(0, {1000, 600}), Pod(0, 500, 1), m);
  EXPECT_EQ(r.score, 54);
  EXPECT_THAT(r.gpus, ElementsAre(1));
  // Alone on GPU 0 (GPU 1 too small for g = 700): {300, 600}, f(P1) = 300 (GPU 0 now too
  // small), f(P2) = U = 900; F' = 600, sigma(-0.3) = 0.4256 -> 42.
  const FgdResult only = FgdScore(Node(0, {1000, 600}), Pod(0, 700, 1), m);
  EXPECT_EQ(only.score, 42);
  EXPECT_THAT(only.gpus, ElementsAre(0));
}

// M = {(0, 600, 1)}: F = free milli on GPUs below 600. Node {1000, 700, 650}: F = 0. g = 100:
//   GPU 0 -> {900, 700, 650}: F' = 0, sigma(0) = 0.5 -> 50.
//   GPU 1 -> {1000, 600, 650}: F' = 0 -> 50.
//   GPU 2 -> {1000, 700, 550}: F' = 550, sigma(-0.55) = 0.3659 -> 36.
// FGD takes GPU 0 (lowest of the tied best); the other policies take GPU 2 (least free).
TEST(FgdTest, TiesGoToTheLowestIndexGpu) {
  const TargetWorkload m({Pod(0, 600, 1)});
  const NodeView n = Node(0, {1000, 700, 650});
  const FgdResult r = FgdScore(n, Pod(0, 100, 1), m);
  EXPECT_EQ(r.score, 50);
  EXPECT_THAT(r.gpus, ElementsAre(0));
  EXPECT_THAT(ChooseGpus(n, Pod(0, 100, 1)), ElementsAre(2));
  // g = 680 fits GPUs 0 and 1 only; on GPU 1 ->
  // {1000, 20, 650}: F' = 20, sigma(-0.02) = 0.4950 -> 49; on GPU 0 -> {320, 700, 650}:
  // F' = 320, sigma(-0.32) = 0.4207 -> 42. Best is GPU 1.
  const FgdResult r2 = FgdScore(n, Pod(0, 680, 1), m);
  EXPECT_EQ(r2.score, 49);
  EXPECT_THAT(r2.gpus, ElementsAre(1));
}

// M = {(0, 1000, 1)}. Node {1000, 500, 1000, 1000}: F = 500. A pod k = 2 takes GPUs 0 and 2:
// {0, 500, 0, 1000}: F' = 500, sigma(0) -> 50. With M = {(0, 1000, 2)}: F = 500 (two fit);
// after, one fully free GPU is left: F' = U = 1500, sigma(-1) = 0.2689 -> 26.
TEST(FgdTest, WholeGpuPodTakesLowestIndexFreeGpus) {
  const NodeView n = Node(0, {1000, 500, 1000, 1000});
  const FgdResult r = FgdScore(n, Pod(0, 1000, 2), TargetWorkload({Pod(0, 1000, 1)}));
  EXPECT_EQ(r.score, 50);
  EXPECT_THAT(r.gpus, ElementsAre(0, 2));
  EXPECT_EQ(FgdScore(n, Pod(0, 1000, 2), TargetWorkload({Pod(0, 1000, 2)})).score, 26);
}

// M = {(2000, 500, 1)}. Node C = 3000, {1000, 300}: F = 300. A CPU-only pod c = 1500 leaves
// C' = 1500 < 2000: F' = U = 1300, sigma(-1) = 0.2689 -> 26. With c = 1000, C' = 2000: F' = 300,
// sigma(0) -> 50.
TEST(FgdTest, CpuOnlyPodChangesOnlyCpu) {
  const TargetWorkload m({Pod(2000, 500, 1)});
  const NodeView n = Node(3000, {1000, 300});
  const FgdResult r = FgdScore(n, Pod(1500, 0, 0), m);
  EXPECT_EQ(r.score, 26);
  EXPECT_THAT(r.gpus, IsEmpty());
  EXPECT_EQ(FgdScore(n, Pod(1000, 0, 0), m).score, 50);
}

// sigma((F - F')/1000) near 1: M = {(0, 1000, 1)}, node {1000, 1000, 1000, 1000, 1000, 400}:
// F = 400. A pod g = 400 on GPU 5 -> F' = 0: sigma(0.4) = 0.5987 -> 59. The /1000 scale
// matters: sigma(400) would give 100.
TEST(FgdTest, SigmoidOfMilliDifferenceOverAThousand) {
  const TargetWorkload m({Pod(0, 1000, 1)});
  const FgdResult r = FgdScore(Node(0, {1000, 1000, 1000, 1000, 1000, 400}), Pod(0, 400, 1), m);
  EXPECT_EQ(r.score, 59);
  EXPECT_THAT(r.gpus, ElementsAre(5));
}

TEST(FgdTest, UnfitPodScoresZero) {
  const TargetWorkload m({Pod(0, 1000, 1)});
  const FgdResult r = FgdScore(Node(0, {900, 400}), Pod(0, 1000, 1), m);
  EXPECT_EQ(r.score, 0);
  EXPECT_THAT(r.gpus, IsEmpty());
}

TEST(AfterPlacementTest, ReducesCpuMemoryAndChosenGpus) {
  NodeView n = Node(3000, {1000, 600});
  n.memory_free = 100;
  PodSpec p = Pod(1000, 500, 1);
  p.memory_mib = 40;
  const NodeView after = AfterPlacement(n, p, {1});
  EXPECT_EQ(after.cpu_free, 2000);
  EXPECT_EQ(after.memory_free, 60);
  EXPECT_THAT(after.free_milli, ElementsAre(1000, 100));
}

}  // namespace
}  // namespace squeeze
