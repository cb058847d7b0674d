// Unit tests of the run-time model: the Kaplan-Meier distribution from ended and running jobs,
// its delayed entry once the window is full, and the ranks and medians read from it.
#include "core/plugins/run_time_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace squeeze {
namespace {

std::vector<double> Grid() {
  std::vector<double> grid{0};
  for (double g = 1; g < 1e8; g *= 1.2) {
    if (std::floor(g) != grid.back()) grid.push_back(std::floor(g));
  }
  return grid;
}

double MassAt(const RunTimeModel& m, double t) {
  for (size_t i = 0; i < m.points().size(); ++i) {
    if (m.points()[i] == t) return m.masses()[i];
  }
  return 0;
}

TEST(RunTimeModelTest, EndedJobsAloneGiveTheirEmpiricalDistribution) {
  RunTimeModel m;
  for (int i = 0; i < 30; ++i) m.Observe((i % 3 == 0 ? 900 : 100) * kSecond, i * kSecond, 1000);
  m.Rebuild(Grid(), {});
  ASSERT_EQ(m.points(), (std::vector<double>{100, 900}));
  EXPECT_NEAR(m.masses()[0], 2.0 / 3, 1e-12);
  EXPECT_NEAR(m.masses()[1], 1.0 / 3, 1e-12);
}

// The cold start of docs/comparison.md's first window: the first jobs to end are the short
// ones while the long ones still run. Running jobs count as lasting at least what they have
// attained, so a long job that has run 400 s is near its end, not an outlier.
TEST(RunTimeModelTest, JobsStillRunningAreCensoredObservations) {
  const std::vector<double> grid = Grid();
  RunTimeModel ended_only, with_running;
  for (int i = 0; i < 20; ++i) {
    ended_only.Observe(100 * kSecond, 100 * kSecond, 1000);
    with_running.Observe(100 * kSecond, 100 * kSecond, 1000);
  }
  ended_only.Rebuild(grid, {});
  with_running.Rebuild(grid, std::vector<RunTimeModel::Unfinished>(20, {500, 500 * kSecond}));
  // Half ended at 100 s; the rest lasts at least 500 s and is put there.
  ASSERT_EQ(with_running.points(), (std::vector<double>{100, 500}));
  EXPECT_NEAR(MassAt(with_running, 100), 0.5, 1e-12);
  EXPECT_NEAR(MassAt(with_running, 500), 0.5, 1e-12);
  // Ended jobs alone: every job ends at 100 s, so one that has run 400 s outlived them all
  // and ranks behind a new job; with the running jobs it ranks ahead (100 s to go).
  EXPECT_LT(ended_only.Rank(0, grid), ended_only.Rank(400, grid));
  EXPECT_GT(with_running.Rank(0, grid), with_running.Rank(400, grid));
  EXPECT_NEAR(with_running.Rank(0, grid), 200, 1e-9);  // (0.5 x 100 + 0.5 x 100) / 0.5
  EXPECT_EQ(ended_only.MedianRemaining(400), std::nullopt);
  EXPECT_NEAR(*with_running.MedianRemaining(0), 500, 1e-9);  // the upper median
  EXPECT_NEAR(*with_running.MedianRemaining(150), 350, 1e-9);
}

// A steady stream: a job every 10 s, every other one 100 s long, the others 10,000 s. The
// window keeps the last 100 ended jobs (about 1,000 s of the stream), during which the model
// watched the long jobs that were running only for the last 1,000 s of their runs. Counted
// from 0 they would make the short jobs look like 8% of the jobs; watched as they were, about
// half, as they are.
TEST(RunTimeModelTest, OnceTheWindowIsFullJobsAreAtRiskFromWhenTheyWereWatched) {
  RunTimeModel m;
  const Time now = 100000 * kSecond;
  std::vector<RunTimeModel::Unfinished> running;
  struct Run {
    Time start, length;
  };
  std::vector<Run> ended;
  for (int i = 0; i < 10000; ++i) {
    const Time start = i * 10 * kSecond;
    const Time length = (i % 2 ? 10000 : 100) * kSecond;
    if (start + length <= now) {
      ended.push_back({start, length});
    } else if (start < now) {
      running.push_back({ToSeconds(now - start), now});
    }
  }
  std::sort(ended.begin(), ended.end(), [](const Run& a, const Run& b) {
    return a.start + a.length < b.start + b.length;
  });
  for (const Run& r : ended) m.Observe(r.length, r.start + r.length, 100);
  ASSERT_EQ(m.size(), 100u);
  m.Rebuild(Grid(), running);
  EXPECT_NEAR(MassAt(m, 100), 0.5, 0.06);
  EXPECT_NEAR(MassAt(m, 10000), 0.5, 0.06);
  // Jobs preempted after 300 s long before the window began were not watched in it: they
  // change nothing. Taken as running until now they would thin the short jobs' share.
  const std::vector<double> points = m.points(), masses = m.masses();
  std::vector<RunTimeModel::Unfinished> with_stopped = running;
  for (int i = 0; i < 500; ++i) with_stopped.push_back({300, 1000 * kSecond});
  m.Rebuild(Grid(), with_stopped);
  EXPECT_EQ(m.points(), points);
  EXPECT_EQ(m.masses(), masses);
}

TEST(RunTimeModelTest, NothingObservedPredictsNothing) {
  RunTimeModel m;
  EXPECT_EQ(m.MedianRemaining(0), std::nullopt);
  m.Rebuild(Grid(), {{0, 0}, {0, 0}});  // jobs that have not run yet say nothing
  EXPECT_TRUE(m.points().empty());
  EXPECT_EQ(m.MedianRemaining(0), std::nullopt);
}

}  // namespace
}  // namespace squeeze
