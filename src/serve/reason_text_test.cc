#include "serve/reason_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::Not;
using ::testing::HasSubstr;

ExitStatus CannotRun(const std::string& error) { return ExitStatus{false, 127, error}; }

TEST(ReasonTextTest, APlainExitOrSignalIsEveryonesToSee) {
  EXPECT_EQ(ExitReason(ExitStatus{false, 3, ""}).shown, "exit 3");
  EXPECT_EQ(ExitReason(ExitStatus{true, 9, ""}).shown, "killed by signal 9");
  EXPECT_EQ(ExitReason(ExitStatus{false, 3, ""}).detail, "");
}

// What the supervisor says of a run it could not start quotes paths, the command and the
// account: every user is told the step, its owner and the admins the whole message.
TEST(ReasonTextTest, TheSupervisorsMessagesKeepTheirPathsForTheOwner) {
  const std::pair<std::string, std::string> kCases[] = {
      {"cannot open the output file '/home/bob/secret/out.txt' as user 'bob': No such file or "
       "directory",
       "the output file could not be opened (exit 127)"},
      {"cannot open the error file '/home/bob/secret/err.txt': Permission denied",
       "the error file could not be opened (exit 127)"},
      {"cannot enter workdir '/home/bob/secret' as user 'bob': Permission denied",
       "the workdir could not be entered (exit 127)"},
      {"cannot run '/home/bob/secret/train.sh' as user 'bob': No such file or directory",
       "the command could not be run (exit 127)"},
      {"cannot run as user 'bob': Operation not permitted",
       "the run could not become its user (exit 127)"},
      {"cannot redirect the job's output: Bad file descriptor",
       "the job's output could not be redirected (exit 127)"},
      {"something new about /home/bob/secret", "the run could not start (exit 127)"},
  };
  for (const auto& [error, shown] : kCases) {
    const ReasonText r = ExitReason(CannotRun(error));
    EXPECT_EQ(r.shown, shown) << error;
    EXPECT_EQ(r.detail, error);
    EXPECT_THAT(r.shown, Not(HasSubstr("secret")));
  }
  EXPECT_EQ(ExitReason(ExitStatus{false, -1, "lost the job: /home/bob: ECHILD"}).shown,
            "the run failed (exit -1)");
}

TEST(ReasonTextTest, TheStepTheSupervisorRecordedChoosesTheWordsWhateverTheMessage) {
  ExitStatus e = CannotRun("cannot open the output file '/home/bob/secret/o': EACCES");
  e.step = "workdir";  // the step wins over the message's words
  EXPECT_EQ(ExitReason(e).shown, "the workdir could not be entered (exit 127)");
  e.step = "account";
  EXPECT_EQ(ExitReason(e).shown, "the run's user has no account here (exit 127)");
  e.step = "a-step-from-a-newer-supervisor";
  EXPECT_EQ(ExitReason(e).shown, "the run could not start (exit 127)");
  EXPECT_EQ(ExitReason(e).detail, e.error);
}

TEST(ReasonTextTest, WhatABackendSaysOfItsOwnNodesAndStatesIsPublic) {
  ExitStatus lost{false, -1, "Slurm lost it: node east-n0 failed (NODE_FAIL)"};
  lost.lost = true;
  EXPECT_EQ(ExitReason(lost).shown, lost.error);
  EXPECT_EQ(ExitReason(lost).detail, "");
  const ExitStatus ended{true, 15, "Slurm ended the job CANCELLED before it started"};
  EXPECT_EQ(ExitReason(ended).shown, ended.error);
  const ExitStatus died{false, -1, "the supervisor died without recording the exit status"};
  EXPECT_EQ(ExitReason(died).shown, died.error);
}

TEST(ReasonTextTest, AStartTheBackendRefusedIsToldWithoutItsMessage) {
  const ReasonText r =
      StartFailure(Status::Error("sbatch failed (exit 1): /home/bob/secret/job.sh: no such file"));
  EXPECT_EQ(r.shown, "the run could not be started");
  EXPECT_EQ(r.detail, "cannot start: sbatch failed (exit 1): /home/bob/secret/job.sh: no such file");
}

TEST(ReasonTextTest, ThenAddsTheSameWordsToBothForms) {
  const ReasonText r = ExitReason(CannotRun("cannot run '/x': No such file")).Then("; retry 1 of 3");
  EXPECT_EQ(r.shown, "the command could not be run (exit 127); retry 1 of 3");
  EXPECT_EQ(r.detail, "cannot run '/x': No such file; retry 1 of 3");
  const ReasonText plain{"exit 3", ""};
  EXPECT_EQ(plain.Then("; retry").detail, "");
}

}  // namespace
}  // namespace squeeze
