// Dependencies between jobs (sbatch --dependency): when a job may be scheduled, and when it
// can never start.
#include "core/dependency_graph.h"

#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Readiness = DependencyGraph::Readiness;

JobSpec Spec(JobId id, std::vector<Dependency> deps = {}, bool any = false) {
  JobSpec s;
  s.id = id;
  s.name = "job" + std::to_string(id);
  s.user = "ana";
  s.dependencies = std::move(deps);
  s.dependency_any = any;
  return s;
}

struct Graph {
  DependencyGraph g;
  std::map<JobId, bool> ended;  // jobs that ended before they were added (the store)
  Readiness Add(const JobSpec& spec) {
    auto r = g.Add(spec, [&](JobId id) -> std::optional<bool> {
      auto it = ended.find(id);
      if (it == ended.end()) return std::nullopt;
      return it->second;
    });
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : Readiness::kNever;
  }
};

TEST(DependencyGraphTest, AfterOkWaitsForEveryJobToEndDone) {
  Graph t;
  EXPECT_EQ(t.Add(Spec(1)), Readiness::kReady);
  EXPECT_EQ(t.Add(Spec(2)), Readiness::kReady);
  EXPECT_EQ(t.Add(Spec(3, {{DependencyKind::kAfterOk, {1, 2}}})), Readiness::kWaiting);
  EXPECT_TRUE(t.g.Waiting(3));
  EXPECT_EQ(t.g.Describe(3), "afterok:1:2 (2 of 2 to go)");
  EXPECT_THAT(t.g.Ended(1, true).ready, IsEmpty());
  auto c = t.g.Ended(2, true);
  EXPECT_THAT(c.ready, ElementsAre(3));
  EXPECT_THAT(c.never, IsEmpty());
  EXPECT_FALSE(t.g.Waiting(3));
}

// afterok on a job that fails can never hold: the job is given up, and so is a job that waits
// on it with afterok, while one that waits with afternotok may go.
TEST(DependencyGraphTest, AFailureEndsAfterOkChainsAndReleasesAfterNotOk) {
  Graph t;
  t.Add(Spec(1));
  t.Add(Spec(2, {{DependencyKind::kAfterOk, {1}}}));
  t.Add(Spec(3, {{DependencyKind::kAfterOk, {2}}}));
  t.Add(Spec(4, {{DependencyKind::kAfterNotOk, {2}}}));
  t.Add(Spec(5, {{DependencyKind::kAfterAny, {1}}}));
  auto c = t.g.Ended(1, false);
  EXPECT_THAT(c.never, ElementsAre(2, 3));
  EXPECT_THAT(c.ready, ElementsAre(4, 5));
  EXPECT_FALSE(t.g.Holds(2));
  EXPECT_FALSE(t.g.Holds(3));
  EXPECT_TRUE(t.g.Holds(4));
}

TEST(DependencyGraphTest, AfterWaitsForAStartAndAnyForOneClause) {
  Graph t;
  t.Add(Spec(1));
  t.Add(Spec(2));
  EXPECT_EQ(t.Add(Spec(3, {{DependencyKind::kAfter, {1}}})), Readiness::kWaiting);
  EXPECT_EQ(t.Add(Spec(4, {{DependencyKind::kAfterOk, {1}}, {DependencyKind::kAfterOk, {2}}},
                       /*any=*/true)),
            Readiness::kWaiting);
  EXPECT_THAT(t.g.Started(1).ready, ElementsAre(3));
  EXPECT_THAT(t.g.Ended(1, false).ready, IsEmpty());  // 4: its other clause may still hold
  EXPECT_TRUE(t.g.Waiting(4));
  EXPECT_THAT(t.g.Ended(2, true).ready, ElementsAre(4));
  // A job started already satisfies `after` at once.
  t.Add(Spec(5));
  t.g.Started(5);
  EXPECT_EQ(t.Add(Spec(6, {{DependencyKind::kAfter, {5}}})), Readiness::kReady);
}

TEST(DependencyGraphTest, JobsThatEndedAreJudgedByHowTheyEnded) {
  Graph t;
  t.ended = {{1, true}, {2, false}};
  EXPECT_EQ(t.Add(Spec(3, {{DependencyKind::kAfterOk, {1}}})), Readiness::kReady);
  EXPECT_EQ(t.Add(Spec(4, {{DependencyKind::kAfterOk, {1, 2}}})), Readiness::kNever);
  EXPECT_EQ(t.Add(Spec(5, {{DependencyKind::kAfterNotOk, {2}}})), Readiness::kReady);
  auto missing = t.g.Add(Spec(6, {{DependencyKind::kAfterOk, {99}}}),
                         [](JobId) { return std::nullopt; });
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("names job 99, which does not exist"));
  EXPECT_FALSE(t.g.Holds(6));
  auto self = t.g.Add(Spec(7, {{DependencyKind::kAfterAny, {7}}}), [](JobId) { return true; });
  ASSERT_FALSE(self.ok());
  EXPECT_THAT(self.status().message(), HasSubstr("depends on itself"));
}

// singleton: after every earlier job of the same name and user, not others'.
TEST(DependencyGraphTest, SingletonWaitsForEarlierJobsOfTheSameNameAndUser) {
  Graph t;
  JobSpec a = Spec(1);
  a.name = "train";
  JobSpec other_user = Spec(2);
  other_user.name = "train";
  other_user.user = "bo";
  t.Add(a);
  t.Add(other_user);
  JobSpec b = Spec(3, {{DependencyKind::kSingleton, {}}});
  b.name = "train";
  EXPECT_EQ(t.Add(b), Readiness::kWaiting);
  JobSpec c = Spec(4, {{DependencyKind::kSingleton, {}}});
  c.name = "train";
  EXPECT_EQ(t.Add(c), Readiness::kWaiting);  // after 1 and 3
  EXPECT_THAT(t.g.Ended(1, false).ready, ElementsAre(3));
  EXPECT_THAT(t.g.Ended(3, true).ready, ElementsAre(4));
  JobSpec alone = Spec(5, {{DependencyKind::kSingleton, {}}});
  alone.name = "eval";
  EXPECT_EQ(t.Add(alone), Readiness::kReady);
}

// Cancelling a waiting job counts as an end that is not ok.
TEST(DependencyGraphTest, AWaitingJobCancelledReleasesAfterNotOk) {
  Graph t;
  t.Add(Spec(1));
  t.Add(Spec(2, {{DependencyKind::kAfterOk, {1}}}));
  t.Add(Spec(3, {{DependencyKind::kAfterNotOk, {2}}}));
  auto c = t.g.Ended(2, false);
  EXPECT_THAT(c.ready, ElementsAre(3));
  EXPECT_THAT(c.never, IsEmpty());
}

}  // namespace
}  // namespace squeeze
