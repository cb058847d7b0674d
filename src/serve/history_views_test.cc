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
      Event(1, 100 * kSecond, "submit"),
      Event(2, 120 * kSecond, "submit"),
      Event(1, 160 * kSecond, "start", "attempt 1 on GPUs [0,1] in pool owned"),
      // A store from before pools were named.
      Event(2, 200 * kSecond, "start", "attempt 1 on GPUs [3]"),
      Event(1, 400 * kSecond, "exit", "exit 0"),
      Event(1, 400 * kSecond, "end", "preempted"),
      Event(2, 450 * kSecond, "end", "done"),
      Event(1, 500 * kSecond, "start", "attempt 2 on GPUs [4,5,6,7] in pool spot"),
  };
  const std::vector<RunSpan> runs = RunSpansFromEvents(events, 1000 * kSecond);
  EXPECT_EQ(runs, (std::vector<RunSpan>{{1, 160 * kSecond, 400 * kSecond, 2, "owned", kMinute},
                                        {2, 200 * kSecond, 450 * kSecond, 1, "", 80 * kSecond},
                                        {1, 500 * kSecond, 1000 * kSecond, 4, "spot",
                                         100 * kSecond}}));
}

TEST(HistoryJsonTest, StartsWaitsBusyGpusAndUtilizationPerStep) {
  const HistoryRange range{0, 2 * kHour, kHour};
  const std::vector<RunSpan> runs = {{1, 30 * kMinute, 90 * kMinute, 2, "a", 10 * kMinute},
                                     {2, 2000 * kSecond, 2600 * kSecond, 1, "a", 200 * kSecond},
                                     {3, -500 * kSecond, 100 * kSecond, 4, "a", 0}};
  std::vector<GpuSample> samples(2);
  samples[0] = {10 * kSecond, "n0", 0, 0.5};
  samples[1] = {20 * kSecond, "n0", 1, 0.7};
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
  const HistoryRange range{0, 30 * kDay, kHour};
  const std::vector<RunSpan> runs = {{1, 0, kHour, 2, "owned", 0},
                                     {2, 0, 2 * kHour, 1, "spot", 0},
                                     {3, 0, kHour, 1, "gone", 0},
                                     {4, -kHour, 30 * kMinute, 2, "spot", 0}};
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
  auto r = ParseHistoryRange({}, 100000 * kSecond, 2 * kHour);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->to, 100001 * kSecond);  // exclusive, so the current second counts
  EXPECT_EQ(r->from, 90000 * kSecond);  // 100000 - 7200 = 92800, down to a whole hour
  EXPECT_EQ(r->step, kHour);
  auto halves = ParseHistoryRange({{"since", "1d"}, {"step", "30m"}}, 10 * kDay, 0);
  ASSERT_TRUE(halves.ok());
  EXPECT_EQ(halves->from, 9 * kDay);
  EXPECT_EQ(halves->step, 30 * kMinute);
  auto since = ParseHistoryRange({{"since", "soon"}}, 100000 * kSecond, 2 * kHour);
  ASSERT_FALSE(since.ok());
  EXPECT_NE(since.status().message().find("since: 'soon'"), std::string::npos);
  auto step = ParseHistoryRange({{"step", "10s"}}, 100000 * kSecond, 2 * kHour);
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.status().message().find("step: '10s'"), std::string::npos);
  auto many = ParseHistoryRange({{"since", "400d"}, {"step", "1m"}}, 100000000 * kSecond, 0);
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("more than 2000 points"), std::string::npos);
}

TEST(HistoryRangeTest, SinceAloneForViewsNotDrawnOverTime) {
  auto since = ParseSince({{"since", "400d"}}, 0);  // no step: no limit on the points
  ASSERT_TRUE(since.ok());
  EXPECT_EQ(*since, 400 * kDay);
  EXPECT_EQ(*ParseSince({}, kHour), kHour);
  EXPECT_FALSE(ParseSince({{"since", "-1h"}}, kHour).ok());
  const HistoryRange r = RangeSince(100000 * kSecond, 3000 * kSecond);
  EXPECT_EQ(r.from, 97001 * kSecond);  // `since` long, ending with the current second; not rounded
  EXPECT_EQ(r.to, 100001 * kSecond);
}

TEST(IdleWindowsJsonTest, HeatmapPerGpuAndTheWindowsAsText) {
  // Two weeks from Monday 2026-11-02 00:00 UTC; GPU 0 idle Mon 01:00-03:00, busy otherwise.
  const Time monday = Seconds(1793577600);
  std::vector<GpuSample> samples;
  for (int week = 0; week < 2; ++week) {
    for (int h = 0; h < 24; ++h) {
      const Time t = monday + week * kWeek + h * kHour;
      samples.push_back({t, "n0", 0, (h == 1 || h == 2) ? 0.0 : 0.9, std::nullopt, kHour});
    }
  }
  auto a = AnalyseIdle(samples, IdleOptions{}, {{"n0", "owned"}});
  ASSERT_TRUE(a.ok()) << a.status().message();
  const nlohmann::json j = IdleWindowsJson(*a, monday, monday + 2 * kWeek);
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
  EXPECT_EQ(j["windows_zone"], "UTC");
  // In a zone 5:30 east (to the nearest hour, 6) and one 3 hours west (into Sunday).
  const nlohmann::json east = IdleWindowsJson(*a, monday, monday + 2 * kWeek, 330);
  EXPECT_NE(east["windows"][0]["text"].get<std::string>().find("Mon 07:00-09:00"), std::string::npos)
      << east["windows"].dump();
  EXPECT_EQ(east["windows_zone"], "UTC+05:30, to the nearest hour");
  EXPECT_EQ(east["gpus"][0]["idle_share"], share);  // the heatmap stays in UTC
  const nlohmann::json west = IdleWindowsJson(*a, monday, monday + 2 * kWeek, -180);
  EXPECT_NE(west["windows"][0]["text"].get<std::string>().find("Sun 22:00-24:00"), std::string::npos)
      << west["windows"].dump();
  EXPECT_EQ(west["windows_zone"], "UTC-03:00");
}

}  // namespace
}  // namespace squeeze
