#include "slurm/batch_script.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "core/testing/temp_dir.h"
#include "exec/command_runner.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

TEST(BatchScriptTest, NamesRoundTripAndOthersAreNotOurs) {
  JobId id = 0;
  int attempt = 0;
  ASSERT_TRUE(ParseSlurmJobName(SlurmJobName(42, 3), id, attempt));
  EXPECT_EQ(id, 42);
  EXPECT_EQ(attempt, 3);
  for (const char* other : {"wrap", "squeeze-", "squeeze-4", "squeeze-4.", "squeeze-x.1",
                            "squeeze-4.1x", "squeeze-0.1", "squeeze-4.0", "Squeeze-4.1"}) {
    EXPECT_FALSE(ParseSlurmJobName(other, id, attempt)) << other;
  }
}

// The script, run by bash as Slurm would, passes every word through untouched and sets the
// protocol's environment; SQUEEZE_RESUME appears once a checkpoint is complete.
TEST(BatchScriptTest, RunsTheArgvAsWrittenWithTheProtocolEnvironment) {
  ::squeeze::testing::TempDir dir{"squeeze-batch"};
  JobRequest r;
  r.spec.name = "it's";
  r.command = {"printf", "[%s]\\n", "a b", "it's", "$HOME", "*", "; ls", "`id`"};
  r.env = {{"MY_VAR", "x 'y' $z"}};
  r.workdir = dir.path();
  const std::string ckpt = dir.path() + "/ckpt dir";
  const std::string script = SlurmBatchScript(7, 2, r, ckpt);
  std::ofstream(dir.path() + "/job.sh") << script;
  auto run = RunCommand({"bash", dir.path() + "/job.sh"});
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->exit_code, 0) << run->err;
  EXPECT_EQ(run->out, "[a b]\n[it's]\n[$HOME]\n[*]\n[; ls]\n[`id`]\n");

  r.command = {"bash", "-c",
               "echo $SQUEEZE_JOB_ID $SQUEEZE_ATTEMPT \"$SQUEEZE_CHECKPOINT_DIR\" "
               "${SQUEEZE_RESUME:-none} \"$MY_VAR\" $PWD"};
  std::ofstream(dir.path() + "/job.sh") << SlurmBatchScript(7, 2, r, ckpt);
  auto first = RunCommand({"bash", dir.path() + "/job.sh"}, {{"SQUEEZE_RESUME", "1"}});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->out, "7 2 " + ckpt + " none x 'y' $z " + dir.path() + "\n");
  std::ofstream(ckpt + "/COMPLETE") << "step 5\n";
  auto resumed = RunCommand({"bash", dir.path() + "/job.sh"});
  ASSERT_TRUE(resumed.ok());
  EXPECT_THAT(resumed->out, HasSubstr(" 1 x 'y' $z"));

  r.workdir = dir.path() + "/missing";
  std::ofstream(dir.path() + "/job.sh") << SlurmBatchScript(7, 2, r, ckpt);
  auto missing = RunCommand({"bash", dir.path() + "/job.sh"});
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->exit_code, 127);
  EXPECT_THAT(missing->err, HasSubstr("cannot enter workdir"));
}

}  // namespace
}  // namespace squeeze
