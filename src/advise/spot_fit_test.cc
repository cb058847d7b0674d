#include "advise/spot_fit.h"

#include <gtest/gtest.h>

#include <cmath>

namespace squeeze {
namespace {

HistoryJob Job(Time hours, bool checkpointable = true, Time interval = 0) {
  HistoryJob j;
  j.gpus = 1;
  j.end = hours * kHour;
  j.checkpointable = checkpointable;
  j.checkpoint_interval = interval;
  j.restart_overhead = 7 * kSecond;  // 1 GPU (core/job.h)
  return j;
}

History Of(std::vector<HistoryJob> jobs) {
  History h;
  h.source = "hand";
  h.jobs = std::move(jobs);
  return h;
}

// M = 6 h = 21,600 s between reclaims, C = 60 s a checkpoint, 7 s a restart; spot 0.92,
// on demand 3.06 a GPU-hour.
// Daly: sqrt(2 x 60 x 21,600) = 1,609.97; x (1 + sqrt(60 / 43,200) / 3 + 60 / 388,800)
//   = x 1.012577 = 1,630.22; - 60 = 1,570.2 s.
// A 2-h job (7,200 s): 4 segments of 1,570.2 + 60 s, then 919.2 s. With
//   one(s) = M e^{R/M} (e^{s/M} - 1): one(1,630.2) = 1,693.9, one(919.2) = 939.3;
//   expected = 4 x 1,693.9 + 939.3 = 7,715 s, slowdown 1.0715.
//   Spot 7,715 / 3600 x 0.92 = 1.97 < on demand 2 x 3.06 = 6.12: spot.
SpotTerms Terms(double spot = 0.92, double on_demand = 3.06) {
  return SpotTerms{spot, on_demand, 6 * kHour};
}

TEST(SpotFitTest, TwoHourJobSuitsSpotAtDalyInterval) {
  const auto classes = FitSpot(Of({Job(2)}), Terms(), SpotRules{});
  ASSERT_EQ(classes.size(), 1u);
  const SpotClass& c = classes[0];
  EXPECT_EQ(c.Name(), "1 GPU, 1-12h");
  EXPECT_NEAR(c.interval_s, 1570.2, 0.5);
  EXPECT_NEAR(c.expected_gpu_hours * 3600, 7715, 3);
  EXPECT_NEAR(c.slowdown, 1.0715, 0.001);
  EXPECT_NEAR(c.cost_on_demand, 6.12, 1e-9);
  EXPECT_NEAR(c.cost_spot, 7715.0 / 3600 * 0.92, 0.01);
  EXPECT_TRUE(c.suits_spot) << c.reason;
}

// A 24-h job checkpointing at Daly's 26 min, not every 5 min: the rule keeps it off spot.
TEST(SpotFitTest, DayLongJobWithoutFiveMinuteCheckpointsStaysOnDemand) {
  const auto classes = FitSpot(Of({Job(24)}), Terms(), SpotRules{});
  ASSERT_EQ(classes.size(), 1u);
  EXPECT_EQ(classes[0].Name(), "1 GPU, >12h");
  EXPECT_EQ(classes[0].jobs_ruled_out, 1);
  EXPECT_FALSE(classes[0].suits_spot);
  EXPECT_NE(classes[0].reason.find("longer than 12h without checkpoints every 5m"),
            std::string::npos) << classes[0].reason;
}

// The same job checkpointing every 5 min itself is allowed, and costed at that interval.
TEST(SpotFitTest, DayLongJobWithFiveMinuteCheckpointsMayGo) {
  const auto classes = FitSpot(Of({Job(24, false, 5 * kMinute)}), Terms(), SpotRules{});
  ASSERT_EQ(classes.size(), 1u);
  EXPECT_EQ(classes[0].jobs_ruled_out, 0);
  EXPECT_DOUBLE_EQ(classes[0].interval_s, 300);
  EXPECT_TRUE(classes[0].suits_spot) << classes[0].reason;
}

// With asynchronous checkpoints (2 min to disk, a 10-s pause) squeeze asks the 24-h job for
// checkpoints every 5 min, which meets the rule: 300 / 310 of its time is work, and each
// reclaim also loses the 110 s the last save needs to reach disk. A 60-s pause (17% of its
// time) or synchronous 2-min checkpoints keep it off.
TEST(SpotFitTest, DayLongJobWithCheapCheckpointsIsAskedForFiveMinuteOnes) {
  HistoryJob j = Job(24);
  j.checkpoint_cost = 2 * kMinute;
  j.checkpoint_stall = 10 * kSecond;
  auto classes = FitSpot(Of({j}), Terms(), SpotRules{});
  ASSERT_EQ(classes.size(), 1u);
  EXPECT_EQ(classes[0].jobs_ruled_out, 0);
  EXPECT_DOUBLE_EQ(classes[0].interval_s, 300);
  // 288 segments of 310 s with R = 7 + 110: 288 x M e^{117/M} (e^{310/M} - 1).
  const double m = 6 * 3600.0;  // seconds
  EXPECT_NEAR(classes[0].expected_gpu_hours * 3600,
              288 * m * std::exp(117 / m) * std::expm1(310 / m), 1e-6);
  EXPECT_TRUE(classes[0].suits_spot) << classes[0].reason;
  for (Time stall : {kMinute, 2 * kMinute}) {
    j.checkpoint_stall = stall;
    classes = FitSpot(Of({j}), Terms(), SpotRules{});
    EXPECT_EQ(classes[0].jobs_ruled_out, 1) << "stall " << WholeSeconds(stall) << " s";
  }
  SpotRules never;
  never.long_job_comply = 0;
  j.checkpoint_stall = 10 * kSecond;
  EXPECT_EQ(FitSpot(Of({j}), Terms(), never)[0].jobs_ruled_out, 1);
}

// The rule is an option: at 48 h the 24-h job may go at Daly's interval.
TEST(SpotFitTest, MaxLengthIsAnOption) {
  SpotRules rules;
  rules.max_length = 48 * kHour;
  const auto classes = FitSpot(Of({Job(24)}), Terms(), rules);
  EXPECT_TRUE(classes[0].suits_spot) << classes[0].reason;
}

// A job that cannot checkpoint: off spot by default (fault-tolerant work only). With the rule
// off it restarts from zero at each reclaim: M e^{R/M} (e^{7200/M} - 1) = 8,548 s, still
// cheaper at 0.92 than 7,200 s at 3.06.
TEST(SpotFitTest, WorkThatCannotCheckpoint) {
  const History h = Of({Job(2, false)});
  auto classes = FitSpot(h, Terms(), SpotRules{});
  ASSERT_EQ(classes.size(), 1u);
  EXPECT_EQ(classes[0].Name(), "1 GPU, 1-12h, no checkpoints");
  EXPECT_FALSE(classes[0].suits_spot);
  EXPECT_NE(classes[0].reason.find("no checkpoints"), std::string::npos);
  SpotRules rules;
  rules.fault_tolerant_only = false;
  classes = FitSpot(h, Terms(), rules);
  EXPECT_NEAR(classes[0].expected_gpu_hours * 3600, 8548, 3);
  EXPECT_TRUE(classes[0].suits_spot) << classes[0].reason;
}

// With spot at 2.90 against 3.00 the 2-h job's 7% slowdown costs more than the discount:
// 7,715 s x 2.90 = 22,374 > 7,200 s x 3.00 = 21,600.
TEST(SpotFitTest, SmallDiscountIsEatenBySlowdown) {
  const auto classes = FitSpot(Of({Job(2)}), Terms(2.9, 3.0), SpotRules{});
  EXPECT_FALSE(classes[0].suits_spot);
  EXPECT_NE(classes[0].reason.find("cost more than the discount"), std::string::npos);
}

TEST(SpotFitTest, ClassesByTeamWhenTheHistoryHasTeams) {
  History h = Of({Job(2), Job(2), Job(0)});
  h.jobs[0].team = "vision";
  h.jobs[1].team = "nlp";
  h.jobs[2].end = 10 * kMinute;  // no team
  h.has_teams = true;
  const auto classes = FitSpot(h, Terms(), SpotRules{});
  ASSERT_EQ(classes.size(), 3u);
  EXPECT_EQ(classes[0].Name(), "team (none), <1h");
  EXPECT_EQ(classes[1].Name(), "team nlp, 1-12h");
  EXPECT_EQ(classes[2].Name(), "team vision, 1-12h");
}

TEST(SpotFitTest, HistoryCheckpointCostWinsOverTheDefault) {
  HistoryJob j = Job(2);
  j.checkpoint_cost = 4 * kMinute;
  const auto classes = FitSpot(Of({j}), Terms(), SpotRules{});
  EXPECT_DOUBLE_EQ(classes[0].checkpoint_cost_s, 240);
  EXPECT_GT(classes[0].interval_s, 3000);  // Daly(240 s, 6 h) ~ 3,010 s
}

}  // namespace
}  // namespace squeeze
