#include "advise/reserve_split.h"

#include <gtest/gtest.h>

#include "advise/load_curve.h"
#include "advise/price_sheet.h"
#include "config/cluster_file.h"

namespace squeeze {
namespace {

HistoryJob Job(int gpus, Time from_h, Time to_h) {
  HistoryJob j;
  j.gpus = gpus;
  j.submit = j.start = from_h * kHour;
  j.end = to_h * kHour;
  return j;
}

// One month (730 h) of three jobs, each started when submitted:
//   A: 2 GPUs, 0-730 h;  B: 1 GPU, 0-600 h;  C: 2 GPUs, 100-200 h.
// Demand: 3 GPUs in [0,100), 5 in [100,200), 3 in [200,600), 2 in [600,730).
// At least k busy: k=1: 730 h, k=2: 730 h, k=3: 600 h, k=4: 100 h, k=5: 100 h (peak 5), so
// u_k x 730 h = 730, 730, 600, 100, 100 hours a month.
std::vector<HistoryJob> ThreeJobs() { return {Job(2, 0, 730), Job(1, 0, 600), Job(2, 100, 200)}; }

TEST(LoadCurveTest, HandCase) {
  const LoadDurationCurve c = BuildLoadDurationCurve(ThreeJobs());
  ASSERT_EQ(c.Peak(), 5);
  EXPECT_EQ(c.Span(), 730 * kHour);
  EXPECT_DOUBLE_EQ(c.Fraction(1), 1.0);
  EXPECT_DOUBLE_EQ(c.Fraction(2), 1.0);
  EXPECT_DOUBLE_EQ(c.Fraction(3), 600.0 / 730);
  EXPECT_DOUBLE_EQ(c.Fraction(4), 100.0 / 730);
  EXPECT_DOUBLE_EQ(c.Fraction(5), 100.0 / 730);
  EXPECT_DOUBLE_EQ(c.Fraction(6), 0);
  EXPECT_DOUBLE_EQ(c.gpu_seconds, (2 * 730 + 600 + 2 * 100) * 3600.0);  // GPU-seconds
}

TEST(LoadCurveTest, EmptyAndZeroLengthJobs) {
  EXPECT_EQ(BuildLoadDurationCurve({}).Peak(), 0);
  EXPECT_EQ(BuildLoadDurationCurve({Job(4, 5, 5)}).Peak(), 0);
}

// P = 2.00 a GPU-hour, R = 1,000 a GPU-month: break-even h* = 1000 / 2 = 500 h a month.
// No owned GPUs: GPUs 1-3 (730, 730, 600 h >= 500) are reserved; GPUs 4-5 (100 h each) rented.
//   reserved GPU-hours = 730 + 730 + 600 = 2,060; on-demand GPU-hours = 100 + 100 = 200.
//   split = 3 x 1,000 + 200 x 2 = 3,400; all on demand = 2,260 x 2 = 4,520;
//   all reserved (peak) = 5 x 1,000 = 5,000.
TEST(ReserveSplitTest, HandCaseNoOwned) {
  const ReserveSplit s = SplitReservedOnDemand(BuildLoadDurationCurve(ThreeJobs()), 0, 1000, 2);
  EXPECT_DOUBLE_EQ(s.break_even_hours, 500);
  EXPECT_EQ(s.peak, 5);
  EXPECT_EQ(s.reserved, 3);
  EXPECT_EQ(s.on_demand_peak, 2);
  EXPECT_NEAR(s.reserved_gpu_hours, 2060, 1e-9);
  EXPECT_NEAR(s.on_demand_gpu_hours, 200, 1e-9);
  EXPECT_NEAR(s.cost_split, 3400, 1e-9);
  EXPECT_NEAR(s.cost_all_on_demand, 4520, 1e-9);
  EXPECT_NEAR(s.cost_all_reserved, 5000, 1e-9);
  ASSERT_EQ(s.hours_per_month.size(), 5u);
  EXPECT_NEAR(s.hours_per_month[2], 600, 1e-9);
}

// One owned GPU covers GPU 1 (730 h); GPUs 2-3 reserved; 4-5 rented:
//   split = 2 x 1,000 + 200 x 2 = 2,400; all on demand = (730 + 600 + 200) x 2 = 3,060;
//   all reserved = (5 - 1) x 1,000 = 4,000.
TEST(ReserveSplitTest, OwnedGpusComeFirst) {
  const ReserveSplit s = SplitReservedOnDemand(BuildLoadDurationCurve(ThreeJobs()), 1, 1000, 2);
  EXPECT_EQ(s.reserved, 2);
  EXPECT_NEAR(s.owned_gpu_hours, 730, 1e-9);
  EXPECT_NEAR(s.cost_split, 2400, 1e-9);
  EXPECT_NEAR(s.cost_all_on_demand, 3060, 1e-9);
  EXPECT_NEAR(s.cost_all_reserved, 4000, 1e-9);
}

// At R = 2,000 (h* = 1,000 h > 730 h) no GPU is busy enough: all rented.
TEST(ReserveSplitTest, ExpensiveReservationReservesNone) {
  const ReserveSplit s = SplitReservedOnDemand(BuildLoadDurationCurve(ThreeJobs()), 0, 2000, 2);
  EXPECT_EQ(s.reserved, 0);
  EXPECT_NEAR(s.cost_split, s.cost_all_on_demand, 1e-9);
}

TEST(ReserveSplitTest, OwnedCoverThePeak) {
  const ReserveSplit s = SplitReservedOnDemand(BuildLoadDurationCurve(ThreeJobs()), 8, 1000, 2);
  EXPECT_EQ(s.reserved, 0);
  EXPECT_EQ(s.on_demand_peak, 0);
  EXPECT_DOUBLE_EQ(s.cost_split, 0);
  EXPECT_DOUBLE_EQ(s.cost_all_reserved, 0);
}

ClusterSpec Parse(const std::string& yaml) {
  auto c = ParseClusterYaml(yaml, "c.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : ClusterSpec{};
}

// The hand case's prices from a cluster file: 2 reserved GPUs for 2,000 a month (R = 1,000),
// on demand 2.00 in us-east and 1.60 x 1.5 = 2.40 in eu-west: the cheapest, us-east, is P.
TEST(PriceSheetTest, ReadsPricesPerKindAndRegion) {
  const ClusterSpec c = Parse(R"(pools:
  - {name: own, kind: owned, nodes: [{count: 2, gpus: 4}]}
  - {name: res, kind: reserved, monthly_cost: 2000, nodes: [{count: 1, gpus: 2}]}
  - {name: od, kind: on-demand, region: us-east, price_per_gpu_hour: 2}
  - {name: od-eu, kind: on-demand, region: eu-west, price_per_gpu_hour: 1.6}
region_price_factors: {eu-west: 1.5}
)");
  const PriceSheet p = ReadPriceSheet(c);
  EXPECT_EQ(p.owned_gpus, 8);
  ASSERT_TRUE(p.reserved);
  EXPECT_DOUBLE_EQ(p.reserved->per_gpu_month, 1000);
  ASSERT_TRUE(p.on_demand);
  EXPECT_EQ(p.on_demand->pool, "od");
  EXPECT_DOUBLE_EQ(p.on_demand->per_gpu_hour, 2);
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_EQ(p.regions[0].region, "us-east");
  EXPECT_NEAR(p.regions[1].per_gpu_hour, 2.4, 1e-12);
  EXPECT_FALSE(p.spot);
  ASSERT_EQ(p.skipped.size(), 1u);
  EXPECT_EQ(p.skipped[0], "no pool of kind spot: the spot advice is skipped");
}

TEST(PriceSheetTest, UnusablePoolsAreNamedWithTheirValue) {
  const ClusterSpec c = Parse(R"(pools:
  - {name: own, kind: owned, nodes: [{count: 1, gpus: 8}]}
  - {name: res, kind: reserved, monthly_cost: 0, nodes: [{count: 1, gpus: 2}]}
  - {name: od, kind: on-demand, price_per_gpu_hour: 0}
  - {name: sp, kind: spot, price_per_gpu_hour: 1, spot: {warning: 30s, mean_reclaim_interval: 0}}
)");
  const PriceSheet p = ReadPriceSheet(c);
  EXPECT_FALSE(p.reserved);
  EXPECT_FALSE(p.on_demand);
  EXPECT_FALSE(p.spot);
  const std::string all = [&] {
    std::string s;
    for (const auto& m : p.skipped) s += m + "\n";
    return s;
  }();
  EXPECT_NE(all.find("pool 'res' (kind reserved): monthly_cost is 0"), std::string::npos) << all;
  EXPECT_NE(all.find("pool 'od' (kind on-demand): price_per_gpu_hour is 0"), std::string::npos) << all;
  EXPECT_NE(all.find("pool 'sp' (kind spot): spot.mean_reclaim_interval is 0"), std::string::npos) << all;
  EXPECT_NE(all.find("no usable pool of kind reserved: the reserve vs on-demand split is skipped"),
            std::string::npos) << all;
}

}  // namespace
}  // namespace squeeze

namespace squeeze {
namespace {

// Pool a owns 2 GPUs. A: pool a, 3 GPUs, 0-10 h; B: pool a, 1 GPU, 5-10 h; C: no pool, 1 GPU,
// 0-10 h. Left over: [0,5) h: (3 - 2) + 1 = 2 GPUs; [5,10) h: (4 - 2) + 1 = 3 GPUs.
// At least k busy: k=1: 10 h, k=2: 10 h, k=3: 5 h.
TEST(LoadCurveTest, OwnedPoolsServeTheirOwnJobsFirst) {
  HistoryJob a = Job(3, 0, 10), b = Job(1, 5, 10), c = Job(1, 0, 10);
  a.pool = b.pool = "a";
  const LoadDurationCurve all = BuildLoadDurationCurve({a, b, c});
  const LoadDurationCurve left = BuildLoadDurationCurve({a, b, c}, {{"a", 2}});
  EXPECT_EQ(all.Peak(), 5);
  ASSERT_EQ(left.Peak(), 3);
  EXPECT_EQ(left.Span(), 10 * kHour);
  EXPECT_DOUBLE_EQ(left.Fraction(2), 1.0);
  EXPECT_DOUBLE_EQ(left.Fraction(3), 0.5);
  EXPECT_DOUBLE_EQ(left.gpu_seconds, (2 * 5 + 3 * 5) * 3600.0);  // GPU-seconds
  const ReserveSplit s = SplitPastOwnedPools(all, left, 2, 1000, 2);
  EXPECT_TRUE(s.owned_by_pool);
  EXPECT_EQ(s.owned_on_curve, 0);
  EXPECT_EQ(s.peak, 3);
  // 10 h = 1/73 month; owned served (all 45 - left 25) = 20 GPU-hours = 1,460 a month.
  EXPECT_NEAR(s.owned_gpu_hours, 20 * 73.0, 1e-6);
}

}  // namespace
}  // namespace squeeze
