#include "sim/report.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/testing/scenario.h"
#include "sim/metrics.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;
using testing::Cluster;

JobRecord Record(JobId id, int pool) {
  JobRecord r;
  r.id = id;
  r.pool = pool;
  r.gpus = 1;
  r.end = 100 * kSecond;
  r.duration = 100 * kSecond;
  return r;
}

// Two pools; job 1 of pool a, job 2 of any pool; 2 GPU-hours blocked by fragmentation in a,
// half a GPU-hour in the any-pool scope.
PolicyRun FragmentedRun(const ClusterSpec& cluster) {
  SimResult r;
  r.policy = "fifo";
  r.jobs = {Record(1, 0), Record(2, -1)};
  r.total_gpus = 8;
  r.makespan = 100 * kSecond;
  r.frag_blocked_gpu_s = 2.5 * 3600;
  r.frag_blocked_gpu_s_by_scope = {2 * 3600, 0, 0.5 * 3600};
  Summary s = Summarize(r, cluster);
  return {std::move(r), std::move(s)};
}

TEST(ReportTest, SummaryHasFragmentationBlockedGpuHoursInAllAndPerPool) {
  const ClusterSpec cluster = Cluster({{"a", 1, 4}, {"b", 1, 4}});
  const Summary s = FragmentedRun(cluster).summary;
  EXPECT_DOUBLE_EQ(s.frag_blocked_gpu_hours, 2.5);
  ASSERT_EQ(s.per_pool.size(), 2u);  // b ran no job: no entry
  EXPECT_DOUBLE_EQ(s.per_pool.at("a").frag_blocked_gpu_hours, 2.0);
  EXPECT_DOUBLE_EQ(s.per_pool.at("*").frag_blocked_gpu_hours, 0.5);
}

TEST(ReportTest, JsonCarriesFragmentationBlockedGpuHoursAfterLostGpuHours) {
  const ClusterSpec cluster = Cluster({{"a", 1, 4}, {"b", 1, 4}});
  const auto doc = nlohmann::ordered_json::parse(
      FormatJson({FragmentedRun(cluster)}, "trace.csv", "cluster.yaml"));
  const auto& result = doc["results"][0];
  EXPECT_DOUBLE_EQ(result["frag_blocked_gpu_hours"].get<double>(), 2.5);
  std::vector<std::string> keys;
  for (const auto& [key, value] : result.items()) keys.push_back(key);
  auto lost = std::find(keys.begin(), keys.end(), "lost_gpu_hours");
  ASSERT_NE(lost, keys.end());
  EXPECT_EQ(*(lost + 1), "frag_blocked_gpu_hours");
  EXPECT_DOUBLE_EQ(result["per_pool"]["a"]["frag_blocked_gpu_hours"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(result["per_pool"]["*"]["frag_blocked_gpu_hours"].get<double>(), 0.5);
}

TEST(ReportTest, CostIsGpuHoursHeldTimesEachPoolsPrice) {
  ClusterSpec cluster = Cluster({{"a", 1, 4}, {"b", 1, 4}});
  cluster.pools[0].price_per_gpu_hour = 2.5;
  cluster.pools[1].price_per_gpu_hour = 0.8;
  PolicyRun run = FragmentedRun(cluster);
  run.result.pool_gpu_s = {3 * 3600, 0.5 * 3600};  // 3 GPU-hours held on a, 0.5 on b
  run.summary = Summarize(run.result, cluster);
  EXPECT_DOUBLE_EQ(run.summary.pool_use.at("a").gpu_hours, 3);
  EXPECT_DOUBLE_EQ(run.summary.pool_use.at("a").cost, 7.5);
  EXPECT_DOUBLE_EQ(run.summary.pool_use.at("b").cost, 0.4);
  EXPECT_DOUBLE_EQ(run.summary.cost, 7.9);
  const auto doc = nlohmann::ordered_json::parse(FormatJson({run}, "trace.csv", "cluster.yaml"));
  EXPECT_DOUBLE_EQ(doc["results"][0]["cost"].get<double>(), 7.9);
  EXPECT_DOUBLE_EQ(doc["results"][0]["pool_use"]["b"]["gpu_hours"].get<double>(), 0.5);
  EXPECT_THAT(FormatTable({run}), HasSubstr("fifo: GPU cost 7.90 (a 7.50, b 0.40)\n"));
}

TEST(ReportTest, AMonthlyCostIsProratedOverTheMakespan) {
  ClusterSpec cluster = Cluster({{"a", 1, 4}, {"b", 1, 4}});
  cluster.pools[0].price_per_gpu_hour = 1;
  cluster.pools[1].monthly_cost = 3000;  // 100 a day
  PolicyRun run = FragmentedRun(cluster);
  run.result.makespan = 3 * kDay;
  run.result.pool_gpu_s = {2 * 3600, 10 * 3600};
  run.summary = Summarize(run.result, cluster);
  const PoolUse& b = run.summary.pool_use.at("b");
  EXPECT_DOUBLE_EQ(b.usage_cost, 0);
  EXPECT_DOUBLE_EQ(b.fixed_cost, 300);  // 3 days of 100, used or not
  EXPECT_DOUBLE_EQ(b.cost, 300);
  EXPECT_DOUBLE_EQ(run.summary.pool_use.at("a").cost, 2);
  EXPECT_DOUBLE_EQ(run.summary.cost, 302);
  const auto doc = nlohmann::ordered_json::parse(FormatJson({run}, "trace.csv", "cluster.yaml"));
  EXPECT_DOUBLE_EQ(doc["results"][0]["pool_use"]["b"]["fixed_cost"].get<double>(), 300);
}

TEST(ReportTest, TableHasAFragmentationColumn) {
  const ClusterSpec cluster = Cluster({{"a", 1, 4}, {"b", 1, 4}});
  const std::string table = FormatTable({FragmentedRun(cluster)});
  EXPECT_THAT(table, HasSubstr("lost_gpuh frag_gpuh  wall_s\n"));
  EXPECT_THAT(table, HasSubstr("      0.0       2.5    0.00\n"));
}

TEST(ReportTest, ShortDurationsKeepTwoUnitsAndRoundTheSmaller) {
  EXPECT_EQ(ShortDuration(0), "0s");
  EXPECT_EQ(ShortDuration(3.84), "3.8s");
  EXPECT_EQ(ShortDuration(45.2), "45s");
  EXPECT_EQ(ShortDuration(59.7), "1m00s");
  EXPECT_EQ(ShortDuration(1497), "24m57s");
  EXPECT_EQ(ShortDuration(3599.6), "1h00m");
  EXPECT_EQ(ShortDuration(16559), "4h36m");
  EXPECT_EQ(ShortDuration(172011), "2d00h");  // 47.8 hours
  EXPECT_EQ(ShortDuration(170000), "1d23h");
  EXPECT_EQ(ShortDuration(40 * 86400 + 5 * 3600), "40d05h");
  EXPECT_EQ(ShortDuration(-90), "-1m30s");
}

TEST(ReportTest, TableTimesAreShortDurationsOrSecondsOnRequest) {
  const ClusterSpec cluster = Cluster({{"a", 1, 4}, {"b", 1, 4}});
  PolicyRun run = FragmentedRun(cluster);
  run.summary.avg_queue_s = 1497;
  run.summary.p95_queue_s = 2592;
  run.summary.avg_jct_s = 12978;
  run.summary.per_pool.at("a").avg_queue_s = 605;
  const std::string human = FormatTable({run});
  EXPECT_THAT(human, HasSubstr(" 24m57s "));
  EXPECT_THAT(human, HasSubstr(" 43m12s "));
  EXPECT_THAT(human, HasSubstr(" 3h36m "));
  EXPECT_THAT(human, HasSubstr(" 10m05s / "));
  const std::string seconds = FormatTable({run}, true);
  EXPECT_THAT(seconds, HasSubstr(" 1497 "));
  EXPECT_THAT(seconds, HasSubstr(" 2592 "));
  EXPECT_THAT(seconds, HasSubstr(" 12978 "));
  EXPECT_THAT(seconds, HasSubstr(" 605 / "));
  EXPECT_THAT(seconds, ::testing::Not(HasSubstr("24m57s")));
}

}  // namespace
}  // namespace squeeze
