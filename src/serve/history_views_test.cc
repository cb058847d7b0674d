#include "serve/history_views.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

JobEvent Event(JobId job, Time at, const std::string& kind, const std::string& text = "") {
  static int64_t seq = 0;
  return {++seq, job, at, kind, text};
}

TEST(RunSpansTest, RunsWithTheirGpusPoolAndWait) {
  const std::vector<JobEvent> events = {
      Event(1, 100, "submit"),
      Event(2, 120, "submit"),
      Event(1, 160, "start", "attempt 1 on GPUs [0,1] in pool owned"),
      Event(2, 200, "start", "attempt 1 on GPUs [3]"),  // a store from before pools were named
      Event(1, 400, "exit", "exit 0"),
      Event(1, 400, "end", "preempted"),
      Event(2, 450, "end", "done"),
      Event(1, 500, "start", "attempt 2 on GPUs [4,5,6,7] in pool spot"),
  };
  const std::vector<RunSpan> runs = RunSpansFromEvents(events, 1000);
  EXPECT_EQ(runs, (std::vector<RunSpan>{{1, 160, 400, 2, "owned", 60},
                                        {2, 200, 450, 1, "", 80},
                                        {1, 500, 1000, 4, "spot", 100}}));
}

TEST(HistoryJsonTest, StartsWaitsBusyGpusAndUtilizationPerStep) {
  const HistoryRange range{0, 7200, 3600};
  const std::vector<RunSpan> runs = {{1, 1800, 5400, 2, "a", 600}, {2, 2000, 2600, 1, "a", 200},
                                     {3, -500, 100, 4, "a", 0}};
  std::vector<GpuSample> samples(2);
  samples[0] = {10, "n0", 0, 0.5};
  samples[1] = {20, "n0", 1, 0.7};
  const nlohmann::json j = HistoryJson(runs, samples, range, 8);
  ASSERT_EQ(j["points"].size(), 2u);
  const nlohmann::json& p0 = j["points"][0];
  EXPECT_EQ(p0["time"], 0);
  EXPECT_EQ(p0["jobs_started"], 2);
  EXPECT_DOUBLE_EQ(p0["mean_wait_s"].get<double>(), 400);
  EXPECT_EQ(p0["gpus"], 8);
  // 2 GPUs for 1800 s, 1 for 600 s, 4 for 100 s, over 3600 s.
  EXPECT_DOUBLE_EQ(p0["gpus_busy"].get<double>(), (3600.0 + 600 + 400) / 3600);
  EXPECT_DOUBLE_EQ(p0["utilization"].get<double>(), 60);
  const nlohmann::json& p1 = j["points"][1];
  EXPECT_EQ(p1["jobs_started"], 0);
  EXPECT_TRUE(p1["mean_wait_s"].is_null());
  EXPECT_DOUBLE_EQ(p1["gpus_busy"].get<double>(), 1.0);
  EXPECT_TRUE(p1["utilization"].is_null());
}

TEST(CostJsonTest, GpuHoursTimesPricePlusTheProratedMonthlyCost) {
  const HistoryRange range{0, 30 * 86400, 3600};
  const std::vector<RunSpan> runs = {{1, 0, 3600, 2, "owned", 0},
                                     {2, 0, 7200, 1, "spot", 0},
                                     {3, 0, 3600, 1, "gone", 0},
                                     {4, -3600, 1800, 2, "spot", 0}};
  const std::vector<PoolPrice> pools = {{"owned", "owned", 0, 720}, {"spot", "spot", 0.5, 0},
                                        {"idle", "owned", 3, 0}};
  const nlohmann::json j = CostJson(runs, pools, range);
  ASSERT_EQ(j["pools"].size(), 4u);
  EXPECT_EQ(j["pools"][0]["pool"], "owned");
  EXPECT_DOUBLE_EQ(j["pools"][0]["gpu_hours"].get<double>(), 2);
  EXPECT_DOUBLE_EQ(j["pools"][0]["cost"].get<double>(), 720);  // a whole month of it
  EXPECT_DOUBLE_EQ(j["pools"][1]["gpu_hours"].get<double>(), 3);  // 2 h + the 2 GPUs' 30 min
  EXPECT_DOUBLE_EQ(j["pools"][1]["cost"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j["pools"][2]["cost"].get<double>(), 0);
  EXPECT_EQ(j["pools"][3]["pool"], "gone");
  EXPECT_EQ(j["pools"][3]["kind"], "unknown");
  EXPECT_DOUBLE_EQ(j["total_cost"].get<double>(), 721.5);
}

TEST(HistoryRangeTest, DefaultsRoundingAndErrorsThatNameTheField) {
  auto r = ParseHistoryRange({}, 100000, 7200);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->to, 100001);  // exclusive, so the current second counts
  EXPECT_EQ(r->from, 90000);  // 100000 - 7200 = 92800, down to a whole hour
  EXPECT_EQ(r->step, 3600);
  auto halves = ParseHistoryRange({{"since", "1d"}, {"step", "30m"}}, 86400 * 10, 0);
  ASSERT_TRUE(halves.ok());
  EXPECT_EQ(halves->from, 86400 * 9);
  EXPECT_EQ(halves->step, 1800);
  auto since = ParseHistoryRange({{"since", "soon"}}, 100000, 7200);
  ASSERT_FALSE(since.ok());
  EXPECT_NE(since.status().message().find("since: 'soon'"), std::string::npos);
  auto step = ParseHistoryRange({{"step", "10s"}}, 100000, 7200);
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.status().message().find("step: '10s'"), std::string::npos);
  auto many = ParseHistoryRange({{"since", "400d"}, {"step", "1m"}}, 100000000, 0);
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("more than 2000 points"), std::string::npos);
}

TEST(HistoryRangeTest, SinceAloneForViewsNotDrawnOverTime) {
  auto since = ParseSince({{"since", "400d"}}, 0);  // no step: no limit on the points
  ASSERT_TRUE(since.ok());
  EXPECT_EQ(*since, 400 * 86400);
  EXPECT_EQ(*ParseSince({}, 3600), 3600);
  EXPECT_FALSE(ParseSince({{"since", "-1h"}}, 3600).ok());
  const HistoryRange r = RangeSince(100000, 3000);
  EXPECT_EQ(r.from, 97001);  // `since` long, ending with the current second; not rounded
  EXPECT_EQ(r.to, 100001);
}

TEST(IdleWindowsJsonTest, HeatmapPerGpuAndTheWindowsAsText) {
  // Two weeks from Monday 2026-11-02 00:00 UTC; GPU 0 idle Mon 01:00-03:00, busy otherwise.
  const Time monday = 1793577600;
  std::vector<GpuSample> samples;
  for (int week = 0; week < 2; ++week) {
    for (int h = 0; h < 24; ++h) {
      const Time t = monday + week * kSecondsPerWeek + h * 3600;
      samples.push_back({t, "n0", 0, (h == 1 || h == 2) ? 0.0 : 0.9, std::nullopt, 3600});
    }
  }
  auto a = AnalyseIdle(samples, IdleOptions{}, {{"n0", "owned"}});
  ASSERT_TRUE(a.ok()) << a.status().message();
  const nlohmann::json j = IdleWindowsJson(*a, monday, monday + 2 * kSecondsPerWeek);
  ASSERT_EQ(j["gpus"].size(), 1u);
  EXPECT_EQ(j["gpus"][0]["pool"], "owned");
  const nlohmann::json& share = j["gpus"][0]["idle_share"];
  ASSERT_EQ(share.size(), 168u);
  EXPECT_DOUBLE_EQ(share[1].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(share[0].get<double>(), 0.0);
  EXPECT_TRUE(share[30].is_null());  // Tuesday was never sampled
  ASSERT_FALSE(j["windows"].empty());
  EXPECT_NE(j["windows"][0]["text"].get<std::string>().find("Mon 01:00-03:00"), std::string::npos)
      << j["windows"].dump();
}

}  // namespace
}  // namespace squeeze
