#include "cli/submit_request.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/testing/temp_dir.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr Time kNow = Seconds(1796083200);  // 2026-12-01T00:00:00Z
constexpr const char* kCwd = "/home/me/project";

class SubmitRequestTest : public ::testing::Test {
 protected:
  std::string WriteFile(const std::string& text) {
    const std::string path = dir_.path() + "/job.yaml";
    std::ofstream(path) << text;
    return path;
  }
  std::string Error(const std::optional<std::string>& file, const SubmitFlags& flags) {
    const Result<JobRequest> r = BuildSubmitRequest(file, flags, kCwd, kNow);
    EXPECT_FALSE(r.ok());
    return r.ok() ? "" : r.status().message();
  }
  JobRequest Build(const std::optional<std::string>& file, const SubmitFlags& flags) {
    Result<JobRequest> r = BuildSubmitRequest(file, flags, kCwd, kNow);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : JobRequest{};
  }
  static SubmitFlags Command(std::vector<std::string> words) {
    SubmitFlags f;
    f.command = std::move(words);
    return f;
  }

  testing::TempDir dir_;
};

TEST_F(SubmitRequestTest, FileOnlyReadsItLikeReadJobFile) {
  const std::string file = WriteFile(
      "name: resnet\ncommand: [python, train.py]\nworkdir: sub/../run\ngpus: 2\nestimate: 2h\n"
      "deadline: +12h\ncpus: 0.5\nmemory: 1GiB\nenv: {A: b}\n");
  const JobRequest r = Build(file, {});
  EXPECT_EQ(r.spec.name, "resnet");
  EXPECT_EQ(r.command, (std::vector<std::string>{"python", "train.py"}));
  EXPECT_EQ(r.workdir, "/home/me/project/run");
  EXPECT_EQ(r.spec.gpus, 2);
  EXPECT_EQ(r.spec.estimate, 2 * kHour);
  EXPECT_EQ(r.spec.deadline, kNow + 12 * kHour);
  EXPECT_EQ(r.spec.cpu_milli, 500);
  EXPECT_EQ(r.spec.memory_mib, 1024);
  EXPECT_EQ(r.env.at("A"), "b");
}

TEST_F(SubmitRequestTest, FileErrorsKeepFileLineColumn) {
  const std::string file = WriteFile("command: [x]\ngpus: two\n");
  EXPECT_EQ(Error(file, {}), file + ":2:7: gpus: value 'two' is not an integer");
  EXPECT_THAT(Error(dir_.path() + "/missing.yaml", {}), StartsWith("job file: "));
}

TEST_F(SubmitRequestTest, FlagsOnlySetEveryField) {
  SubmitFlags f = Command({"python", "train.py", "--lr", "3e-4"});
  f.name = "sweep";
  f.gpus = "1";
  f.gpu_milli = "500";
  f.gpu_models = "A100, H100";
  f.gpu_memory = "40GiB";
  f.gpu_speeds = "A100:1,H100:2.5";
  f.topology = "required:rack";
  f.pool = "a100";
  f.regions = "us-east, eu-west";
  f.data_gb = "1.5";
  f.urgency = "high";
  f.preemptible = "true";
  f.fault_tolerant = "true";
  f.checkpointable = "true";
  f.checkpoint_interval = "30m";
  f.checkpoint_cost = "2m";
  f.checkpoint_stall = "5s";
  f.estimate = "1h30m";
  f.deadline = "2026-12-02T00:00:00Z";
  f.team = "ml";
  f.workdir = "/data/run";
  f.max_retries = "3";
  f.cpus = "4";
  f.memory = "16GiB";
  f.env = {"OMP_NUM_THREADS=4", "EXPR=a=b"};
  const JobRequest r = Build(std::nullopt, f);
  EXPECT_EQ(r.spec.name, "sweep");
  EXPECT_EQ(r.command, (std::vector<std::string>{"python", "train.py", "--lr", "3e-4"}));
  EXPECT_EQ(r.spec.gpus, 1);
  EXPECT_EQ(r.spec.gpu_milli, 500);
  EXPECT_EQ(r.spec.gpu_models, (std::vector<std::string>{"A100", "H100"}));
  EXPECT_EQ(r.spec.min_gpu_memory_mib, 40 * 1024);
  EXPECT_EQ(r.spec.gpu_speeds, (std::map<std::string, double>{{"A100", 1}, {"H100", 2.5}}));
  EXPECT_EQ(TopologyRequestText(r.spec.topology), "required:rack");
  EXPECT_EQ(r.spec.pool, "a100");
  EXPECT_EQ(r.spec.regions, (std::vector<std::string>{"us-east", "eu-west"}));
  EXPECT_EQ(r.spec.data_gb, 1.5);
  EXPECT_EQ(r.spec.urgency, Urgency::kHigh);
  EXPECT_TRUE(r.spec.preemptible);
  EXPECT_TRUE(r.spec.fault_tolerant);
  EXPECT_TRUE(r.spec.checkpointable);
  EXPECT_EQ(r.spec.checkpoint_interval, 30 * kMinute);
  EXPECT_EQ(r.spec.checkpoint_cost, 2 * kMinute);
  EXPECT_EQ(r.spec.checkpoint_stall, 5 * kSecond);
  EXPECT_EQ(r.spec.estimate, 90 * kMinute);
  EXPECT_EQ(r.spec.deadline, kNow + kDay);
  EXPECT_EQ(r.spec.team, "ml");
  EXPECT_EQ(r.workdir, "/data/run");
  EXPECT_EQ(r.max_retries, 3);
  EXPECT_EQ(r.spec.cpu_milli, 4000);
  EXPECT_EQ(r.spec.memory_mib, 16 * 1024);
  EXPECT_EQ(r.env, (std::map<std::string, std::string>{{"OMP_NUM_THREADS", "4"}, {"EXPR", "a=b"}}));
}

TEST_F(SubmitRequestTest, CommandAloneTakesDefaultsAndTheCurrentDirectory) {
  const JobRequest r = Build(std::nullopt, Command({"/usr/bin/python3", "x.py"}));
  EXPECT_EQ(r.spec.name, "python3");
  EXPECT_EQ(r.workdir, kCwd);
  EXPECT_EQ(r.spec.gpus, 1);
  EXPECT_EQ(r.max_retries, -1);
  EXPECT_FALSE(r.spec.estimate.has_value());
}

TEST_F(SubmitRequestTest, FlagsOverrideTheFile) {
  const std::string file = WriteFile(
      "command: [python, train.py]\ngpus: 4\nestimate: 2h\npreemptible: true\nurgency: low\n"
      "env: {A: file, B: file}\nworkdir: /from/file\npool: a100\nregions: [us-east, eu-west]\n"
      "data_gb: 250\n");
  SubmitFlags f;
  f.gpus = "8";
  f.regions = "eu-west";
  f.data_gb = "0";
  f.preemptible = "false";
  f.env = {"B=flag"};
  f.workdir = "out";
  const JobRequest r = Build(file, f);
  EXPECT_EQ(r.spec.gpus, 8);
  EXPECT_FALSE(r.spec.preemptible);
  EXPECT_EQ(r.spec.estimate, 2 * kHour);  // kept from the file
  EXPECT_EQ(r.spec.urgency, Urgency::kLow);
  EXPECT_EQ(r.spec.pool, "a100");  // kept from the file
  EXPECT_EQ(r.spec.regions, (std::vector<std::string>{"eu-west"}));
  EXPECT_EQ(r.spec.data_gb, 0);
  EXPECT_EQ(r.env, (std::map<std::string, std::string>{{"A", "file"}, {"B", "flag"}}));
  EXPECT_EQ(r.workdir, "/home/me/project/out");
  EXPECT_EQ(r.spec.name, "python");
}

TEST_F(SubmitRequestTest, GpuMemoryAndSpeedsComeFromTheFileOrTheFlags) {
  const std::string file = WriteFile(
      "command: [python, train.py]\ngpu_memory: 24GiB\ngpu_speeds: {V100: 1, 'Tesla K80': 0.24}\n");
  JobRequest r = Build(file, SubmitFlags{});
  EXPECT_EQ(r.spec.min_gpu_memory_mib, 24 * 1024);
  EXPECT_EQ(r.spec.gpu_speeds, (std::map<std::string, double>{{"V100", 1}, {"Tesla K80", 0.24}}));
  SubmitFlags f;
  f.gpu_memory = "80GiB";
  f.gpu_speeds = "H100:2";
  r = Build(file, f);
  EXPECT_EQ(r.spec.min_gpu_memory_mib, 80 * 1024);
  EXPECT_EQ(r.spec.gpu_speeds, (std::map<std::string, double>{{"H100", 2}}));
}

TEST_F(SubmitRequestTest, ACommandAfterDashReplacesTheFilesAndItsDefaultName) {
  const std::string unnamed = WriteFile("command: [python, train.py]\ngpus: 2\n");
  JobRequest r = Build(unnamed, Command({"bash", "run.sh"}));
  EXPECT_EQ(r.command, (std::vector<std::string>{"bash", "run.sh"}));
  EXPECT_EQ(r.spec.name, "bash");
  EXPECT_EQ(r.spec.gpus, 2);
  const std::string named = WriteFile("name: mine\ncommand: [python, train.py]\n");
  r = Build(named, Command({"bash", "run.sh"}));
  EXPECT_EQ(r.spec.name, "mine");
}

TEST_F(SubmitRequestTest, BadFlagValuesNameTheFlagAndTheValue) {
  const auto flag_error = [&](std::optional<std::string> SubmitFlags::*field, std::string value) {
    SubmitFlags f = Command({"x"});
    f.*field = std::move(value);
    return Error(std::nullopt, f);
  };
  EXPECT_THAT(flag_error(&SubmitFlags::estimate, "5x"),
              StartsWith("--estimate: '5x' is not a duration"));
  EXPECT_EQ(flag_error(&SubmitFlags::gpus, "two"), "--gpus: value 'two' is not an integer");
  EXPECT_EQ(flag_error(&SubmitFlags::gpu_milli, "0"), "--gpu-milli: value '0' is outside 1..1000");
  EXPECT_EQ(flag_error(&SubmitFlags::urgency, "asap"),
            "--urgency: value 'asap' is not one of critical, high, normal, low");
  EXPECT_THAT(flag_error(&SubmitFlags::deadline, "tomorrow"),
              StartsWith("--deadline: 'tomorrow' is not a date-time"));
  EXPECT_THAT(flag_error(&SubmitFlags::deadline, "2026-11-30T00:00:00Z"),
              StartsWith("--deadline: '2026-11-30T00:00:00Z' is not in the future"));
  EXPECT_THAT(flag_error(&SubmitFlags::cpus, "many"), StartsWith("--cpus: 'many' is not a number"));
  EXPECT_THAT(flag_error(&SubmitFlags::memory, "16GB"),
              StartsWith("--memory: '16GB' is not a memory size"));
  EXPECT_EQ(flag_error(&SubmitFlags::max_retries, "101"),
            "--max-retries: value '101' is outside 0..100");
  EXPECT_THAT(flag_error(&SubmitFlags::name, "-bad"),
              StartsWith("--name: value '-bad' is not a valid name"));
  EXPECT_THAT(flag_error(&SubmitFlags::team, "a b"), StartsWith("--team: value 'a b' is not"));
  EXPECT_EQ(flag_error(&SubmitFlags::gpu_models, "A100,,H100"),
            "--gpu-models: a model name is empty");
  EXPECT_EQ(flag_error(&SubmitFlags::gpu_memory, "40G"),
            "--gpu-memory: '40G' is not a memory size (use forms like 512MiB, 16GiB, 1.5TiB)");
  EXPECT_EQ(flag_error(&SubmitFlags::gpu_speeds, "V100:1000"),
            "--gpu-speeds: value '1000' is not a speed from 0.001 to 100 (relative to the card "
            "the estimate is for, 1)");
  EXPECT_THAT(flag_error(&SubmitFlags::gpu_speeds, "V100=1"),
              StartsWith("--gpu-speeds: 'V100=1' is not MODEL:SPEED (as V100:1,K80:0.24)"));
  EXPECT_EQ(flag_error(&SubmitFlags::topology, "required"),
            "--topology: topology 'required': required needs a level (required:rack)");
  EXPECT_THAT(flag_error(&SubmitFlags::topology, "strict:rack"),
              StartsWith("--topology: topology 'strict:rack': 'strict' is not preferred"));
  EXPECT_EQ(flag_error(&SubmitFlags::pool, ""), "--pool: the pool name is empty");
  EXPECT_EQ(flag_error(&SubmitFlags::regions, "us-east,,eu-west"),
            "--regions: a region name is empty");
  EXPECT_EQ(flag_error(&SubmitFlags::regions, ""), "--regions: a region name is empty");
  EXPECT_EQ(flag_error(&SubmitFlags::data_gb, "-1"), "--data-gb: value '-1' is outside 0..1e12");
  EXPECT_EQ(flag_error(&SubmitFlags::data_gb, "lots"),
            "--data-gb: value 'lots' is not a number of GB (like 250 or 1.5)");
  EXPECT_EQ(flag_error(&SubmitFlags::data_gb, "inf"),
            "--data-gb: value 'inf' is not a number of GB (like 250 or 1.5)");
  EXPECT_EQ(flag_error(&SubmitFlags::checkpoint_interval, "30m"),
            "--checkpoint-interval: needs checkpointable: true");
  EXPECT_EQ(flag_error(&SubmitFlags::checkpoint_cost, "2m"),
            "--checkpoint-cost: needs checkpointable: true");
  EXPECT_EQ(flag_error(&SubmitFlags::checkpoint_stall, "5s"),
            "--checkpoint-stall: needs checkpointable: true");
  EXPECT_EQ(flag_error(&SubmitFlags::workdir, "~/x"),
            "--workdir: '~/x': '~' is not expanded; give the full path");
  EXPECT_EQ(flag_error(&SubmitFlags::workdir, ""), "--workdir: the path is empty");
}

TEST_F(SubmitRequestTest, ControlCharactersInFlagsAreRefusedNamingTheFlag) {
  SubmitFlags f = Command({"true"});
  f.name = "\x1b[2Jhi";
  EXPECT_EQ(Error(std::nullopt, f),
            "--name: '\\x1b[2Jhi' holds a control character (\\x1b); names are printed to "
            "other users");
  f = Command({"true"});
  f.output = "/tmp/out\r\x1b[1A 12 bob fake";
  EXPECT_THAT(Error(std::nullopt, f),
              StartsWith("--output: '/tmp/out\\r\\x1b[1A 12 bob fake' holds a control character "
                         "(\\r)"));
  f = Command({"true"});
  f.team = "ml\x7f";
  EXPECT_THAT(Error(std::nullopt, f), StartsWith("--team: 'ml\\x7f' holds a control character"));
  const std::string file = WriteFile("command: [x]\nerror: \"/tmp/e\\e[2J\"\n");
  EXPECT_THAT(Error(file, {}), HasSubstr(":2:8: error: '/tmp/e\\x1b[2J' holds a control "
                                         "character"));
}

TEST_F(SubmitRequestTest, TextThatIsNotUtf8IsRefusedExceptInTheEnvironment) {
  SubmitFlags f = Command({"cat", "caf\xE9.txt"});  // Latin-1, not UTF-8
  EXPECT_EQ(Error(std::nullopt, f),
            "the command after --: command[1]: 'caf\\xe9.txt' is not valid UTF-8 (byte \\xe9 at "
            "offset 3); squeeze sends a job as UTF-8 JSON");
  f = Command({"true"});
  f.output = "/tmp/\xC0\xAF";  // an overlong '/'
  EXPECT_THAT(Error(std::nullopt, f), StartsWith("--output: '/tmp/\\xc0\\xaf' is not valid UTF-8"));
  // A variable of the environment a job takes whole (as sbatch's --export=ALL) is replaced.
  f = Command({"true"});
  f.env = {"LEGACY=caf\xE9"};
  const JobRequest r = Build(std::nullopt, f);
  EXPECT_EQ(r.env.at("LEGACY"), "caf\xEF\xBF\xBD");
}

TEST_F(SubmitRequestTest, BadEnvAndCommandNameThem) {
  SubmitFlags f = Command({"x"});
  f.env = {"NOEQUALS"};
  EXPECT_EQ(Error(std::nullopt, f), "--env: 'NOEQUALS' is not KEY=VALUE");
  f.env = {"SQUEEZE_JOB_ID=1"};
  EXPECT_EQ(Error(std::nullopt, f),
            "--env SQUEEZE_JOB_ID: names starting with SQUEEZE_ are reserved for squeeze");
  f.env = {"1X=1"};
  EXPECT_THAT(Error(std::nullopt, f), StartsWith("--env 1X: '1X' is not a variable name"));
  EXPECT_EQ(Error(std::nullopt, Command({""})),
            "the command after --: command[0]: the program name is empty");
}

TEST_F(SubmitRequestTest, BadRegionsAndDataGbInTheFileNameTheFile) {
  std::string file = WriteFile("command: [x]\nregions: {us: east}\n");
  EXPECT_EQ(Error(file, {}),
            file + ":2:10: regions: expected a region or a list of them, got a map");
  file = WriteFile("command: [x]\ndata_gb: -3\n");
  EXPECT_EQ(Error(file, {}), file + ":2:10: data_gb: value '-3' is outside 0..1e12");
}

TEST_F(SubmitRequestTest, ARuleBrokenAcrossFileAndFlagNamesTheFile) {
  const std::string file = WriteFile("command: [x]\ngpu_milli: 500\n");
  SubmitFlags f;
  f.gpus = "2";
  EXPECT_EQ(Error(file, f), file + ": gpu_milli: a fraction of a GPU (500) needs gpus: 1, not 2");
}

TEST_F(SubmitRequestTest, CheckpointCostAndStallComeFromTheFileOrTheFlags) {
  const std::string file = WriteFile(
      "command: [x]\ncheckpointable: true\ncheckpoint_cost: 2m\ncheckpoint_stall: 5s\n");
  JobRequest r = Build(file, {});
  EXPECT_EQ(r.spec.checkpoint_cost, 2 * kMinute);
  EXPECT_EQ(r.spec.checkpoint_stall, 5 * kSecond);
  SubmitFlags f;
  f.checkpoint_stall = "10s";
  r = Build(file, f);
  EXPECT_EQ(r.spec.checkpoint_cost, 2 * kMinute);  // kept from the file
  EXPECT_EQ(r.spec.checkpoint_stall, 10 * kSecond);
  f.checkpoint_stall = "5m";
  EXPECT_EQ(Error(file, f),
            "--checkpoint-stall: value '5m' is longer than checkpoint_cost '2m' (the stall is the "
            "part of the checkpoint that pauses training)");
  SubmitFlags only_stall = Command({"x"});
  only_stall.checkpointable = "true";
  only_stall.checkpoint_stall = "5s";
  EXPECT_EQ(Error(std::nullopt, only_stall),
            "--checkpoint-stall: needs checkpoint_cost (what the whole checkpoint takes; the "
            "stall is the part of it that pauses training)");
  SubmitFlags off;
  off.checkpointable = "false";
  EXPECT_EQ(Error(file, off), file + ": checkpoint_cost: needs checkpointable: true");
}

TEST_F(SubmitRequestTest, NeitherFileNorCommandIsAnError) {
  SubmitFlags f;
  f.gpus = "2";
  EXPECT_EQ(Error(std::nullopt, f),
            "give a job file, a batch script, --wrap \"COMMAND\" or a command after --");
}

TEST_F(SubmitRequestTest, RelativeWorkdirsResolveAgainstTheGivenDirectory) {
  SubmitFlags f = Command({"x"});
  f.workdir = "../data/./run/";
  EXPECT_EQ(Build(std::nullopt, f).workdir, "/home/me/data/run");
  f.workdir = ".";
  EXPECT_EQ(Build(std::nullopt, f).workdir, kCwd);
  const std::string file = WriteFile("command: [x]\nworkdir: logs\n");
  EXPECT_EQ(Build(file, {}).workdir, "/home/me/project/logs");
  const std::string no_workdir = WriteFile("command: [x]\n");
  EXPECT_EQ(Build(no_workdir, {}).workdir, kCwd);
}

}  // namespace
}  // namespace squeeze
