#include "config/sbatch_directives.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace squeeze {
namespace {

using ::testing::HasSubstr;

std::string ReadCorpus(const std::string& name) {
  std::ifstream in(std::string(SQUEEZE_SOURCE_DIR) + "/tests/data/sbatch/" + name);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

// "line:option=value" (or "line:option" for a flag), one per directive.
std::vector<std::string> Listed(const std::string& script) {
  Result<std::vector<SbatchDirective>> r = ReadSbatchDirectives(script, "job.sbatch");
  EXPECT_TRUE(r.ok()) << r.status().message();
  std::vector<std::string> out;
  if (!r.ok()) return out;
  for (const SbatchDirective& d : *r) {
    out.push_back(std::to_string(d.line) + ":" + d.option + (d.value ? "=" + *d.value : ""));
  }
  return out;
}

std::string ErrorOf(const std::string& script) {
  Result<std::vector<SbatchDirective>> r = ReadSbatchDirectives(script, "job.sbatch");
  return r.ok() ? "(read " + std::to_string(r->size()) + " directives)" : r.status().message();
}

TEST(SbatchDirectivesTest, ShortOptionsInAComputingCentresStyle) {
  EXPECT_THAT(Listed(ReadCorpus("perlmutter-style.sbatch")),
              ::testing::ElementsAre("2:account=m1234_g", "3:constraint=gpu", "4:qos=regular",
                                     "5:time=0:30:00", "6:nodes=2", "7:ntasks-per-node=4",
                                     "8:cpus-per-task=32", "9:gpus-per-node=4",
                                     "10:job-name=llm-pretrain", "11:output=logs/%x.%j.out",
                                     "12:error=logs/%x.%j.err"));
}

TEST(SbatchDirectivesTest, LongOptionsWithCommentsStopAtTheFirstCommand) {
  // The #SBATCH after `python train.py` is not read, as sbatch does not read it.
  EXPECT_THAT(Listed(ReadCorpus("princeton-style.sbatch")),
              ::testing::ElementsAre("2:job-name=torch-test", "3:nodes=1", "4:ntasks=1",
                                     "5:cpus-per-task=4", "6:mem=16G", "7:gres=gpu:1",
                                     "8:time=01:00:00", "9:mail-type=begin",
                                     "10:mail-user=me@example.edu", "11:output=slurm-%x-%j.out"));
}

TEST(SbatchDirectivesTest, ValuesAfterASpaceQuotesFlagsAndOptionalValues) {
  EXPECT_THAT(Listed(ReadCorpus("array-style.sbatch")),
              ::testing::ElementsAre(
                  "4:array=0-99:2%8", "5:partition=gpu", "6:gres=gpu:a100:2",
                  "7:time=2-12:00:00", "8:output=logs/%A_%a.out", "9:error=logs/%A_%a.err",
                  "10:requeue", "11:signal=B:USR1@300", "12:export=ALL,WANDB_MODE=offline",
                  "13:chdir=/home/me/sweep dir", "14:dependency=afterok:123:124",
                  "15:exclusive"));
}

TEST(SbatchDirectivesTest, FormsOfOneOption) {
  EXPECT_THAT(Listed("#!/bin/sh\n#SBATCH -Jname\n#SBATCH -J 'two words'\n"
                     "#SBATCH --job-name \"a \\\"b\\\"\"\n#SBATCH --exclusive=user --hold\r\n"
                     "#SBATCHX --not-read\n##SBATCH --not-read\n"),
              ::testing::ElementsAre("2:job-name=name", "3:job-name=two words",
                                     "4:job-name=a \"b\"", "5:exclusive=user", "5:hold"));
  EXPECT_THAT(Listed("echo hi\n#SBATCH --time=1\n"), ::testing::IsEmpty());
  EXPECT_THAT(Listed(""), ::testing::IsEmpty());
  EXPECT_THAT(Listed("#SBATCH -t 5"), ::testing::ElementsAre("1:time=5"));  // no newline
}

TEST(SbatchDirectivesTest, BrokenDirectivesNameTheLineAndTheOption) {
  EXPECT_EQ(ErrorOf("#!/bin/bash\n#SBATCH --tme=10\n"),
            "job.sbatch:2: #SBATCH --tme: not an sbatch option (did you mean --time?)");
  EXPECT_EQ(ErrorOf("#SBATCH --gpus-per-nod=2\n"),
            "job.sbatch:1: #SBATCH --gpus-per-nod: not an sbatch option (did you mean "
            "--gpus-per-node?)");
  EXPECT_EQ(ErrorOf("#SBATCH --frobnicate\n"),
            "job.sbatch:1: #SBATCH --frobnicate: not an sbatch option");
  EXPECT_EQ(ErrorOf("#SBATCH -y 3\n"), "job.sbatch:1: #SBATCH -y: not an sbatch option");
  EXPECT_EQ(ErrorOf("\n\n#SBATCH --time\n"), "job.sbatch:3: #SBATCH --time: needs a value");
  EXPECT_EQ(ErrorOf("#SBATCH --requeue=yes\n"),
            "job.sbatch:1: #SBATCH --requeue: takes no value (got 'yes')");
  EXPECT_EQ(ErrorOf("#SBATCH gpu:2\n"),
            "job.sbatch:1: #SBATCH 'gpu:2': not an option (a #SBATCH line gives options only)");
  EXPECT_EQ(ErrorOf("#SBATCH --job-name='open\n"),
            "job.sbatch:1: #SBATCH a single quote is not closed");
}

TEST(SbatchDirectivesTest, EveryOptionIsFoundByItsNameAndLetter) {
  for (const SbatchOption& o : SbatchOptions()) {
    EXPECT_EQ(FindSbatchOption(o.name), &o) << o.name;
    if (o.letter != 0) EXPECT_EQ(FindSbatchOption(std::string(1, o.letter)), &o) << o.name;
  }
  EXPECT_EQ(FindSbatchOption("no-such"), nullptr);
}

}  // namespace
}  // namespace squeeze

namespace squeeze {
namespace {

// squeeze's own options on #SQUEEZE lines, among the #SBATCH ones and in their order; sbatch
// reads them as comments, so the block goes on past them.
TEST(SbatchDirectivesTest, SqueezeLinesGiveSqueezesOwnOptions) {
  const std::string script =
      "#!/bin/bash\n#SBATCH --gres=gpu:V100:2\n#SQUEEZE --gpu-memory=24GiB --estimate 2h\n"
      "#SQUEEZE --gpu-speeds 'V100:1,K80:0.24' --checkpointable --preemptible=false\n"
      "#SQUEEZEX --not-read\n#SBATCH -t 60\npython3 train.py\n#SQUEEZE --gpu-memory=1TiB\n";
  Result<std::vector<SbatchDirective>> r = ReadSbatchDirectives(script, "job.sbatch");
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<std::string> got;
  for (const SbatchDirective& d : *r) {
    got.push_back(std::string(d.squeeze ? "Q" : "S") + std::to_string(d.line) + ":" + d.option +
                  (d.value ? "=" + *d.value : ""));
  }
  EXPECT_EQ(got, (std::vector<std::string>{
                     "S2:gres=gpu:V100:2", "Q3:gpu-memory=24GiB", "Q3:estimate=2h",
                     "Q4:gpu-speeds=V100:1,K80:0.24", "Q4:checkpointable",
                     "Q4:preemptible=false", "S6:time=60"}));
}

TEST(SbatchDirectivesTest, BrokenSqueezeLinesNameTheLineAndTheOption) {
  EXPECT_EQ(ErrorOf("#!/bin/sh\n#SQUEEZE --time=5\n"),
            "job.sbatch:2: #SQUEEZE --time: not one of squeeze's options for a script "
            "(--gpu-memory, --gpu-speeds, --gpu-models, --gpu-milli, --estimate, --deadline, "
            "--urgency, --preemptible, --checkpointable, --fault-tolerant, "
            "--checkpoint-interval, --checkpoint-cost, --checkpoint-stall, --data-gb, "
            "--regions, --max-retries, --step, --scaling, --topology); sbatch's go on #SBATCH lines");
  EXPECT_EQ(ErrorOf("#!/bin/sh\n#SQUEEZE -t 5\n"),
            "job.sbatch:2: #SQUEEZE '-t': not an option (a #SQUEEZE line gives options only, "
            "by their long names)");
  EXPECT_EQ(ErrorOf("#!/bin/sh\n#SQUEEZE gpu-memory=4GiB\n"),
            "job.sbatch:2: #SQUEEZE 'gpu-memory=4GiB': not an option (a #SQUEEZE line gives "
            "options only, by their long names)");
  EXPECT_EQ(ErrorOf("#!/bin/sh\n#SQUEEZE --gpu-memory\n"),
            "job.sbatch:2: #SQUEEZE --gpu-memory: needs a value");
  EXPECT_EQ(ErrorOf("#!/bin/sh\n#SQUEEZE --gpu-speeds 'V100:1\n"),
            "job.sbatch:2: #SQUEEZE a single quote is not closed");
  EXPECT_EQ(ErrorOf("#!/bin/sh\n#SQUEEZE --\n"),
            "job.sbatch:2: #SQUEEZE '--': not an option (a #SQUEEZE line gives options only, "
            "by their long names)");
}

}  // namespace
}  // namespace squeeze
