#include "core/pending_queue.h"

#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

QueuePosition Pos(JobId id, int band, int scope, double key = 0, Time submit = 0,
                  std::string team = "") {
  QueuePosition p;
  p.band = band;
  p.scope = scope;
  p.team = std::move(team);
  p.entry = {key, submit, id};
  return p;
}

// The ids a walk visits; `skip` ids answer kSkipScope, `stop` answers kStop.
std::vector<JobId> Order(const PendingQueue& q, std::vector<JobId> skip = {}, JobId stop = 0,
                         const PendingQueue::TeamMeasure& measure = nullptr) {
  std::vector<JobId> out;
  q.Walk(
      [&](const QueuePosition& p) {
        out.push_back(p.entry.id);
        if (p.entry.id == stop) return PendingQueue::Visit::kStop;
        for (JobId s : skip) {
          if (s == p.entry.id) return PendingQueue::Visit::kSkipScope;
        }
        return PendingQueue::Visit::kNext;
      },
      measure);
  return out;
}

TEST(PendingQueueTest, EmptyWalkVisitsNothing) {
  PendingQueue q;
  EXPECT_TRUE(q.empty());
  EXPECT_THAT(Order(q), IsEmpty());
}

TEST(PendingQueueTest, HigherBandFirstThenScopeThenKeySubmitId) {
  PendingQueue q;
  q.Add(Pos(1, 0, 0));
  q.Add(Pos(2, 2, 1));
  q.Add(Pos(3, 2, 0, 5.0));
  q.Add(Pos(4, 2, 0, 1.0, 50));
  q.Add(Pos(5, 2, 0, 1.0, 10));
  q.Add(Pos(6, 1, 0));
  q.Add(Pos(7, 2, 0, 1.0, 10));  // same key and submit as 5: the id decides
  EXPECT_EQ(q.size(), 7u);
  EXPECT_THAT(Order(q), ElementsAre(5, 7, 4, 3, 2, 6, 1));
}

TEST(PendingQueueTest, SkippedScopeStaysSkippedInLowerBands) {
  PendingQueue q;
  q.Add(Pos(1, 3, 0, 0, 1));
  q.Add(Pos(2, 3, 0, 0, 2));
  q.Add(Pos(3, 3, 1, 0, 3));
  q.Add(Pos(4, 1, 0, 0, 4));
  q.Add(Pos(5, 1, 1, 0, 5));
  q.Add(Pos(6, 0, 2, 0, 6));
  // 1 blocks scope 0: 2 (same band) and 4 (lower band) are not visited.
  EXPECT_THAT(Order(q, {1}), ElementsAre(1, 3, 5, 6));
  // Skipping in a lower band does not affect the band already walked.
  EXPECT_THAT(Order(q, {4}), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(PendingQueueTest, StopEndsTheWalk) {
  PendingQueue q;
  for (JobId id = 1; id <= 4; ++id) q.Add(Pos(id, 0, 0, 0, id));
  EXPECT_THAT(Order(q, {}, 2), ElementsAre(1, 2));
}

TEST(PendingQueueTest, TeamsMergeByEntryWithoutAMeasure) {
  PendingQueue q;
  q.Add(Pos(1, 0, 0, 0, 1, "x"));
  q.Add(Pos(2, 0, 0, 0, 2, "x"));
  q.Add(Pos(3, 0, 0, 0, 3, "x"));
  q.Add(Pos(4, 0, 0, 0, 4, "y"));
  q.Add(Pos(5, 0, 0, 0, 5, "y"));
  EXPECT_THAT(Order(q), ElementsAre(1, 2, 3, 4, 5));
}

TEST(PendingQueueTest, TeamsMergeBySmallestMeasureReadAfterEveryVisit) {
  PendingQueue q;
  q.Add(Pos(1, 0, 0, 0, 1, "x"));
  q.Add(Pos(2, 0, 0, 0, 2, "x"));
  q.Add(Pos(3, 0, 0, 0, 3, "x"));
  q.Add(Pos(4, 0, 0, 0, 4, "y"));
  q.Add(Pos(5, 0, 0, 0, 5, "y"));
  std::map<std::string, double> used;
  std::vector<JobId> out;
  q.Walk(
      [&](const QueuePosition& p) {
        out.push_back(p.entry.id);
        used[p.team] += 1;  // the team got GPUs: it yields to the other
        return PendingQueue::Visit::kNext;
      },
      [&](const std::string& team) { return used[team]; });
  EXPECT_THAT(out, ElementsAre(1, 4, 2, 5, 3));
}

TEST(PendingQueueTest, TeamWithLessServiceGoesFirst) {
  PendingQueue q;
  q.Add(Pos(1, 0, 0, 0, 1, "x"));
  q.Add(Pos(2, 0, 0, 0, 2, "y"));
  std::map<std::string, double> used = {{"x", 8000}, {"y", 1000}};
  EXPECT_THAT(Order(q, {}, 0, [&](const std::string& t) { return used[t]; }),
              ElementsAre(2, 1));
}

TEST(PendingQueueTest, RemoveFindAndReAdd) {
  PendingQueue q;
  q.Add(Pos(1, 0, 0, 0, 1));
  q.Add(Pos(2, 0, 0, 0, 2));
  q.Add(Pos(3, 0, 0, 0, 3));
  EXPECT_TRUE(q.Remove(2));
  EXPECT_FALSE(q.Remove(2));
  EXPECT_FALSE(q.Remove(99));
  EXPECT_FALSE(q.Contains(2));
  EXPECT_EQ(q.Find(2), nullptr);
  ASSERT_NE(q.Find(3), nullptr);
  EXPECT_EQ(q.Find(3)->entry.submit, 3);
  EXPECT_EQ(q.size(), 2u);
  EXPECT_THAT(Order(q), ElementsAre(1, 3));
  // Adding a known id moves it: 1 goes to a higher band.
  q.Add(Pos(1, 5, 0, 0, 1));
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(q.Find(1)->band, 5);
  EXPECT_THAT(Order(q), ElementsAre(1, 3));
  q.Add(Pos(3, 9, 0, 0, 3));
  EXPECT_THAT(Order(q), ElementsAre(3, 1));
  EXPECT_TRUE(q.Remove(1));
  EXPECT_TRUE(q.Remove(3));
  EXPECT_TRUE(q.empty());
  EXPECT_THAT(Order(q), IsEmpty());
}

TEST(PendingQueueTest, RekeyReordersByTheNewKeys) {
  PendingQueue q;
  q.Add(Pos(1, 0, 0, 1.0, 1));
  q.Add(Pos(2, 0, 0, 2.0, 2));
  q.Add(Pos(3, 1, 0, 3.0, 3));
  q.Add(Pos(4, 0, 0, 4.0, 4, "x"));
  EXPECT_THAT(Order(q), ElementsAre(3, 1, 2, 4));
  q.Rekey([](JobId id) { return static_cast<double>(10 - id); });
  EXPECT_THAT(Order(q), ElementsAre(3, 4, 2, 1));  // bands and teams stay
  EXPECT_EQ(q.Find(1)->entry.key, 9.0);
  EXPECT_EQ(q.Find(4)->team, "x");
  EXPECT_TRUE(q.Remove(2));
  EXPECT_THAT(Order(q), ElementsAre(3, 4, 1));
}

TEST(PendingQueueTest, WalkScopeVisitsOneScopeInBandOrder) {
  PendingQueue q;
  q.Add(Pos(1, 0, 0, 0, 1));
  q.Add(Pos(2, 2, 1, 0, 2));
  q.Add(Pos(3, 2, 0, 0, 3));
  q.Add(Pos(4, 1, 1, 0, 4));
  q.Add(Pos(5, 0, 1, 0, 5));
  std::vector<JobId> out;
  auto visit = [&](const QueuePosition& p) {
    out.push_back(p.entry.id);
    return p.entry.id == 4 ? PendingQueue::Visit::kSkipScope : PendingQueue::Visit::kNext;
  };
  q.WalkScope(1, visit, nullptr);
  EXPECT_THAT(out, ElementsAre(2, 4));  // skipping ends it: 5 is not visited
  out.clear();
  q.WalkScope(0, visit, nullptr);
  EXPECT_THAT(out, ElementsAre(3, 1));
  out.clear();
  q.WalkScope(7, visit, nullptr);
  EXPECT_THAT(out, IsEmpty());
}

TEST(PendingQueueTest, StampCountsJobsAndChangesWithTheScope) {
  PendingQueue q;
  EXPECT_EQ(q.Stamp(3).jobs, 0u);
  q.Add(Pos(1, 0, 0, 0, 1));
  q.Add(Pos(2, 0, 1, 0, 2));
  const PendingQueue::ScopeStamp zero = q.Stamp(0), one = q.Stamp(1);
  EXPECT_EQ(zero.jobs, 1u);
  EXPECT_EQ(one.jobs, 1u);
  q.Add(Pos(3, 0, 1, 0, 3));
  EXPECT_EQ(q.Stamp(0).version, zero.version);  // scope 0 did not change
  EXPECT_NE(q.Stamp(1).version, one.version);
  EXPECT_EQ(q.Stamp(1).jobs, 2u);
  const uint64_t before = q.Stamp(1).version;
  EXPECT_TRUE(q.Remove(2));
  EXPECT_NE(q.Stamp(1).version, before);
  EXPECT_EQ(q.Stamp(1).jobs, 1u);
  const uint64_t before_rekey = q.Stamp(0).version;
  q.Rekey([](JobId id) { return static_cast<double>(id); });
  EXPECT_NE(q.Stamp(0).version, before_rekey);  // the order may have changed
  EXPECT_EQ(q.Stamp(0).jobs, 1u);
}

// Jobs are counted by shape (QueuePosition::shape) and, with none, by scope; a re-add or a
// rekey keeps the counts.
TEST(PendingQueueTest, ShapesAreCounted) {
  PendingQueue q;
  auto shaped = [](JobId id, int scope, int shape) {
    QueuePosition p = Pos(id, 0, scope, 0, id);
    p.shape = shape;
    return p;
  };
  q.Add(shaped(1, 0, 7));
  q.Add(shaped(2, 0, 7));
  q.Add(shaped(3, 1, 2));
  q.Add(shaped(4, 1, -1));
  q.Add(shaped(2, 0, 7));  // again: still one job
  EXPECT_EQ(q.ShapeJobs().size(), 2u);
  EXPECT_EQ(q.ShapeJobs().at(7), 2u);
  EXPECT_EQ(q.ShapeJobs().at(2), 1u);
  EXPECT_EQ(q.Stamp(1).shapeless_jobs, 1u);
  EXPECT_EQ(q.Stamp(0).shapeless_jobs, 0u);
  q.Rekey([](JobId id) { return -static_cast<double>(id); });
  EXPECT_EQ(q.ShapeJobs().at(7), 2u);
  EXPECT_TRUE(q.Remove(3));
  EXPECT_TRUE(q.Remove(4));
  EXPECT_EQ(q.ShapeJobs().count(2), 0u);  // none left: gone
  EXPECT_EQ(q.Stamp(1).shapeless_jobs, 0u);
  EXPECT_TRUE(q.Remove(1));
  EXPECT_EQ(q.ShapeJobs().at(7), 1u);
}

}  // namespace
}  // namespace squeeze
