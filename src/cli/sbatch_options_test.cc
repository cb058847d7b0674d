// Batch scripts as jobs: the corpus of tests/data/sbatch (scripts in the styles of several
// sites' guides) read into the expected job fields; unsupported and broken options refused
// with the line; the same options as submit's flags; --wrap; --export.
#include "cli/sbatch_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli/submit_request.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr Time kNow = Seconds(1796083200);  // 2026-12-01T00:00:00Z
constexpr const char* kCwd = "/home/me/project";

std::string Corpus(const std::string& name) {
  return std::string(SQUEEZE_SOURCE_DIR) + "/tests/data/sbatch/" + name;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Built {
  JobRequest job;
  std::vector<std::string> warnings;
};

Built Build(const std::optional<std::string>& file, SubmitFlags flags = {}) {
  flags.environ = {{"HOME", "/home/me"},
                   {"PATH", "/usr/bin:/bin"},
                   {"SQUEEZE_TOKEN", "secret"},
                   {"BASH_FUNC_ml%%", "() { :; }"}};
  Built out;
  Result<JobRequest> r = BuildSubmitRequest(file, flags, kCwd, kNow, &out.warnings);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok()) out.job = *r;
  return out;
}

std::string Error(const std::optional<std::string>& file, SubmitFlags flags = {}) {
  Result<JobRequest> r = BuildSubmitRequest(file, flags, kCwd, kNow);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

SbatchDirective Flag(std::string option, std::optional<std::string> value) {
  SbatchDirective d;
  d.option = std::move(option);
  d.written = "--" + d.option;
  d.value = std::move(value);
  return d;
}

TEST(SbatchOptionsTest, APrincetonStyleScriptBecomesItsJob) {
  const std::string path = Corpus("princeton-style.sbatch");
  // Mail is not squeeze's: refused with its line, or left out with a warning.
  EXPECT_EQ(Error(path), path +
                             ":9: #SBATCH --mail-type=begin: not supported: squeeze sends "
                             "no mail (--ignore-unsupported leaves it out)");
  SubmitFlags flags;
  flags.ignore_unsupported = true;
  const Built b = Build(path, flags);
  const JobSpec& s = b.job.spec;
  EXPECT_EQ(s.name, "torch-test");
  EXPECT_EQ(s.gpus, 1);
  EXPECT_EQ(s.cpu_milli, 4000);
  EXPECT_EQ(s.memory_mib, 16 * 1024);
  EXPECT_EQ(s.time_limit, kHour);  // the #SBATCH after the first command is not read
  EXPECT_FALSE(s.estimate.has_value());
  EXPECT_EQ(b.job.output_path, "slurm-%x-%j.out");  // filled in at each start
  EXPECT_EQ(b.job.error_path, "");                   // stderr with stdout
  EXPECT_EQ(b.warnings.size(), 2u);
  EXPECT_THAT(b.warnings[1], HasSubstr(":10: #SBATCH --mail-user=me@example.edu: not supported"));
  // The script runs from the text read at submission, as sbatch keeps a copy.
  ASSERT_EQ(b.job.command.size(), 4u);
  EXPECT_THAT(b.job.command, ElementsAre("/bin/bash", "-c", Read(path), path));
  EXPECT_EQ(b.job.workdir, kCwd);
  // sbatch's default --export=ALL: the environment, less squeeze's own and shell functions.
  EXPECT_EQ(b.job.env,
            (std::map<std::string, std::string>{{"HOME", "/home/me"}, {"PATH", "/usr/bin:/bin"}}));
}

TEST(SbatchOptionsTest, APerlmutterStyleScriptMultipliesPerNodeCounts) {
  const std::string path = Corpus("perlmutter-style.sbatch");
  EXPECT_THAT(Error(path), HasSubstr(":3: #SBATCH -C gpu: not supported"));
  SubmitFlags flags;
  flags.ignore_unsupported = true;
  const Built b = Build(path, flags);
  const JobSpec& s = b.job.spec;
  EXPECT_EQ(s.name, "llm-pretrain");
  EXPECT_EQ(s.team, "m1234_g");
  EXPECT_EQ(s.urgency, Urgency::kNormal);  // -q regular
  EXPECT_EQ(s.time_limit, 30 * kMinute);
  EXPECT_EQ(s.gpus, 8);                       // 2 nodes x 4
  EXPECT_EQ(s.cpu_milli, 2 * 4 * 32 * 1000);  // nodes x tasks per node x cpus per task
  // Its `srun python train.py` starts 2 x 4 tasks: the script runs once, as sbatch runs it.
  EXPECT_EQ(b.job.tasks, 8);
  EXPECT_EQ(b.job.output_path, "logs/%x.%j.out");
  EXPECT_EQ(b.job.error_path, "logs/%x.%j.err");
  ASSERT_EQ(b.warnings.size(), 1u);
}

// --switches=COUNT[@MAX_TIME] is squeeze's preferred placement (inside one block when one has
// room); #SQUEEZE --topology asks for more; a broken count is refused with its line.
TEST(SbatchOptionsTest, SwitchesArePreferredPlacementAndTopologyComesFromSqueezeLines) {
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/switches.sbatch")
      << "#!/bin/bash\n#SBATCH --nodes=2 --gres=gpu:4\n#SBATCH --switches=1@10:00\npython3 t.py\n";
  Built b = Build(dir + "/switches.sbatch");
  EXPECT_EQ(TopologyRequestText(b.job.spec.topology), "preferred");
  std::ofstream(dir + "/required.sbatch")
      << "#!/bin/bash\n#SBATCH --nodes=2 --gres=gpu:4\n#SBATCH --switches=1\n"
      << "#SQUEEZE --topology=required:switch\npython3 t.py\n";
  b = Build(dir + "/required.sbatch");
  EXPECT_EQ(TopologyRequestText(b.job.spec.topology), "required:switch");
  std::ofstream(dir + "/bad-switches.sbatch")
      << "#!/bin/bash\n#SBATCH --switches=zero\npython3 t.py\n";
  EXPECT_THAT(Error(dir + "/bad-switches.sbatch"),
              HasSubstr(":2: #SBATCH --switches=zero: 'zero' is not COUNT[@MAX_TIME]"));
}

// --nodes=2-4 with --gres=gpu:N is Slurm's moldable job: an elastic job of 2N to 4N GPUs in
// steps of N (whole nodes' GPUs), which waits for 2N.
TEST(SbatchOptionsTest, ARangeOfNodesIsAnElasticJobOfWholeNodes) {
  SubmitFlags flags;
  flags.sbatch = {Flag("nodes", "2-4"), Flag("gres", "gpu:8")};
  flags.command = {"true"};
  const JobSpec s = Build(std::nullopt, flags).job.spec;
  EXPECT_EQ(s.elastic.min, 16);
  EXPECT_EQ(s.elastic.max, 32);
  EXPECT_EQ(s.elastic.step, 8);
  EXPECT_EQ(s.gpus, 16);
  EXPECT_FALSE(s.checkpointable);  // moldable only (sized at its start) unless it checkpoints
  flags.sbatch.push_back(Flag("gpus", "4"));
  EXPECT_THAT(Error(std::nullopt, flags), HasSubstr("a range of nodes needs its GPUs per node"));
}

// -o/-e: files for the run's stdout and stderr; a pattern squeeze cannot fill in, or a
// directory, is refused with its line; --open-mode=truncate is what squeeze does anyway.
TEST(SbatchOptionsTest, OutputAndErrorFilesAndTheirMistakes) {
  SubmitFlags flags;
  flags.sbatch = {Flag("output", "out_%j.txt"), Flag("error", "/tmp/%x_%A_%a.err"),
                  Flag("open-mode", "truncate")};
  flags.command = {"python", "prep.py"};
  Built b = Build(std::nullopt, flags);
  EXPECT_EQ(b.job.output_path, "out_%j.txt");
  EXPECT_EQ(b.job.error_path, "/tmp/%x_%A_%a.err");
  EXPECT_THAT(b.warnings, IsEmpty());

  flags.sbatch = {Flag("output", "out_%Q.txt")};
  EXPECT_EQ(Error(std::nullopt, flags),
            "--output=out_%Q.txt: '%Q' is not a pattern squeeze fills in; it knows %j (job id), "
            "%A (array id), %a (array task), %x (name), %u (user), %% (a percent sign)");
  flags.sbatch = {Flag("error", "logs/")};
  EXPECT_THAT(Error(std::nullopt, flags), HasSubstr("--error=logs/: it names a directory"));
  flags.sbatch = {Flag("output", "")};
  EXPECT_THAT(Error(std::nullopt, flags), HasSubstr("the path is empty"));
  flags.sbatch = {Flag("open-mode", "append")};
  EXPECT_THAT(Error(std::nullopt, flags),
              HasSubstr("--open-mode=append: not supported: squeeze empties the file at a job's "
                        "first run and appends at its later runs"));

  const std::string script = std::string(::testing::TempDir()) + "/bad-output.sbatch";
  std::ofstream(script) << "#!/bin/bash\n#SBATCH -J x\n#SBATCH -o out_%N.log\necho hi\n";
  EXPECT_THAT(Error(script), HasSubstr(script + ":3: #SBATCH -o out_%N.log: '%N' is not a "
                                                "pattern squeeze fills in"));
}

// A directive's value becomes a name, a path, a team: no control characters, refused with
// the line and the value escaped (the script's own lines and --export keep theirs).
TEST(SbatchOptionsTest, ADirectiveWithAControlCharacterIsRefusedWithItsLine) {
  const std::string script = std::string(::testing::TempDir()) + "/escape.sbatch";
  std::ofstream(script) << "#!/bin/bash\n#SBATCH -J ok\n#SBATCH -o /tmp/x\x1b[1Afake\n"
                        << "printf '\x1b[31mred\\n'\n";
  EXPECT_EQ(Error(script),
            script + ":3: #SBATCH -o /tmp/x\\x1b[1Afake: '/tmp/x\\x1b[1Afake' holds a "
                     "control character (\\x1b); squeeze prints it in its tables and messages");
  SubmitFlags flags;
  flags.command = {"true"};
  flags.sbatch = {Flag("job-name", "a\x1b]0;title\x07")};
  EXPECT_THAT(Error(std::nullopt, flags),
              HasSubstr("--job-name=a\\x1b]0;title\\x07: 'a\\x1b]0;title\\x07' holds a control "
                        "character (\\x1b)"));
  flags.sbatch = {Flag("account", "ml\xC2\x9b")};
  EXPECT_THAT(Error(std::nullopt, flags), HasSubstr("holds a control character (\\u009b)"));
  // The script's own text may hold any control: it is the program.
  const std::string colours = std::string(::testing::TempDir()) + "/colours.sbatch";
  std::ofstream(colours) << "#!/bin/bash\n#SBATCH -J colours\nprintf '\x1b[31mred\\n'\r\n";
  Built b = Build(colours);
  EXPECT_EQ(b.job.spec.name, "colours");
}

TEST(SbatchOptionsTest, MemPerGpuIsHostMemoryAndSqueezeLinesGiveGpuMemory) {
  // Slurm's --mem-per-gpu is host memory per GPU: it stays `memory`, never GPU memory.
  const std::string plain = std::string(::testing::TempDir()) + "/mem-per-gpu.sbatch";
  std::ofstream(plain) << "#!/bin/bash\n#SBATCH --gres=gpu:a100:2\n#SBATCH --mem-per-gpu=40G\n"
                       << "python3 train.py\n";
  Built b = Build(plain);
  EXPECT_EQ(b.job.spec.memory_mib, 2 * 40 * 1024);
  EXPECT_EQ(b.job.spec.min_gpu_memory_mib, 0);
  EXPECT_THAT(b.job.spec.gpu_models, ElementsAre("a100"));
  // GPU memory and the job's speeds on #SQUEEZE lines, which sbatch reads as comments.
  const std::string script = std::string(::testing::TempDir()) + "/squeeze-lines.sbatch";
  std::ofstream(script) << "#!/bin/bash\n#SBATCH --gres=gpu:2\n#SBATCH --mem-per-gpu=8G\n"
                        << "#SQUEEZE --gpu-memory=40GiB --gpu-speeds=V100:1,K80:0.24\n"
                        << "#SQUEEZE --checkpointable --estimate 2h --gpu-models V100,K80\n"
                        << "python3 train.py\n";
  b = Build(script);
  EXPECT_EQ(b.job.spec.gpus, 2);
  EXPECT_EQ(b.job.spec.memory_mib, 2 * 8 * 1024);
  EXPECT_EQ(b.job.spec.min_gpu_memory_mib, 40 * 1024);
  EXPECT_EQ(b.job.spec.gpu_speeds, (std::map<std::string, double>{{"V100", 1}, {"K80", 0.24}}));
  EXPECT_THAT(b.job.spec.gpu_models, ElementsAre("V100", "K80"));
  EXPECT_TRUE(b.job.spec.topology.IsDefault());
  EXPECT_TRUE(b.job.spec.checkpointable);
  EXPECT_EQ(b.job.spec.estimate, 2 * kHour);
  // squeeze's own flags win over the lines.
  SubmitFlags flags;
  flags.gpu_memory = "80GiB";
  b = Build(script, flags);
  EXPECT_EQ(b.job.spec.min_gpu_memory_mib, 80 * 1024);
}

TEST(SbatchOptionsTest, BrokenSqueezeLinesNameTheLineTheOptionAndTheValue) {
  const std::string script = std::string(::testing::TempDir()) + "/bad-squeeze.sbatch";
  std::ofstream(script) << "#!/bin/bash\n#SBATCH -J x\n#SQUEEZE --gpu-memory=40G\ntrue\n";
  EXPECT_EQ(Error(script), script + ":3: #SQUEEZE --gpu-memory=40G: '40G' is not a memory size "
                                    "(use forms like 512MiB, 16GiB, 1.5TiB)");
  std::ofstream(script) << "#!/bin/bash\n#SQUEEZE --gpu-speeds=V100:1e9\ntrue\n";
  EXPECT_EQ(Error(script), script + ":2: #SQUEEZE --gpu-speeds=V100:1e9: value '1e9' is not a "
                                    "speed from 0.001 to 100 (relative to the card the "
                                    "estimate is for, 1)");
  std::ofstream(script) << "#!/bin/bash\n#SQUEEZE --checkpoint-cost=2m\ntrue\n";
  EXPECT_EQ(Error(script),
            script + ":2: #SQUEEZE --checkpoint-cost=2m: needs checkpointable: true");
  std::ofstream(script) << "#!/bin/bash\n#SQUEEZE --mem=4G\ntrue\n";
  EXPECT_THAT(Error(script), HasSubstr(script + ":2: #SQUEEZE --mem: not one of squeeze's"));
}

TEST(SbatchOptionsTest, ALabStyleScriptIsPreemptibleAndCheckpointsOnUsr1) {
  const std::string path = Corpus("mila-style.sbatch");
  const Built b = Build(path);
  const JobSpec& s = b.job.spec;
  EXPECT_THAT(b.warnings, IsEmpty());
  EXPECT_EQ(s.name, "resnet50");
  EXPECT_EQ(s.pool, "long");
  EXPECT_EQ(s.gpus, 1);
  EXPECT_THAT(s.gpu_models, ElementsAre("rtx8000"));
  EXPECT_EQ(s.cpu_milli, 6000);
  EXPECT_EQ(s.memory_mib, 48 * 1024);
  EXPECT_EQ(s.time_limit, 3 * kHour);
  EXPECT_TRUE(s.preemptible);
  EXPECT_TRUE(s.checkpointable);
  EXPECT_EQ(s.checkpoint_cost, 2 * kMinute);
  EXPECT_EQ(s.urgency, Urgency::kLow);  // --qos=scavenger
  EXPECT_EQ(b.job.env, (std::map<std::string, std::string>{{"WANDB_MODE", "offline"}}));
  EXPECT_THAT(b.job.command, ElementsAre("/bin/bash", "-l", "-c", Read(path), path));
}

TEST(SbatchOptionsTest, AScriptOfAnotherInterpreterRunsAsAFile) {
  const std::string path = Corpus("python-style.sbatch");
  const Built b = Build(path);
  EXPECT_EQ(b.job.spec.name, "evaluate");
  EXPECT_EQ(b.job.spec.gpus, 2);
  EXPECT_THAT(b.job.spec.gpu_models, ElementsAre("a100"));
  EXPECT_EQ(b.job.spec.time_limit, 45 * kMinute);  // a plain number is minutes
  EXPECT_EQ(b.job.spec.memory_mib, 2 * 20 * 1024);
  EXPECT_THAT(b.job.command, ElementsAre(path));
  ASSERT_EQ(b.warnings.size(), 1u);
  EXPECT_THAT(b.warnings[0], HasSubstr("a python3 script runs as the file is when the job starts"));
}

// A sweep as an array with a limit, after two jobs; --exclusive has no equal in squeeze.
TEST(SbatchOptionsTest, AnArrayScriptBecomesAnArrayWithItsLimitAndDependency) {
  const std::string path = Corpus("array-style.sbatch");
  EXPECT_EQ(Error(path), path +
                             ":15: #SBATCH --exclusive: not supported: squeeze has no equal for "
                             "it (--ignore-unsupported leaves it out)");
  SubmitFlags flags;
  flags.ignore_unsupported = true;
  const Built b = Build(path, flags);
  EXPECT_EQ(b.job.array, "0-99:2%8");
  EXPECT_EQ(b.job.array_size, 50);
  EXPECT_EQ(b.job.spec.array_limit, 8);
  EXPECT_EQ(b.job.dependency, "afterok:123:124");
  EXPECT_EQ(b.job.output_path, "logs/%A_%a.out");
  EXPECT_EQ(b.job.spec.gpus, 2);
  ASSERT_EQ(b.warnings.size(), 1u);
  EXPECT_THAT(b.warnings[0], HasSubstr("--exclusive"));
}

// The command line wins over the script, and squeeze's own flags over both; words after --
// are the script's arguments.
TEST(SbatchOptionsTest, FlagsWinOverTheScriptsLines) {
  const std::string path = Corpus("mila-style.sbatch");
  SubmitFlags flags;
  flags.sbatch = {Flag("job-name", "other"), Flag("gres", "gpu:2"), Flag("time", "10")};
  flags.urgency = "high";
  flags.command = {"--lr", "0.1"};
  const Built b = Build(path, flags);
  EXPECT_EQ(b.job.spec.name, "other");
  EXPECT_EQ(b.job.spec.gpus, 2);
  EXPECT_THAT(b.job.spec.gpu_models, ElementsAre("rtx8000"));  // the script's type stays
  EXPECT_EQ(b.job.spec.time_limit, 10 * kMinute);
  EXPECT_EQ(b.job.spec.urgency, Urgency::kHigh);
  EXPECT_THAT(b.job.command, ElementsAre("/bin/bash", "-l", "-c", Read(path), path, "--lr", "0.1"));
}

TEST(SbatchOptionsTest, SbatchFlagsWithACommandAndWrap) {
  SubmitFlags flags;
  flags.sbatch = {Flag("job-name", "prep"), Flag("partition", "cpu"), Flag("qos", "urgent")};
  flags.command = {"python", "prep.py"};
  Built b = Build(std::nullopt, flags);
  EXPECT_EQ(b.job.spec.name, "prep");
  EXPECT_EQ(b.job.spec.pool, "cpu");
  EXPECT_EQ(b.job.spec.urgency, Urgency::kCritical);
  // sbatch's --export=ALL is the default for a plain command too: the submitter's PATH (a
  // venv's python) reaches the job.
  EXPECT_EQ(b.job.env,
            (std::map<std::string, std::string>{{"HOME", "/home/me"}, {"PATH", "/usr/bin:/bin"}}));
  EXPECT_THAT(b.job.command, ElementsAre("python", "prep.py"));
  EXPECT_EQ(b.job.tasks, 0);  // a plain command runs on each node, not as a batch script

  SubmitFlags wrap;
  wrap.wrap = "echo hi; sleep 1";
  wrap.time_limit = "1:00";
  b = Build(std::nullopt, wrap);
  EXPECT_EQ(b.job.spec.name, "wrap");
  EXPECT_EQ(b.job.spec.time_limit, kMinute);
  EXPECT_THAT(b.job.command, ElementsAre("/bin/sh", "-c", "echo hi; sleep 1"));
  EXPECT_EQ(b.job.env.count("PATH"), 1u);  // --wrap exports the environment, as sbatch does
  EXPECT_EQ(b.job.tasks, 1);                 // and runs once, as a batch script
  wrap.command = {"true"};
  EXPECT_THAT(Error(std::nullopt, wrap), HasSubstr("--wrap: the shell line is the whole job"));
}

TEST(SbatchOptionsTest, BrokenOptionsNameTheOptionAndTheValue) {
  auto error = [](std::string option, std::string value) {
    SubmitFlags flags;
    flags.sbatch = {Flag(option, value)};
    flags.command = {"true"};
    return Error(std::nullopt, flags);
  };
  EXPECT_EQ(error("gres", "shard:2"),
            "--gres=shard:2: only GPUs (gpu[:TYPE]:N) are resources squeeze schedules, not "
            "'shard'");
  EXPECT_THAT(error("gres", "gpu:a100:x"), HasSubstr("--gres=gpu:a100:x: 'x' is not a whole"));
  EXPECT_THAT(error("nodes", "2-4"), HasSubstr("--nodes=2-4: a range of nodes needs its GPUs per node"));
  EXPECT_THAT(error("nodes", "4-2"), HasSubstr("--nodes=4-2: the range's MAX is less than its MIN"));
  EXPECT_THAT(error("mem", "16Q"), HasSubstr("--mem=16Q: '16Q' is not a memory size"));
  EXPECT_THAT(error("mem", "0"), HasSubstr("0 (all of a node's memory) is not supported"));
  EXPECT_THAT(error("time", "1:99:00"), HasSubstr("--time=1:99:00: "));
  EXPECT_THAT(error("signal", "TERM@60"),
              HasSubstr("--signal=TERM@60: squeeze asks for a checkpoint with SIGUSR1 only"));
  EXPECT_THAT(error("qos", "gold"), HasSubstr("--qos=gold: squeeze ranks jobs by urgency, and "
                                              "'gold' is none of its words"));
  EXPECT_THAT(error("partition", "a,b"), HasSubstr("one partition"));
  EXPECT_THAT(error("export", "ALL,SQUEEZE_X=1"),
              HasSubstr("--export: 'SQUEEZE_X' is not a variable a job may be given"));
  EXPECT_THAT(error("begin", "whenever"), HasSubstr("--begin=whenever: 'whenever' is not a time"));
  EXPECT_THAT(error("dependency", "afterok"),
              HasSubstr("--dependency=afterok: dependency 'afterok': 'afterok' names no job"));
  EXPECT_THAT(error("dependency", "aftercorr:5"), HasSubstr("'aftercorr' is not supported"));
  EXPECT_THAT(error("array", "9-1"), HasSubstr("--array=9-1: array '9-1': range '9-1' goes backwards"));
}

// --begin in sbatch's forms, as the time from now (clock times in the local time zone: UTC in
// the test).
TEST(SbatchOptionsTest, BeginTimesInSbatchsForms) {
  setenv("TZ", "UTC", 1);
  tzset();
  const Time now = kNow + 10 * kHour;  // 2026-12-01T10:00:00Z
  EXPECT_EQ(*SecondsUntilBegin("now", now), 0);
  EXPECT_EQ(*SecondsUntilBegin("now+90", now), 90 * kSecond);
  EXPECT_EQ(*SecondsUntilBegin("now+2hours", now), 2 * kHour);
  EXPECT_EQ(*SecondsUntilBegin("now+1week", now), kWeek);
  EXPECT_EQ(*SecondsUntilBegin("16:00", now), 6 * kHour);
  EXPECT_EQ(*SecondsUntilBegin("09:30", now), 23 * kHour + 30 * kMinute);  // past: tomorrow's
  EXPECT_EQ(*SecondsUntilBegin("2026-12-02T10:00", now), kDay);
  EXPECT_EQ(*SecondsUntilBegin("2026-12-02", now), 14 * kHour);
  EXPECT_EQ(*SecondsUntilBegin("midnight", now), 14 * kHour);
  EXPECT_EQ(*SecondsUntilBegin("teatime", now), 6 * kHour);
  for (const char* bad : {"soon", "now+", "now+5fortnights", "25:00", "2026-13-01", "12:00x"}) {
    EXPECT_THAT(SecondsUntilBegin(bad, now).status().message(),
                HasSubstr("is not a time sbatch --begin takes")) << bad;
  }
  SubmitFlags flags;
  flags.sbatch = {Flag("begin", "now+1hour")};
  flags.command = {"true"};
  Result<JobRequest> r = BuildSubmitRequest(std::nullopt, flags, kCwd, now);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->begin, now + kHour);
}

TEST(SbatchOptionsTest, RecognisesBatchScriptsBySqueezeLinesToo) {
  EXPECT_TRUE(IsBatchScript("#SQUEEZE --gpu-memory=40GiB\ntrue\n"));
  EXPECT_FALSE(IsBatchScript("# SQUEEZE is a comment here\ncommand: [true]\n"));
}

TEST(SbatchOptionsTest, RecognisesBatchScripts) {
  EXPECT_TRUE(IsBatchScript("#!/bin/bash\necho\n"));
  EXPECT_TRUE(IsBatchScript("# a comment\n\n#SBATCH -J x\necho\n"));
  EXPECT_FALSE(IsBatchScript("# a job file\ncommand: [true]\n"));
  EXPECT_FALSE(IsBatchScript("command: [true]\n#SBATCH -J x\n"));
  EXPECT_EQ(UrgencyOfQos("scavenger"), "low");
  EXPECT_EQ(UrgencyOfQos("gold"), "");
}

// Every form of submit takes the environment as sbatch does: ALL by default, NONE and names
// honoured, never a Slurm job's own variables nor bash's, nothing refused for its name.
TEST(SbatchOptionsTest, TheEnvironmentGoesWithEveryFormOfSubmit) {
  SubmitFlags flags;
  flags.command = {"python", "train.py"};
  flags.environ = {{"PATH", "/home/me/venv/bin:/usr/bin"},
                   {"VIRTUAL_ENV", "/home/me/venv"},
                   {"AWS_SECRET_ACCESS_KEY", "wJalr"},
                   {"HF_TOKEN", "hf_abc"},
                   {"SLURM_JOB_ID", "77"},
                   {"SLURM_NTASKS", "4"},
                   {"SHELLOPTS", "braceexpand"},
                   {"UID", "1000"},
                   {"SQUEEZE_TOKEN", "t"}};
  Result<JobRequest> r = BuildSubmitRequest(std::nullopt, flags, kCwd, kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->env, (std::map<std::string, std::string>{{"AWS_SECRET_ACCESS_KEY", "wJalr"},
                                                        {"HF_TOKEN", "hf_abc"},
                                                        {"PATH", "/home/me/venv/bin:/usr/bin"},
                                                        {"VIRTUAL_ENV", "/home/me/venv"}}));
  // --export=NONE: none of it; names: those, a SLURM_ one too when named.
  flags.sbatch = {Flag("export", "NONE")};
  r = BuildSubmitRequest(std::nullopt, flags, kCwd, kNow);
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->env, IsEmpty());
  flags.sbatch = {Flag("export", "PATH,SLURM_NTASKS,LR=0.1")};
  r = BuildSubmitRequest(std::nullopt, flags, kCwd, kNow);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->env, (std::map<std::string, std::string>{{"LR", "0.1"},
                                                        {"PATH", "/home/me/venv/bin:/usr/bin"},
                                                        {"SLURM_NTASKS", "4"}}));
  // --env wins over the environment; so does a job file's env:, which --env wins over.
  flags.sbatch.clear();
  flags.env = {"PATH=/opt/bin"};
  r = BuildSubmitRequest(std::nullopt, flags, kCwd, kNow);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->env.at("PATH"), "/opt/bin");
  EXPECT_EQ(r->env.at("VIRTUAL_ENV"), "/home/me/venv");
  const std::string file = ::testing::TempDir() + "/env-job.yaml";
  {
    std::ofstream out(file);
    out << "command: [python, train.py]\nenv:\n  VIRTUAL_ENV: /srv/venv\n  PATH: /srv/venv/bin\n";
  }
  flags.command.clear();
  r = BuildSubmitRequest(file, flags, kCwd, kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->env.at("VIRTUAL_ENV"), "/srv/venv");  // the file's over the environment's
  EXPECT_EQ(r->env.at("PATH"), "/opt/bin");          // --env's over the file's
  EXPECT_EQ(r->env.at("HF_TOKEN"), "hf_abc");        // the environment under both
}

}  // namespace
}  // namespace squeeze
