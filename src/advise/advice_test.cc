#include "advise/advice.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "advise/advise_report.h"
#include "config/cluster_file.h"

namespace squeeze {
namespace {

// The hand case of reserve_split_test.cc (u_k x 730 h = 730, 730, 600, 100, 100; R = 1,000,
// P = 2.00) with 1 owned GPU, plus a spot pool.
History ThreeJobs() {
  History h;
  h.source = "hand.csv";
  for (auto [gpus, from, to] : {std::tuple{2, 0, 730}, {1, 0, 600}, {2, 100, 200}}) {
    HistoryJob j;
    j.gpus = gpus;
    j.start = j.submit = from * kHour;
    j.end = to * kHour;
    j.checkpointable = true;
    j.restart_overhead = 30 * kSecond;
    h.jobs.push_back(j);
  }
  return h;
}

ClusterSpec Parse(const std::string& yaml) {
  auto c = ParseClusterYaml(yaml, "c.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

const char* kPriced = R"(pools:
  - {name: own, kind: owned, nodes: [{count: 1, gpus: 1}]}
  - {name: res, kind: reserved, monthly_cost: 2000, nodes: [{count: 1, gpus: 2}]}
  - {name: od, kind: on-demand, price_per_gpu_hour: 2}
  - {name: sp, kind: spot, price_per_gpu_hour: 0.6, spot: {warning: 30s, mean_reclaim_interval: 6h}}
)";

TEST(AdviceTest, AllPartsAnsweredAndTheJsonAddsUp) {
  const Advice a = BuildAdvice(ThreeJobs(), "c.yaml", Parse(kPriced), SpotRules{});
  ASSERT_TRUE(a.split);
  ASSERT_TRUE(a.spot);
  EXPECT_EQ(a.split->reserved, 2);
  EXPECT_NEAR(a.split->cost_split, 2400, 1e-9);
  EXPECT_NEAR(a.months, 1, 1e-12);
  auto j = nlohmann::json::parse(FormatAdviceJson(a));
  const auto& s = j["reserve_split"];
  EXPECT_NEAR(s["cost_split_per_month"].get<double>(),
              s["reserved_gpus"].get<int>() * s["reserved_per_gpu_month"].get<double>() +
                  s["on_demand_gpu_hours_per_month"].get<double>() *
                      s["on_demand_per_gpu_hour"].get<double>(),
              1e-6);
  EXPECT_EQ(j["spot"]["classes"].size(), 2u);  // 1 GPU, >12h and 2-8 GPUs, >12h
  EXPECT_TRUE(j["prices"]["skipped"].empty());
}

TEST(AdviceTest, MissingKindsSkipTheirPartsAndSaySo) {
  const Advice a = BuildAdvice(ThreeJobs(), "c.yaml", Parse(R"(pools:
  - {name: own, kind: owned, nodes: [{count: 1, gpus: 1}]}
  - {name: od, kind: on-demand, price_per_gpu_hour: 2}
)"), SpotRules{});
  EXPECT_FALSE(a.split);
  EXPECT_FALSE(a.spot);
  const std::string text = FormatAdviceText(a);
  EXPECT_NE(text.find("Skipped: no pool of kind reserved: the reserve vs on-demand split is "
                      "skipped."), std::string::npos) << text;
  EXPECT_NE(text.find("Skipped: no pool of kind spot: the spot advice is skipped."),
            std::string::npos) << text;
  EXPECT_NE(text.find("on-demand: one region (default), nothing to choose."), std::string::npos)
      << text;
  auto j = nlohmann::json::parse(FormatAdviceJson(a));
  EXPECT_TRUE(j["reserve_split"].is_null());
  EXPECT_TRUE(j["spot"].is_null());
}

TEST(AdviceTest, ReportsCarryTheAdviceAndThePlots) {
  Advice a = BuildAdvice(ThreeJobs(), "c.yaml", Parse(kPriced), SpotRules{});
  a.policy = "squeeze";
  WhatIfOutcome base, more;
  base.label = "as is";
  base.summary.avg_queue_s = 100;
  more.label = "spot+16";
  more.description = "16 more GPUs in pool sp (spot)";
  more.summary.avg_queue_s = 40;
  more.cost_per_month = 1234;
  a.what_ifs = {base, more};
  const std::string text = FormatAdviceText(a);
  EXPECT_NE(text.find("Advice: reserve 2 GPUs and rent the rest on demand (up to 2 at the peak)."),
            std::string::npos) << text;
  EXPECT_NE(text.find("16 more GPUs in pool sp (spot): mean wait 100 s -> 40 s"),
            std::string::npos) << text;
  const std::string md = FormatAdviceMarkdown(a);
  EXPECT_NE(md.find("## Reserve vs on demand"), std::string::npos);
  EXPECT_NE(md.find("| split (advice) |"), std::string::npos) << md;
  const std::string html = FormatAdviceHtml(a);
  EXPECT_NE(html.find("class=\"load-curve\""), std::string::npos);
  EXPECT_NE(html.find("class=\"break-even\""), std::string::npos);
  EXPECT_NE(html.find("class=\"wait-bar\""), std::string::npos);
  EXPECT_NE(html.find("break-even 500 h a month"), std::string::npos);
}

// ThreeJobs spans a month but has 3 jobs; a month of 200 jobs has no warning; 200 jobs in 6 h
// and 28 jobs of no span each get theirs, saying how long the history spans.
TEST(AdviceTest, ShortHistoryIsWarnedAboutWithItsSpan) {
  const Advice few = BuildAdvice(ThreeJobs(), "c.yaml", Parse(kPriced), SpotRules{});
  ASSERT_EQ(few.warnings.size(), 1u);
  EXPECT_EQ(few.warnings[0],
            "the history is short: 3 jobs spanning 30d10h (30.42 days) (fewer than 100 jobs). "
            "The per-month figures extrapolate it to a month of 730 hours and may be far off; "
            "give a history of weeks and hundreds of jobs");
  const std::string text = FormatAdviceText(few);
  EXPECT_NE(text.find("Warning: the history is short: 3 jobs spanning 30d10h"), std::string::npos)
      << text;
  auto j = nlohmann::json::parse(FormatAdviceJson(few));
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_EQ(j["warnings"][0], few.warnings[0]);
  EXPECT_NE(FormatAdviceMarkdown(few).find("Warning: the history is short"), std::string::npos);
  EXPECT_NE(FormatAdviceHtml(few).find("Warning: the history is short"), std::string::npos);

  EXPECT_TRUE(ShortHistoryWarnings(200, 30 * 24 * kHour).empty());
  EXPECT_TRUE(ShortHistoryWarnings(kFewHistoryJobs, kShortHistorySpan).empty());
  auto brief = ShortHistoryWarnings(200, 6 * kHour);
  ASSERT_EQ(brief.size(), 1u);
  EXPECT_NE(brief[0].find("200 jobs spanning 6h (0.25 days) (less than a day)"),
            std::string::npos) << brief[0];
  auto none = ShortHistoryWarnings(28, 0);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_NE(none[0].find("28 jobs spanning 0s (0.00 days) (fewer than 100 jobs and less than a "
                         "day)"), std::string::npos) << none[0];
  auto clean = nlohmann::json::parse(FormatAdviceJson(Advice{}));
  EXPECT_TRUE(clean["warnings"].is_array() && clean["warnings"].empty());
}

}  // namespace
}  // namespace squeeze
