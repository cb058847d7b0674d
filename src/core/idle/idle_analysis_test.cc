#include "core/idle/idle_analysis.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

constexpr Time kMonday = Seconds(1793577600);  // 2026-11-02T00:00:00Z

// One sample every 5 minutes of `hours` hours of week `week` from hour-of-week `start`.
void AddHours(std::vector<GpuSample>& out, const std::string& node, int gpu, int week, int start,
              int hours, double utilization) {
  for (int h = 0; h < hours; ++h) {
    const Time t0 = kMonday + week * kWeek + ((start + h) % kHoursPerWeek) * kHour;
    for (Time t = t0; t < t0 + kHour; t += 5 * kMinute) {
      out.push_back({t, node, gpu, utilization, {}});
    }
  }
}

TEST(HourOfWeekTest, MondayMidnightIsHourZero) {
  EXPECT_EQ(HourOfWeek(kMonday), 0);
  EXPECT_EQ(HourOfWeek(kMonday + kHour - kSecond), 0);
  EXPECT_EQ(HourOfWeek(kMonday + kHour), 1);
  EXPECT_EQ(HourOfWeek(kMonday - kSecond), 167);  // Sunday 23:59:59
  EXPECT_EQ(HourOfWeek(0), 3 * 24);         // 1970-01-01 was a Thursday
  EXPECT_EQ(WeekIndex(kMonday - kSecond) + 1, WeekIndex(kMonday));
  EXPECT_EQ(WeekStart(WeekIndex(kMonday + 100000 * kSecond)), kMonday);
  EXPECT_EQ(IsoTime(kMonday + kHour), "2026-11-02T01:00:00Z");
}

TEST(IdleAnalysisTest, BucketsMeanUtilizationPerHourAndWeek) {
  std::vector<GpuSample> s;
  // Two weeks fully observed; hour 10 idle in both, hour 11 idle in one.
  for (int w = 0; w < 2; ++w) AddHours(s, "n", 0, w, 0, kHoursPerWeek, 0.5);
  for (auto& x : s) {
    const int h = HourOfWeek(x.time);
    if (h == 10 || (h == 11 && x.time < kMonday + kWeek)) x.utilization = 0.02;
  }
  auto a = AnalyseIdle(s, IdleOptions{});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->weeks, 2);
  EXPECT_EQ(a->sample_period, 5 * kMinute);
  const HourProfile& p = a->nodes.at(0).gpus.at(0).profile;
  EXPECT_EQ(p.observed_weeks[10], 2);
  EXPECT_EQ(p.idle_weeks[10], 2);
  EXPECT_EQ(p.idle_weeks[11], 1);
  EXPECT_DOUBLE_EQ(p.Probability(11), 0.5);
  ASSERT_EQ(a->nodes[0].gpus[0].windows.size(), 1u);
  EXPECT_EQ(a->nodes[0].gpus[0].windows[0], (IdleWindow{10, 1, 2, 2}));
}

TEST(IdleAnalysisTest, MeanNotSingleSamplesDecidesAnHour) {
  std::vector<GpuSample> s;
  for (int w = 0; w < 2; ++w) AddHours(s, "n", 0, w, 5, 1, 0.0);
  s[0].utilization = 1.0;  // 1/12 = 0.083 mean: still idle at threshold 0.1
  s[12].utilization = 1.0;
  s[13].utilization = 1.0;  // 2/12 = 0.167: busy
  auto a = AnalyseIdle(s, IdleOptions{});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->nodes[0].gpus[0].profile.idle_weeks[5], 1);
  EXPECT_EQ(a->nodes[0].gpus[0].profile.observed_weeks[5], 2);
}

TEST(IdleAnalysisTest, HourWithTooFewSamplesIsNotObserved) {
  std::vector<GpuSample> s;
  for (int w = 0; w < 2; ++w) AddHours(s, "n", 0, w, 0, 2, 0.0);
  // Keep 5 of the 12 samples of hour 1 in week 1: 25 minutes < half an hour.
  std::erase_if(s, [](const GpuSample& x) {
    return x.time >= kMonday + kWeek + kHour + 5 * 5 * kMinute;
  });
  IdleOptions o;
  o.sample_period = 5 * kMinute;
  auto a = AnalyseIdle(s, o);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->nodes[0].gpus[0].profile.observed_weeks[0], 2);
  EXPECT_EQ(a->nodes[0].gpus[0].profile.observed_weeks[1], 1);
  // Hour 1 has one observed week < min_weeks 2: no window there.
  EXPECT_EQ(a->nodes[0].gpus[0].windows, (std::vector<IdleWindow>{{0, 1, 2, 2}}));
}

TEST(IdleAnalysisTest, WindowWrapsFromSundayToMonday) {
  HourProfile p;
  for (int h = 0; h < kHoursPerWeek; ++h) p.observed_weeks[h] = 4;
  for (int h : {165, 166, 167, 0, 1, 50}) p.idle_weeks[h] = 4;
  p.idle_weeks[2] = 3;  // 0.75 < 0.8
  auto w = FindWindows(p, IdleOptions{});
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], (IdleWindow{50, 1, 4, 4}));
  EXPECT_EQ(w[1], (IdleWindow{165, 5, 4, 4}));
  IdleOptions lower;
  lower.probability = 0.75;
  EXPECT_EQ(FindWindows(p, lower)[1], (IdleWindow{165, 6, 3, 4}));
}

TEST(IdleAnalysisTest, AlwaysIdleIsOneWeekLongWindow) {
  HourProfile p;
  p.observed_weeks.fill(3);
  p.idle_weeks.fill(3);
  EXPECT_EQ(FindWindows(p, IdleOptions{}), (std::vector<IdleWindow>{{0, 168, 3, 3}}));
  IdleOptions o;
  o.min_weeks = 4;
  EXPECT_TRUE(FindWindows(p, o).empty());
}

TEST(IdleAnalysisTest, NodeIsIdleOnlyWhenEveryGpuIs) {
  std::vector<GpuSample> s;
  for (int w = 0; w < 2; ++w) {
    AddHours(s, "n", 0, w, 0, 10, 0.0);
    AddHours(s, "n", 1, w, 0, 4, 0.9);
    AddHours(s, "n", 1, w, 4, 6, 0.0);
  }
  auto a = AnalyseIdle(s, IdleOptions{}, {{"n", "p1"}});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->nodes[0].windows, (std::vector<IdleWindow>{{4, 6, 2, 2}}));
  ASSERT_EQ(a->pools.size(), 1u);
  EXPECT_EQ(a->pools[0].name, "p1");
  EXPECT_EQ(a->pools[0].gpu_count, 2);
  EXPECT_EQ(a->pools[0].windows, a->nodes[0].windows);
  EXPECT_DOUBLE_EQ(a->pools[0].mean_gpu_probability[0], 0.5);
}

TEST(IdleAnalysisTest, ErrorsForBadOptionsNoSamplesAndUnknownNodes) {
  std::vector<GpuSample> s;
  AddHours(s, "n", 0, 0, 0, 1, 0.0);
  EXPECT_FALSE(AnalyseIdle({}, IdleOptions{}).ok());
  IdleOptions o;
  o.probability = 1.5;
  EXPECT_EQ(AnalyseIdle(s, o).status().message(), "probability 1.500000 is out of range (0, 1]");
  EXPECT_EQ(AnalyseIdle(s, IdleOptions{}, {{"m", "p"}}).status().message(),
            "node 'n' of the samples is not in the cluster file");
}

TEST(IdleWindowEndTest, SaysWhenTheWindowHoldingATimeEnds) {
  const std::vector<IdleWindow> windows = {{1, 6, 4, 4}, {166, 4, 4, 4}};
  EXPECT_EQ(IdleWindowEnd(windows, kMonday + kHour + 10 * kSecond), kMonday + 7 * kHour);
  EXPECT_EQ(IdleWindowEnd(windows, kMonday + 7 * kHour - kSecond), kMonday + 7 * kHour);
  EXPECT_EQ(IdleWindowEnd(windows, kMonday + 7 * kHour), std::nullopt);
  // Sunday 22:30 is in the wrapping window, which ends Monday 02:00.
  EXPECT_EQ(IdleWindowEnd(windows, kMonday + kWeek - 90 * kMinute), kMonday + kWeek + 2 * kHour);
}

}  // namespace
}  // namespace squeeze
