#include "core/output_path.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::HasSubstr;

OutputRun AliceRun() {
  OutputRun run;
  run.id = 42;
  run.name = "train";
  run.user = "alice";
  run.workdir = "/home/alice/proj";
  return run;
}

std::string Expand(std::string_view pattern, const OutputRun& run = AliceRun()) {
  Result<std::string> path = ExpandOutputPath(pattern, run);
  EXPECT_TRUE(path.ok()) << path.status().message();
  return path.ok() ? *path : "";
}

std::string Refused(std::string_view pattern) {
  const Status s = CheckOutputPattern(pattern);
  EXPECT_FALSE(s.ok()) << pattern;
  EXPECT_FALSE(ExpandOutputPath(pattern, AliceRun()).ok()) << pattern;
  return s.message();
}

TEST(OutputPathTest, FillsInEveryLetter) {
  EXPECT_EQ(Expand("/out/%j.txt"), "/out/42.txt");
  EXPECT_EQ(Expand("/out/%x-%u.log"), "/out/train-alice.log");
  EXPECT_EQ(Expand("/out/100%%_%j"), "/out/100%_42");
  // Not an array task: %A is the job id and %a Slurm's NO_VAL - 1.
  EXPECT_EQ(Expand("/out/%A_%a"), "/out/42_4294967294");
  OutputRun task = AliceRun();
  task.id = 45;
  task.array_id = 40;
  task.array_task = 5;
  EXPECT_EQ(Expand("/out/%A_%a-%j", task), "/out/40_5-45");
  // A number pads the numbers with zeros, and is ignored for words.
  EXPECT_EQ(Expand("/out/%4j.%3a.%8x", task), "/out/0045.005.train");
  EXPECT_EQ(Expand("/out/%1j"), "/out/42");
}

TEST(OutputPathTest, ARelativePathIsTakenFromTheWorkdir) {
  EXPECT_EQ(Expand("logs/out_%j.txt"), "/home/alice/proj/logs/out_42.txt");
  OutputRun run = AliceRun();
  run.workdir = "/";
  EXPECT_EQ(Expand("out", run), "/out");
  run.workdir.clear();
  EXPECT_EQ(Expand("out_%j", run), "out_42");
}

TEST(OutputPathTest, RefusesWhatIsNoFile) {
  EXPECT_THAT(Refused(""), HasSubstr("empty"));
  EXPECT_THAT(Refused(std::string("a\0b", 3)), HasSubstr("NUL"));
  EXPECT_THAT(Refused("logs/"), HasSubstr("names a directory"));
  EXPECT_THAT(Refused("logs/.."), HasSubstr("names a directory"));
  EXPECT_THAT(Refused("."), HasSubstr("names a directory"));
  EXPECT_THAT(Refused("~/out.txt"), HasSubstr("'~' is not expanded"));
  EXPECT_THAT(Refused(std::string(5000, 'a')), HasSubstr("longer than"));
}

TEST(OutputPathTest, RefusesUnknownLetters) {
  EXPECT_EQ(Refused("out_%Q.txt"),
            "'%Q' is not a pattern squeeze fills in; it knows %j (job id), %A (array id), "
            "%a (array task), %x (name), %u (user), %% (a percent sign)");
  EXPECT_THAT(Refused("out_%N"), HasSubstr("'%N' is not a pattern"));
  EXPECT_THAT(Refused("out_%3%"), HasSubstr("'%3%' is not a pattern"));
  EXPECT_THAT(Refused("out_%"), HasSubstr("ends in '%'"));
  EXPECT_THAT(Refused("out_%4"), HasSubstr("ends in '%4'"));
  EXPECT_THAT(Refused("out_%11j"), HasSubstr("more than 10 digits"));
  EXPECT_THAT(Refused("out_%123j"), HasSubstr("more than 10 digits"));
}

TEST(OutputPathTest, EscapesPercentForSlurm) {
  EXPECT_EQ(EscapePercent("/out/100%_42"), "/out/100%%_42");
  EXPECT_EQ(EscapePercent("/plain"), "/plain");
}

}  // namespace
}  // namespace squeeze
