#include "exec/command_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

namespace squeeze {
namespace {

using ::testing::HasSubstr;

TEST(CommandRunnerTest, CapturesOutputErrorsAndExitCodeWithoutAShell) {
  auto r = RunCommand({"sh", "-c", "echo out; echo err >&2; echo \"$SQUEEZE_CMD_TEST\"; exit 4"},
                      {{"SQUEEZE_CMD_TEST", "from env"}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exit_code, 4);
  EXPECT_EQ(r->out, "out\nfrom env\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_FALSE(r->timed_out);
  // Arguments reach the program as they are: no globbing, no variables.
  auto echo = RunCommand({"echo", "$HOME", "*", "a b"});
  ASSERT_TRUE(echo.ok());
  EXPECT_EQ(echo->out, "$HOME * a b\n");
}

TEST(CommandRunnerTest, AProgramThatDoesNotExistIsAnError) {
  auto r = RunCommand({"squeeze-no-such-program-xyz"});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("cannot run squeeze-no-such-program-xyz"));
  EXPECT_FALSE(RunCommand({}).ok());
}

TEST(CommandRunnerTest, KillsACommandThatRunsPastItsLimit) {
  auto r = RunCommand({"sleep", "30"}, {}, 200);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->exit_code, 128 + 9);
}

TEST(CommandRunnerTest, ReadsLargeOutputOnBothStreams) {
  auto r = RunCommand({"sh", "-c", "head -c 300000 /dev/zero | tr '\\\\0' a; head -c 200000 /dev/zero >&2"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out.size(), 300000u);
  EXPECT_EQ(r->err.size(), 200000u);
}

// The child is made with every signal blocked (exec/vm_spawn.h); the command itself starts with
// none blocked, whatever the calling thread blocks (the daemon blocks SIGTERM on every thread).
TEST(CommandRunnerTest, TheCommandStartsWithNoSignalBlocked) {
  sigset_t term, before;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &before);
  auto r = RunCommand({"grep", "^SigBlk:", "/proc/self/status"});
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->out, "SigBlk:\t0000000000000000\n");
}

}  // namespace
}  // namespace squeeze
