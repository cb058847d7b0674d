#include "cli/submit_args.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Parses `squeeze submit ARGS...` as the real command line does.
class SubmitArgsTest : public ::testing::Test {
 protected:
  SubmitArgsTest() : sub_(app_.add_subcommand("submit")), args_(*sub_) {}
  void Parse(std::vector<std::string> words) {
    words.insert(words.begin(), "submit");
    std::reverse(words.begin(), words.end());
    app_.parse(words);
  }
  SubmitFlags Flags() {
    Result<SubmitFlags> f = args_.flags();
    EXPECT_TRUE(f.ok()) << f.status().message();
    return f.ok() ? *f : SubmitFlags{};
  }

  CLI::App app_;
  CLI::App* sub_;
  SubmitArgs args_;
};

TEST_F(SubmitArgsTest, FileAlone) {
  Parse({"job.yaml"});
  EXPECT_EQ(args_.file(), "job.yaml");
  EXPECT_TRUE(Flags().command.empty());
  EXPECT_FALSE(Flags().gpus.has_value());
}

TEST_F(SubmitArgsTest, TheFirstWordAfterDashIsTheProgramNotAFile) {
  Parse({"--gpus", "2", "--estimate", "1h", "--", "python", "train.py", "--lr", "3e-4"});
  EXPECT_EQ(args_.file(), std::nullopt);
  EXPECT_THAT(Flags().command, ElementsAre("python", "train.py", "--lr", "3e-4"));
  EXPECT_EQ(Flags().gpus, "2");
  EXPECT_EQ(Flags().estimate, "1h");
}

TEST_F(SubmitArgsTest, FileThenCommand) {
  Parse({"job.yaml", "--team", "ml", "--", "bash", "-c", "make"});
  EXPECT_EQ(args_.file(), "job.yaml");
  EXPECT_THAT(Flags().command, ElementsAre("bash", "-c", "make"));
  EXPECT_EQ(Flags().team, "ml");
}

TEST_F(SubmitArgsTest, EveryFlagReachesItsField) {
  Parse({"--name=n", "--gpus=1", "--gpu-milli=500", "--gpu-models=A100,H100", "--gpu-memory=40GiB",
         "--gpu-speeds", "V100:1,K80:0.24", "--pool=a100",
         "--regions=us-east,eu-west", "--data-gb=1.5", "--urgency=high",
         "--checkpoint-interval=5m", "--checkpoint-cost=2m", "--checkpoint-stall=5s",
         "--estimate=1h", "--deadline=+2h", "--team=t",
         "--workdir=w", "--max-retries=2", "--cpus=0.5", "--memory=1GiB", "--env", "A=1",
         "--env", "B=2", "--preemptible", "--checkpointable", "--", "x"});
  const SubmitFlags f = Flags();
  EXPECT_EQ(f.name, "n");
  EXPECT_EQ(f.gpus, "1");
  EXPECT_EQ(f.gpu_milli, "500");
  EXPECT_EQ(f.gpu_models, "A100,H100");
  EXPECT_EQ(f.gpu_memory, "40GiB");
  EXPECT_EQ(f.gpu_speeds, "V100:1,K80:0.24");
  EXPECT_EQ(f.pool, "a100");
  EXPECT_EQ(f.regions, "us-east,eu-west");
  EXPECT_EQ(f.data_gb, "1.5");
  EXPECT_EQ(f.urgency, "high");
  EXPECT_EQ(f.checkpoint_interval, "5m");
  EXPECT_EQ(f.checkpoint_cost, "2m");
  EXPECT_EQ(f.checkpoint_stall, "5s");
  EXPECT_EQ(f.estimate, "1h");
  EXPECT_EQ(f.deadline, "+2h");
  EXPECT_EQ(f.team, "t");
  EXPECT_EQ(f.workdir, "w");
  EXPECT_EQ(f.max_retries, "2");
  EXPECT_EQ(f.cpus, "0.5");
  EXPECT_EQ(f.memory, "1GiB");
  EXPECT_THAT(f.env, ElementsAre("A=1", "B=2"));
  EXPECT_EQ(f.preemptible, "true");
  EXPECT_EQ(f.checkpointable, "true");
  EXPECT_THAT(f.command, ElementsAre("x"));
}

TEST_F(SubmitArgsTest, EnvTakesOneValueEachTime) {
  Parse({"--env", "A=1", "job.yaml", "--env", "B=2"});
  EXPECT_EQ(args_.file(), "job.yaml");
  EXPECT_THAT(Flags().env, ElementsAre("A=1", "B=2"));
}

TEST_F(SubmitArgsTest, BoolFlagsTakeAnExplicitFalse) {
  Parse({"--preemptible=false", "--no-checkpointable", "--", "x"});
  EXPECT_EQ(Flags().preemptible, "false");
  EXPECT_EQ(Flags().checkpointable, "false");
}

TEST_F(SubmitArgsTest, UnsetBoolFlagsLeaveTheFileAlone) {
  Parse({"job.yaml"});
  EXPECT_FALSE(Flags().preemptible.has_value());
  EXPECT_FALSE(Flags().checkpointable.has_value());
}

TEST_F(SubmitArgsTest, HelpNamesTheRegionFlags) {
  const std::string help = sub_->help();
  EXPECT_THAT(help, HasSubstr("--pool"));
  EXPECT_THAT(help, HasSubstr("Regions the job and its data may go to, comma-separated"));
  EXPECT_THAT(help, HasSubstr("--data-gb"));
}

TEST_F(SubmitArgsTest, HelpNamesTheCheckpointCostAndStallFlags) {
  const std::string help = sub_->help();
  EXPECT_THAT(help, HasSubstr("--checkpoint-cost"));
  EXPECT_THAT(help, HasSubstr("What one checkpoint takes (2m)"));
  EXPECT_THAT(help, HasSubstr("--checkpoint-stall"));
  EXPECT_THAT(help, HasSubstr("the part of --checkpoint-cost that pauses training"));
}

TEST_F(SubmitArgsTest, HelpNamesTheGpuMemoryAndSpeedFlags) {
  const std::string help = sub_->help();
  EXPECT_THAT(help, HasSubstr("--gpu-memory"));
  EXPECT_THAT(help, HasSubstr("The least memory of each GPU it runs on (40GiB"));
  EXPECT_THAT(help, HasSubstr("--gpu-speeds"));
  EXPECT_THAT(help, HasSubstr("never its place in the queue"));
}

TEST_F(SubmitArgsTest, ACommandWithoutDashIsAnError) {
  Parse({"job.yaml", "python"});
  const Result<SubmitFlags> f = args_.flags();
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(),
              HasSubstr("'python': give one job file, and the command after --"));
}

}  // namespace
}  // namespace squeeze
