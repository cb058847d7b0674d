#include "sim/fill_protocol.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace squeeze {
namespace {

// The SplitMix64 stream for seed 42 (fixed by its definition; see rng_test.cc), as used below:
//   x1 % 5 = 3, x2 % 4 = 3, x3 % 3 = 0, x4 % 2 = 0              (Fisher-Yates of 5 pods)
//   x5 % 5 = 0, x6 % 5 = 2, x7 % 5 = 0, x8 % 5 = 3, x9 % 5 = 0   (tune-up draws)
//   x5 % 5 = 0, x6 % 4 = 2, x7 % 3 = 1                          (tune-down removals)
// 2^64 mod n is 1 or 0 for these n, so no output is rejected.

JobSpec Pod(JobId id, const std::string& name, int gpus, int milli) {
  JobSpec p;
  p.id = id;
  p.name = name;
  p.gpus = gpus;
  p.gpu_milli = milli;
  return p;
}

// a: 1 x 100, b: 1 x 300, c: CPU-only, d: 2 x 1000, e: 1 x 200; total 2600 milli. Listed out of
// name order so that the sort matters.
Trace FivePods() {
  Trace t;
  t.format = "openb-pods";
  for (const JobSpec& p : {Pod(0, "d", 2, 1000), Pod(1, "b", 1, 300), Pod(2, "e", 1, 200),
                           Pod(3, "a", 1, 100), Pod(4, "c", 0, 0)}) {
    t.jobs.push_back(TraceJob{p, kSecond});
  }
  return t;
}

std::vector<std::string> Names(const std::vector<JobSpec>& pods) {
  std::vector<std::string> out;
  for (const JobSpec& p : pods) out.push_back(p.name);
  return out;
}

ClusterSpec OneGpuNodes(int n) {
  ClusterSpec spec;
  spec.pools.emplace_back();
  spec.pools.back().name = "p";
  for (int i = 0; i < n; ++i) {
    NodeSpec node;
    node.name = "n" + std::to_string(i);
    node.pool = "p";
    node.gpus = 1;
    spec.nodes.push_back(node);
  }
  return spec;
}

// The first node with enough GPUs free enough, lowest GPU indices first.
std::optional<Placement> FirstFit(const JobSpec& pod, const ClusterState& cluster) {
  for (const NodeState& n : cluster.nodes()) {
    NodeShare s;
    s.node = n.index;
    s.milli_per_gpu = pod.gpus > 0 ? pod.gpu_milli : 0;
    for (int g = 0; g < n.gpus && static_cast<int>(s.gpus.size()) < pod.gpus; ++g) {
      if (n.free_milli[g] >= pod.gpu_milli) s.gpus.push_back(g);
    }
    if (static_cast<int>(s.gpus.size()) == pod.gpus && cluster.Fits(s)) {
      Placement p;
      p.shares.push_back(s);
      return p;
    }
  }
  return std::nullopt;
}

TEST(FillOrderTest, SortsByNameThenShufflesWithTheSeed) {
  // Sorted [a b c d e]; Fisher-Yates: i=4 swaps with 3 -> [a b c e d]; i=3 with 3 (none);
  // i=2 with 0 -> [c b a e d]; i=1 with 0 -> [b c a e d].
  FillOptions o;
  o.fill = 0;  // no tuning
  EXPECT_EQ(Names(FillOrder(FivePods(), 2000, o)),
            (std::vector<std::string>{"b", "c", "a", "e", "d"}));
}

TEST(FillOrderTest, TotalEqualToTheTargetIsLeftAlone) {
  FillOptions o;  // 1.3 x 2000 = 2600 = the trace's total
  EXPECT_EQ(Names(FillOrder(FivePods(), 2000, o)),
            (std::vector<std::string>{"b", "c", "a", "e", "d"}));
}

TEST(FillOrderTest, TuneUpTestsPerGpuMilliButAddsTheWholeRequest) {
  // T = 1.3 x 3000 = 3900, total 2600. Draws from the sorted originals: a (2700), c (CPU-only,
  // 2700), a (2800), d: 2800 + g=1000 = 3800 <= T so it is taken and the total becomes 4800
  // (k*g = 2000 would have stopped it), then a: 4800 + 100 > T stops the tuning.
  FillOptions o;
  const std::vector<JobSpec> out = FillOrder(FivePods(), 3000, o);
  EXPECT_EQ(Names(out), (std::vector<std::string>{"b", "c", "a", "e", "d", "a-tuned-0",
                                                   "c-tuned-1", "a-tuned-2", "d-tuned-3"}));
  EXPECT_EQ(out[5].id, 5);
  EXPECT_EQ(out[8].id, 8);
  EXPECT_EQ(out[8].gpus, 2);
  EXPECT_EQ(out[8].gpu_milli, 1000);
}

TEST(FillOrderTest, TuneDownRemovesRandomPodsUntilAtOrBelowTheTarget) {
  // T = 1.0 x 2000. From [b c a e d] (2600): remove index 0 = b (2300), then index 2 of
  // [c a e d] = e (2100), then index 1 of [c a d] = a (2000 <= T).
  FillOptions o;
  o.fill = 1.0;
  EXPECT_EQ(Names(FillOrder(FivePods(), 2000, o)), (std::vector<std::string>{"c", "d"}));
}

TEST(FillOrderTest, FileOrderDoesNotMatter) {
  Trace reversed = FivePods();
  std::reverse(reversed.jobs.begin(), reversed.jobs.end());
  FillOptions o;
  EXPECT_EQ(Names(FillOrder(reversed, 3000, o)), Names(FillOrder(FivePods(), 3000, o)));
}

TEST(FillOrderTest, SameSeedSameOrderDifferentSeedDifferentOrder) {
  Trace t;
  for (int i = 0; i < 20; ++i) {
    t.jobs.push_back(TraceJob{Pod(i, "p" + std::to_string(100 + i), 1, 500),
                              kSecond});
  }
  FillOptions a, b;
  b.seed = 7;
  EXPECT_EQ(Names(FillOrder(t, 10000, a)), Names(FillOrder(t, 10000, a)));
  EXPECT_NE(Names(FillOrder(t, 10000, a)), Names(FillOrder(t, 10000, b)));
  EXPECT_EQ(FillOrder(t, 10000, b).size(), 26u);  // 10000 + 6 x 500 = 13000 = T
}

TEST(FillRoundingTest, HalvesGoToEven) {
  EXPECT_EQ(RoundHalfEven(84.5), 84);
  EXPECT_EQ(RoundHalfEven(85.5), 86);
  EXPECT_EQ(RoundHalfEven(12.5), 12);
  EXPECT_EQ(RoundHalfEven(12.51), 13);
  EXPECT_EQ(Round2(0.125), 0.12);  // exact tie: even
  EXPECT_EQ(Round2(0.375), 0.38);
  EXPECT_EQ(Round2(2.675), 2.67);  // the double is just below 2.675, as in Python
  EXPECT_EQ(Round2(33.333333), 33.33);
}

TEST(FillColumnTest, ExactBucketElseTheWindowAroundIt) {
  const std::vector<std::pair<int, double>> ev = {{128, 99.0}, {129, 40.0}, {130, 50.0},
                                                  {131, 60.0}, {140, 1.0}, {142, 2.0},
                                                  {142, 4.0}};
  EXPECT_EQ(ColumnAt(ev, 130), 50.0);
  EXPECT_EQ(ColumnAt(ev, 132), 60.0);   // only 131 in [131, 133]
  EXPECT_EQ(ColumnAt(ev, 127), 99.0);   // only 128 in [126, 128]
  EXPECT_EQ(ColumnAt(ev, 141), 2.33);   // mean(1, 2, 4) = 2.333...
  EXPECT_EQ(ColumnAt(ev, 142), 3.0);
  EXPECT_EQ(ColumnAt(ev, 135), std::nullopt);
}

TEST(RunFillTest, CountsFailuresAndKeepsArrivalGrowing) {
  // Two nodes with one GPU each: 2000 milli, r = round(arrived / 2 / 10).
  //   pod      placed on  used  A     arrived  r
  //   1 x 600  n0         600   30    600      30
  //   1 x 600  n1         1200  60    1200     60
  //   1 x 500  fails      1200  60    1700     85
  //   CPU-only n0         1200  60    1700     85
  //   2 x 1000 fails      1200  60    3700     185
  //   1 x 400  n0         1600  80    4100     205
  //   1 x 300  n1         1900  95    4400     220
  //   1 x 100  n1         2000  100   4500     225
  const std::vector<JobSpec> pods = {Pod(0, "a", 1, 600),  Pod(1, "b", 1, 600),
                                     Pod(2, "c", 1, 500),  Pod(3, "d", 0, 0),
                                     Pod(4, "e", 2, 1000), Pod(5, "f", 1, 400),
                                     Pod(6, "g", 1, 300),  Pod(7, "h", 1, 100)};
  FillOptions o;
  o.report_at = {30, 60, 85, 86, 100, 205, 221, 225};
  const FillResult r = RunFill(pods, OneGpuNodes(2), FirstFit, o);
  EXPECT_EQ(r.pods_tried, 8);
  EXPECT_EQ(r.pods_failed, 2);
  EXPECT_EQ(r.final_alloc, 100.0);
  const std::map<int, double> want = {{30, 30.0},  {60, 60.0},  {85, 60.0},  {86, 60.0},
                                      {205, 80.0}, {221, 95.0}, {225, 100.0}};
  EXPECT_EQ(r.alloc_at, want);  // 100: nothing in [99, 101]; 221: only 220 in [220, 222]
  EXPECT_TRUE(r.frag_at.empty());
}

TEST(RunFillTest, ArrivalBucketRoundsHalfToEven) {
  // 1 x 250: arrived 250 -> 12.5 -> r = 12, A = 12.5; 1 x 30: 280 -> 14, A = 14. Column 13 has
  // no event of its own (half-up would have put the first there) and averages 12 and 14.
  const std::vector<JobSpec> pods = {Pod(0, "a", 1, 250), Pod(1, "b", 1, 30)};
  FillOptions o;
  o.report_at = {12, 13, 14};
  const FillResult r = RunFill(pods, OneGpuNodes(2), FirstFit, o);
  const std::map<int, double> want = {{12, 12.5}, {13, 13.25}, {14, 14.0}};
  EXPECT_EQ(r.alloc_at, want);
}

TEST(RunFillTest, AveragesTheMeasureLikeTheAllocation) {
  // Measure: free milli in % of capacity, 100 - A: 70 after the first pod, 40 after the second.
  const std::vector<JobSpec> pods = {Pod(0, "a", 1, 600), Pod(1, "b", 1, 600)};
  FillOptions o;
  o.report_at = {30, 60};
  const FillResult r = RunFill(pods, OneGpuNodes(2), FirstFit, o, [](const ClusterState& c) {
    return 100.0 * static_cast<double>(c.FreeMilli()) / (1000.0 * c.TotalGpus());
  });
  const std::map<int, double> want = {{30, 70.0}, {60, 40.0}};
  EXPECT_EQ(r.frag_at, want);
}

TEST(RunFillTest, OrderFromFillOrderRunsEndToEnd) {
  // [b c a e d a c a d] on 3 one-GPU nodes: b n0 (300), c, a n0 (400), e n0 (600), d fails
  // (2 GPUs on one node), a n0 (700), c, a n0 (800), d fails. used 800 of 3000.
  FillOptions o;
  const FillResult r = RunFill(FillOrder(FivePods(), 3000, o), OneGpuNodes(3), FirstFit, o);
  EXPECT_EQ(r.pods_tried, 9);
  EXPECT_EQ(r.pods_failed, 2);
  EXPECT_DOUBLE_EQ(r.final_alloc, 100.0 * 800 / 3000);
}

}  // namespace
}  // namespace squeeze
