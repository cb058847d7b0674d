// sbatch's --array and --dependency texts, good and broken.
#include "core/job_array.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(JobArrayTest, RangesStepsListsAndALimit) {
  auto a = ParseArraySpec("0-9:4%2");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_THAT(a->tasks, ElementsAre(0, 4, 8));
  EXPECT_EQ(a->limit, 2);
  auto b = ParseArraySpec("7,1-3,2");
  ASSERT_TRUE(b.ok());
  EXPECT_THAT(b->tasks, ElementsAre(1, 2, 3, 7));
  EXPECT_EQ(b->limit, 0);
  EXPECT_EQ(FormatTaskRanges(b->tasks), "1-3,7");
  auto big = ParseArraySpec("0-9999");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->tasks.size(), 10000u);
}

TEST(JobArrayTest, BrokenArraysSayWhatIsWrong) {
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"", "no task indices"},
           {"5-1", "goes backwards"},
           {"0-9%0", "limit after '%'"},
           {"0-9%x", "limit after '%'"},
           {"a-b", "'a-b' is not a task index"},
           {"0-9:0", "step"},
           {"3:2", "a step needs a range"},
           {"0-5000000", "above 4000000"},
           {"0-200000", "more than 100000 tasks"},
           {"1,,2", "'' is not a task index"}}) {
    auto r = ParseArraySpec(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.status().message(), HasSubstr(says)) << text;
    EXPECT_THAT(r.status().message(), HasSubstr("array '" + text + "'"));
  }
}

TEST(JobArrayTest, DependenciesOfEveryKind) {
  auto d = ParseDependency("afterok:12:13_2,afterany:14,singleton");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_FALSE(d->any);
  ASSERT_EQ(d->clauses.size(), 3u);
  EXPECT_EQ(d->clauses[0].kind, DependencyKind::kAfterOk);
  ASSERT_EQ(d->clauses[0].jobs.size(), 2u);
  EXPECT_EQ(d->clauses[0].jobs[1].id, 13);
  EXPECT_EQ(d->clauses[0].jobs[1].task, 2);
  EXPECT_EQ(FormatJobRef(d->clauses[0].jobs[1]), "13_2");
  EXPECT_EQ(d->clauses[2].kind, DependencyKind::kSingleton);
  auto any = ParseDependency("afternotok:3?after:4");
  ASSERT_TRUE(any.ok());
  EXPECT_TRUE(any->any);
  EXPECT_EQ(any->clauses[1].kind, DependencyKind::kAfter);
}

TEST(JobArrayTest, BrokenDependenciesSayWhatIsWrong) {
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"", "empty"},
           {"afterok", "names no job"},
           {"afterok:", "is not a job id"},
           {"afterok:x", "'x' is not a job id"},
           {"afterok:1,afterany:2?after:3", "cannot be mixed"},
           {"before:1", "'before:1' is not TYPE:ID"},
           {"aftercorr:5", "'aftercorr' is not supported"},
           {"after:5+10", "a delay"},
           {"singleton:3", "singleton names no job"},
           {"afterok:0", "'0' is not a job id"}}) {
    auto r = ParseDependency(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.status().message(), HasSubstr(says)) << text;
  }
}

}  // namespace
}  // namespace squeeze
