#include "core/spot_math.h"

#include <gtest/gtest.h>

#include <cmath>

namespace squeeze {
namespace {

TEST(SpotMath, YoungIsSqrtTwoCM) {
  EXPECT_DOUBLE_EQ(YoungInterval(60, 6 * 3600), std::sqrt(2.0 * 60 * 21600));  // 1610 s
  EXPECT_DOUBLE_EQ(YoungInterval(0, 3600), 0);
}

TEST(SpotMath, DalyAddsHigherOrderTermsAndCapsAtM) {
  // C = 60, M = 21600: sqrt(2CM) = 1609.97; * (1 + sqrt(60/43200)/3 + 60/388800) - 60.
  const double base = std::sqrt(2.0 * 60 * 21600);
  const double expected = base * (1 + std::sqrt(60.0 / 43200) / 3 + 60.0 / 388800) - 60;
  EXPECT_NEAR(DalyInterval(60, 21600), expected, 1e-9);
  EXPECT_NEAR(DalyInterval(60, 21600), 1570.2, 0.1);
  EXPECT_DOUBLE_EQ(DalyInterval(5000, 2000), 2000);  // C >= 2M: checkpoint every M
}

TEST(SpotMath, ExpectedRunTimeWithoutInterruptionsIsWorkPlusCheckpoints) {
  EXPECT_DOUBLE_EQ(ExpectedRunTime(3600, 600, 30, 60, 0), 3600 + 6 * 30);
  EXPECT_DOUBLE_EQ(ExpectedRunTime(3600, 0, 30, 60, 0), 3600);
}

TEST(SpotMath, ExpectedRunTimeMatchesDalysFormula) {
  // One segment of the whole job: M e^{R/M} (e^{W/M} - 1).
  const double m = 7200, w = 3600, r = 60;
  EXPECT_NEAR(ExpectedRunTime(w, 0, 0, r, m), m * std::exp(r / m) * (std::exp(w / m) - 1), 1e-6);
  // Ten segments of 360 s with a 20-s checkpoint each.
  EXPECT_NEAR(ExpectedRunTime(w, 360, 20, r, m),
              10 * m * std::exp(r / m) * (std::exp(380 / m) - 1), 1e-6);
}

TEST(SpotMath, DalyIntervalIsNearTheMinimumOfTheExpectedTime) {
  const double work = 48 * 3600, c = 120, r = 60, m = 6 * 3600;
  const double at_daly = ExpectedRunTime(work, DalyInterval(c, m), c, r, m);
  for (double t : {300.0, 900.0, 7200.0, 3600.0 * 6}) {
    EXPECT_LT(at_daly, ExpectedRunTime(work, t, c, r, m)) << "interval " << t;
  }
  // A long job without checkpoints on a 6-h MTBI expects far more than its work.
  EXPECT_GT(ExpectedRunTime(work, 0, c, r, m), 100 * work);
}

TEST(SpotMath, AsynchronousCheckpointsPauseForTheStallAndLoseTheSaveOnAReclaim) {
  JobSpec spec;
  spec.gpus = 2;  // restart overhead 30 s
  spec.checkpoint_cost = 120 * kSecond;
  const double work = 24 * 3600, m = 6 * 3600;  // seconds, as the model takes them
  // Synchronous: the 2-min checkpoint is the pause.
  EXPECT_DOUBLE_EQ(ExpectedRunTimeOf(spec, work, 300, m, false),
                   ExpectedRunTime(work, 300, 120, 30, m));
  EXPECT_EQ(DalyIntervalOf(spec, m), Seconds(static_cast<int64_t>(DalyInterval(120, m))));
  // Asynchronous with a 10-s pause: the pause is the cost, the other 110 s of the save are
  // lost with each reclaim.
  spec.checkpoint_stall = 10 * kSecond;
  EXPECT_EQ(PeriodicCheckpointStall(spec), 10 * kSecond);
  EXPECT_EQ(CheckpointPersistLag(spec), 110 * kSecond);
  EXPECT_DOUBLE_EQ(ExpectedRunTimeOf(spec, work, 300, m, false),
                   ExpectedRunTime(work, 300, 10, 30 + 110, m));
  EXPECT_EQ(DalyIntervalOf(spec, m), Seconds(static_cast<int64_t>(DalyInterval(10, m))));
  EXPECT_LT(ExpectedRunTimeOf(spec, work, 300, m, false), ExpectedRunTime(work, 300, 120, 30, m));
  // A save on notice takes the whole checkpoint_cost either way.
  EXPECT_DOUBLE_EQ(ExpectedRunTimeOf(spec, work, 0, m, true), work * (1 + (30.0 + 120) / m));
  EXPECT_DOUBLE_EQ(ExpectedRunTimeAsync(work, 300, 10, 120, 30, m),
                   ExpectedRunTime(work, 300, 10, 140, m));
  EXPECT_DOUBLE_EQ(ExpectedRunTimeAsync(work, 300, 120, 120, 30, m),
                   ExpectedRunTime(work, 300, 120, 30, m));  // synchronous
  // Five-minute checkpoints pausing 10 s take 3.2% of the time; pausing 60 s, 16.7%.
  EXPECT_TRUE(CheckpointsAffordable(10, 300, 0.1));
  EXPECT_FALSE(CheckpointsAffordable(60, 300, 0.1));
  EXPECT_TRUE(CheckpointsAffordable(60, 300, 0.2));
  EXPECT_FALSE(CheckpointsAffordable(0, 0, 0.1));  // no interval: nothing to ask
  // A stall longer than the save counts as the save: synchronous.
  spec.checkpoint_stall = 500 * kSecond;
  EXPECT_EQ(PeriodicCheckpointStall(spec), 120 * kSecond);
  EXPECT_EQ(CheckpointPersistLag(spec), 0);
  // Daly's interval is at least a minute.
  spec.checkpoint_stall = 0;
  EXPECT_EQ(DalyIntervalOf(spec, 600), kMinute);  // mtbi in seconds
}

}  // namespace
}  // namespace squeeze
