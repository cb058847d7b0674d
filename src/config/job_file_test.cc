#include "config/job_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "config/data_path.h"
#include "config/job_values.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

constexpr Time kNow = Seconds(1796083200);  // 2026-12-01T00:00:00Z

constexpr std::string_view kFullYaml = R"(name: resnet-50
command: [python, train.py, --epochs, "3"]
workdir: /home/me/project
env:
  OMP_NUM_THREADS: "4"
  MODE: fast
gpus: 1
gpu_milli: 500
gpu_models: [A100, H100]
pool: a100
regions: [us-east, eu-west]
data_gb: 1.5
urgency: high
preemptible: true
checkpointable: true
checkpoint_interval: 30m
checkpoint_cost: 2m
checkpoint_stall: 5s
fault_tolerant: true
estimate: 2h
deadline: 2026-12-01T18:00:00Z
team: ml
cpus: 4
memory: 16GiB
max_retries: 3
tasks: 8
output: logs/%x_%j.out
error: /scratch/me/%j.err
)";

constexpr std::string_view kFullJson = R"({
  "name": "resnet-50",
  "command": ["python", "train.py", "--epochs", "3"],
  "workdir": "/home/me/project",
  "env": {"OMP_NUM_THREADS": "4", "MODE": "fast"},
  "gpus": 1, "gpu_milli": 500, "gpu_models": ["A100", "H100"],
  "pool": "a100", "regions": ["us-east", "eu-west"], "data_gb": 1.5,
  "urgency": "high", "preemptible": true, "checkpointable": true,
  "checkpoint_interval": "30m", "checkpoint_cost": "2m", "checkpoint_stall": "5s",
  "fault_tolerant": true, "estimate": "2h",
  "deadline": "2026-12-01T18:00:00Z",
  "team": "ml", "cpus": 4, "memory": "16GiB", "max_retries": 3, "tasks": 8,
  "output": "logs/%x_%j.out", "error": "/scratch/me/%j.err"
})";

std::string YamlError(std::string_view text) {
  const Result<JobRequest> r = ParseJobYaml(text, "job.yaml", kNow);
  EXPECT_FALSE(r.ok()) << text;
  return r.status().message();
}

std::string JsonError(std::string_view text) {
  const Result<JobRequest> r = ParseJobJson(text, kNow);
  EXPECT_FALSE(r.ok()) << text;
  return r.status().message();
}

std::string WithCommand(const std::string& rest) { return "command: [true]\n" + rest; }

TEST(JobFileTest, ReadsEveryField) {
  const Result<JobRequest> r = ParseJobYaml(kFullYaml, "job.yaml", kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const JobSpec& s = r->spec;
  EXPECT_EQ(s.name, "resnet-50");
  EXPECT_EQ(r->command, (std::vector<std::string>{"python", "train.py", "--epochs", "3"}));
  EXPECT_EQ(r->workdir, "/home/me/project");
  EXPECT_EQ(r->env,
            (std::map<std::string, std::string>{{"OMP_NUM_THREADS", "4"}, {"MODE", "fast"}}));
  EXPECT_EQ(s.gpus, 1);
  EXPECT_EQ(s.gpu_milli, 500);
  EXPECT_EQ(s.gpu_models, (std::vector<std::string>{"A100", "H100"}));
  EXPECT_EQ(s.pool, "a100");
  EXPECT_EQ(s.regions, (std::vector<std::string>{"us-east", "eu-west"}));
  EXPECT_EQ(s.data_gb, 1.5);
  EXPECT_EQ(s.urgency, Urgency::kHigh);
  EXPECT_TRUE(s.preemptible);
  EXPECT_TRUE(s.checkpointable);
  EXPECT_EQ(s.checkpoint_interval, 30 * kMinute);
  EXPECT_EQ(s.checkpoint_cost, 2 * kMinute);
  EXPECT_EQ(s.checkpoint_stall, 5 * kSecond);
  EXPECT_TRUE(s.fault_tolerant);
  EXPECT_EQ(s.estimate, 2 * kHour);
  EXPECT_EQ(s.deadline, kNow + 18 * kHour);
  EXPECT_EQ(s.team, "ml");
  EXPECT_EQ(s.cpu_milli, 4000);
  EXPECT_EQ(s.memory_mib, 16 * 1024);
  EXPECT_EQ(r->max_retries, 3);
  EXPECT_EQ(r->tasks, 8);
  EXPECT_EQ(r->output_path, "logs/%x_%j.out");
  EXPECT_EQ(r->error_path, "/scratch/me/%j.err");
  EXPECT_EQ(s.submit_time, kNow);
}

TEST(JobFileTest, DefaultsWhenOnlyTheCommandIsGiven) {
  const Result<JobRequest> r = ParseJobYaml("command: [/usr/bin/sleep, '5']", "job.yaml", kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const JobSpec& s = r->spec;
  EXPECT_EQ(s.name, "sleep");
  EXPECT_EQ(r->workdir, "");
  EXPECT_TRUE(r->env.empty());
  EXPECT_EQ(s.gpus, 1);
  EXPECT_EQ(s.gpu_milli, 1000);
  EXPECT_TRUE(s.gpu_models.empty());
  EXPECT_EQ(s.pool, "");
  EXPECT_TRUE(s.regions.empty());
  EXPECT_EQ(s.data_gb, 0);
  EXPECT_EQ(s.urgency, Urgency::kNormal);
  EXPECT_FALSE(s.preemptible);
  EXPECT_FALSE(s.checkpointable);
  EXPECT_EQ(s.checkpoint_interval, 0);
  EXPECT_EQ(s.checkpoint_cost, 0);
  EXPECT_FALSE(s.checkpoint_stall.has_value());
  EXPECT_FALSE(s.estimate.has_value());
  EXPECT_FALSE(s.deadline.has_value());
  EXPECT_EQ(s.team, "");
  EXPECT_EQ(s.cpu_milli, 0);
  EXPECT_EQ(s.memory_mib, 0);
  EXPECT_EQ(r->max_retries, -1);
  EXPECT_EQ(r->tasks, 0);
  EXPECT_EQ(r->output_path, "");
  EXPECT_EQ(r->error_path, "");
}

TEST(JobFileTest, YamlAndJsonGiveTheSameRequest) {
  const Result<JobRequest> y = ParseJobYaml(kFullYaml, "job.yaml", kNow);
  const Result<JobRequest> j = ParseJobJson(kFullJson, kNow);
  ASSERT_TRUE(y.ok()) << y.status().message();
  ASSERT_TRUE(j.ok()) << j.status().message();
  EXPECT_EQ(y->command, j->command);
  EXPECT_EQ(y->workdir, j->workdir);
  EXPECT_EQ(y->env, j->env);
  EXPECT_EQ(y->max_retries, j->max_retries);
  EXPECT_EQ(y->tasks, j->tasks);
  EXPECT_EQ(y->output_path, j->output_path);
  EXPECT_EQ(y->error_path, j->error_path);
  const JobSpec& a = y->spec;
  const JobSpec& b = j->spec;
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.team, b.team);
  EXPECT_EQ(a.gpus, b.gpus);
  EXPECT_EQ(a.gpu_milli, b.gpu_milli);
  EXPECT_EQ(a.gpu_models, b.gpu_models);
  EXPECT_EQ(a.pool, b.pool);
  EXPECT_EQ(a.regions, b.regions);
  EXPECT_EQ(a.data_gb, b.data_gb);
  EXPECT_EQ(a.urgency, b.urgency);
  EXPECT_EQ(a.preemptible, b.preemptible);
  EXPECT_EQ(a.checkpointable, b.checkpointable);
  EXPECT_EQ(a.checkpoint_interval, b.checkpoint_interval);
  EXPECT_EQ(a.checkpoint_cost, b.checkpoint_cost);
  EXPECT_EQ(a.checkpoint_stall, b.checkpoint_stall);
  EXPECT_EQ(a.fault_tolerant, b.fault_tolerant);
  EXPECT_EQ(a.estimate, b.estimate);
  EXPECT_EQ(a.deadline, b.deadline);
  EXPECT_EQ(a.cpu_milli, b.cpu_milli);
  EXPECT_EQ(a.memory_mib, b.memory_mib);
  EXPECT_EQ(a.submit_time, b.submit_time);
}

TEST(JobFileTest, AGpusRangeIsAnElasticJob) {
  Result<JobRequest> r = ParseJobYaml(
      WithCommand("gpus: 2-8\nstep: 2\nscaling: amdahl:0.95\ncheckpointable: true\n"), "j", kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.gpus, 2);  // it waits for its minimum
  EXPECT_EQ(r->spec.elastic.min, 2);
  EXPECT_EQ(r->spec.elastic.max, 8);
  EXPECT_EQ(r->spec.elastic.step, 2);
  EXPECT_EQ(ScalingText(r->spec.elastic.scaling), "amdahl:0.95");
  r = ParseJobJson(R"({"command": ["a"], "gpus": "1-4"})", kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();  // moldable: no checkpoints, sized at its start
  EXPECT_EQ(r->spec.elastic.max, 4);
  for (const auto& [text, error] : std::vector<std::pair<std::string, std::string>>{
           {"gpus: 8-2\n", "'8-2' is not a range MIN-MAX"},
           {"gpus: 2-x\n", "'2-x' is not a range"},
           {"gpus: 0-4\n", "'0-4' is not a range"},
           {"gpus: 2-99999\n", "more than"},
           {"step: 2\n", "step: needs gpus as a range"},
           {"scaling: linear\n", "scaling: needs gpus as a range"},
           {"gpus: 2-8\nscaling: amdahl:2\n", "the parallel fraction after amdahl:"},
           {"gpus: 2-8\nscaling: fast\n", "scaling 'fast': not linear"},
           {"gpus: 2-8\nstep: 9\n", "step 9 must be 1..8"},
           {"gpus: 1-8\ngpu_milli: 500\n", "takes whole GPUs"}}) {
    r = ParseJobYaml(WithCommand(text), "j.yaml", kNow);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.status().message(), HasSubstr(error)) << text;
  }
}

TEST(JobFileTest, OneGpuModelMayBeAString) {
  const Result<JobRequest> r = ParseJobYaml(WithCommand("gpu_models: A100\n"), "j", kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.gpu_models, (std::vector<std::string>{"A100"}));
}

TEST(JobFileTest, OneRegionMayBeAStringAndDataGbAnyNumberForm) {
  Result<JobRequest> r =
      ParseJobYaml(WithCommand("regions: eu-west\ndata_gb: 250\npool: ' spot '\n"), "j", kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.regions, (std::vector<std::string>{"eu-west"}));
  EXPECT_EQ(r->spec.data_gb, 250);
  EXPECT_EQ(r->spec.pool, "spot");
  for (const auto& [text, gb] : std::vector<std::pair<std::string, double>>{
           {"0", 0}, {"\"2.5\"", 2.5}, {"1e3", 1000}, {"1e12", 1e12}, {"-0", 0}}) {
    r = ParseJobYaml(WithCommand("data_gb: " + text + "\n"), "j", kNow);
    ASSERT_TRUE(r.ok()) << text << ": " << r.status().message();
    EXPECT_EQ(r->spec.data_gb, gb) << text;
  }
  r = ParseJobJson(R"({"command": ["a"], "regions": "us-east", "data_gb": 0.25})", kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.regions, (std::vector<std::string>{"us-east"}));
  EXPECT_EQ(r->spec.data_gb, 0.25);
}

TEST(JobFileTest, DeadlineFormsAndPastDeadline) {
  auto deadline = [](const std::string& d) {
    return ParseJobYaml(WithCommand("deadline: \"" + d + "\"\n"), "j", kNow);
  };
  EXPECT_EQ(deadline("+12h")->spec.deadline, kNow + 12 * kHour);
  EXPECT_EQ(deadline("2026-12-01T19:00:00+01:00")->spec.deadline, kNow + 18 * kHour);
  EXPECT_EQ(deadline("2026-12-01t18:00:00.250z")->spec.deadline, kNow + 18 * kHour);
  EXPECT_THAT(deadline("2026-11-30T12:00:00Z").status().message(),
              HasSubstr("j:2:11: deadline: '2026-11-30T12:00:00Z' is not in the future"));
  EXPECT_THAT(deadline("2026-02-30T00:00:00Z").status().message(), HasSubstr("not a valid date"));
  EXPECT_THAT(deadline("2026-12-02").status().message(),
              HasSubstr("is not a date-time (use RFC 3339"));
  EXPECT_THAT(deadline("2026-12-02T10:00:00").status().message(), HasSubstr("has no time zone"));
  EXPECT_THAT(deadline("+soon").status().message(), HasSubstr("is not a duration"));
}

// time_limit takes Slurm's --time forms (a plain number is minutes) and squeeze's durations;
// 0 and UNLIMITED are no limit; a broken one names the line, the field and the value.
TEST(JobFileTest, TimeLimitTakesSlurmsFormsAndDurations) {
  auto limit = [](const std::string& text) {
    return ParseJobYaml(WithCommand("time_limit: \"" + text + "\"\n"), "j", kNow);
  };
  EXPECT_EQ(limit("90")->spec.time_limit, 90 * kMinute);
  EXPECT_EQ(limit("1:30")->spec.time_limit, 90 * kSecond);
  EXPECT_EQ(limit("1:00:00")->spec.time_limit, kHour);
  EXPECT_EQ(limit("2-12")->spec.time_limit, 60 * kHour);
  EXPECT_EQ(limit("1-00:00:30")->spec.time_limit, kDay + 30 * kSecond);
  EXPECT_EQ(limit("2h")->spec.time_limit, 2 * kHour);
  EXPECT_FALSE(limit("UNLIMITED")->spec.time_limit.has_value());
  EXPECT_FALSE(limit("0")->spec.time_limit.has_value());
  EXPECT_THAT(limit("1:75:00").status().message(), HasSubstr("j:2:13: time_limit: "));
  EXPECT_THAT(limit("1:75:00").status().message(), HasSubstr("1:75:00"));
  EXPECT_THAT(limit("soon").status().message(), HasSubstr("time_limit: "));
  EXPECT_THAT(limit("soon").status().message(), HasSubstr("soon"));
  EXPECT_THAT(limit("-5").status().message(), HasSubstr("time_limit: "));
}

// Slurm's (and others') names for squeeze's fields point to them.
TEST(JobFileTest, SlurmsFieldNamesPointToSqueezes) {
  EXPECT_THAT(YamlError("command: [a]\ntime: 1:00:00\n"),
              HasSubstr("job.yaml:2:1: unknown field 'time': squeeze's field for it is "
                        "'time_limit'"));
  EXPECT_THAT(YamlError("command: [a]\npartition: gpu\n"),
              HasSubstr("unknown field 'partition': squeeze's field for it is 'pool'"));
  EXPECT_THAT(YamlError("command: [a]\npriority: 10\n"),
              HasSubstr("unknown field 'priority': squeeze's field for it is 'urgency'"));
  EXPECT_THAT(YamlError("command: [a]\nstdout: out.txt\n"),
              HasSubstr("unknown field 'stdout': squeeze's field for it is 'output'"));
}

TEST(JobFileTest, MalformedYamlNamesLineAndColumn) {
  EXPECT_EQ(YamlError("command: [a, b\ngpus: 1\n"),
            "job.yaml:2:5: malformed YAML: end of sequence flow not found");
  EXPECT_EQ(YamlError("command: [a]\ngpus: 1\n gpus: 2\n"),
            "job.yaml:3:6: malformed YAML: illegal map value");
  EXPECT_THAT(YamlError(""), HasSubstr("job.yaml: the job file is empty"));
  EXPECT_THAT(YamlError("- a\n- b\n"), HasSubstr("a job is a map of fields"));
  EXPECT_THAT(YamlError("command: [a]\n---\ncommand: [b]\n"),
              HasSubstr("more than one YAML document"));
  EXPECT_THAT(YamlError("command: [a]\ngpus: 1\ngpus: 2\n"),
              HasSubstr("job.yaml:3:1: 'gpus' is given twice"));
}

TEST(JobFileTest, MalformedJsonNamesTheByte) {
  EXPECT_THAT(JsonError(R"({"command": ["a"],})"),
              HasSubstr("JSON request: malformed JSON at byte 19"));
  EXPECT_THAT(JsonError("[1, 2]"), HasSubstr("JSON request: a job is a map of fields"));
  EXPECT_THAT(JsonError(""), HasSubstr("malformed JSON at byte"));
}

// Found by fuzz/fuzz_job.cc: yaml-cpp's LoadAll never returned on a stray ','.
TEST(JobFileTest, AStrayCommaEndsAsAnEmptyJobNotAHang) {
  EXPECT_EQ(YamlError(","), "job.yaml: the job file is empty");
  EXPECT_EQ(YamlError("h, examples/jobs/train-like.sh]\nenv: {STE\x01"),
            "job.yaml:2:4: malformed YAML: illegal map value");
}

TEST(JobFileTest, TextThatIsNotUtf8NamesTheByte) {
  EXPECT_EQ(JsonError("{\"command\": [\"true\"], \"name\": \"a\xff\"}"),
            "JSON request: byte 32 (0xFF) is not UTF-8: a job is UTF-8 text");
  EXPECT_EQ(YamlError("command: [true]\nname: \"a\xc3\""),
            "job.yaml: byte 24 (0xC3) is not UTF-8: a job is UTF-8 text");
  // Overlong forms and surrogates are not UTF-8 either; real text is.
  EXPECT_THAT(JsonError("{\"command\": [\"\xc0\xaf\"]}"), HasSubstr("byte 14 (0xC0)"));
  EXPECT_THAT(JsonError("{\"command\": [\"\xed\xa0\x80\"]}"), HasSubstr("byte 14 (0xED)"));
  EXPECT_TRUE(ParseJobJson("{\"command\": [\"\xc3\xa9t\xc3\xa9\", \"\xf0\x9f\x9a\x80\"]}", kNow).ok());
}

TEST(JobFileTest, AKeyGivenTwiceInJsonIsRefused) {
  EXPECT_EQ(JsonError(R"({"command": ["a"], "gpus": 1, "gpus": 2})"),
            "JSON request: 'gpus' is given twice");
  EXPECT_EQ(JsonError(R"({"command": ["a"], "env": {"A": "1", "A": "2"}})"),
            "JSON request: 'A' is given twice");
  // The same key in two different maps is fine.
  EXPECT_TRUE(ParseJobJson(R"({"command": ["a"], "env": {"command": "x"}})", kNow).ok());
}

TEST(JobFileTest, UnknownFieldSuggestsTheNearest) {
  EXPECT_THAT(YamlError(WithCommand("gpu: 2\n")),
              HasSubstr("job.yaml:2:1: unknown field 'gpu' (did you mean 'gpus'?)"));
  EXPECT_THAT(JsonError(R"({"command": ["a"], "deadlin": "+1h"})"),
              HasSubstr("JSON request: unknown field 'deadlin' (did you mean 'deadline'?)"));
  EXPECT_THAT(YamlError(WithCommand("colour: red\n")),
              HasSubstr("unknown field 'colour'; see docs/job-file.md"));
}

// A line added to a job that has a command, and what the message for it must hold.
struct BadLine {
  std::string line;
  std::string message;
};

TEST(JobFileTest, BadValuesNameWhereTheFieldAndTheValue) {
  const BadLine kCases[] = {
      {"gpus: two", "job.yaml:2:7: gpus: value 'two' is not an integer"},
      {"gpus: [1]", "job.yaml:2:7: gpus: expected an integer, got a list"},
      {"gpus: 1025", "gpus: value '1025' is outside 0..1024"},
      {"max_retries: 101", "max_retries: value '101' is outside 0..100"},
      {"tasks: 0", "tasks: value '0' is outside 1..100000"},
      {"tasks: many", "job.yaml:2:8: tasks: value 'many' is not an integer"},
      {"preemptible: maybe", "preemptible: value 'maybe' is not true or false"},
      {"urgency: urgent", "urgency: value 'urgent' is not one of critical, high, normal, low"},
      {"name: my job", "name: value 'my job' is not a valid name"},
      {"team: -ml", "team: value '-ml' is not a valid name"},
      {"memory: 16GB", "memory: '16GB' is not a memory size"},
      {"cpus: lots", "cpus: 'lots' is not a number of CPU cores"},
      {"workdir: ~/project", "workdir: '~/project': '~' is not expanded"},
      {"estimate: 2 hours", "job.yaml:2:11: estimate: '2 hours' is not a duration"},
      {"estimate: 0s", "estimate: value '0s' must be more than 0s"},
      {"checkpoint_interval: 1h30", "checkpoint_interval: '1h30' is not a duration"},
      {"gpu_models: {a: b}", "gpu_models: expected a GPU model or a list of them, got a map"},
      {"gpus: 2\ngpu_milli: 500",
       "job.yaml:3:12: gpu_milli: a fraction of a GPU (500) needs gpus: 1, not 2"},
      {"checkpoint_interval: 10m", "checkpoint_interval: needs checkpointable: true"},
      {"fault_tolerant: maybe", "fault_tolerant: "},
      {"env: {SQUEEZE_JOB_ID: '1'}",
       "env.SQUEEZE_JOB_ID: names starting with SQUEEZE_ are reserved for squeeze"},
      {"env: {1BAD: x}", "env.1BAD: '1BAD' is not a variable name"},
      {"env: {EMPTY: }", "env.EMPTY: no value given; write \"\" for an empty value"},
      {"output: out_%Q.txt",
       "job.yaml:2:9: output: 'out_%Q.txt': '%Q' is not a pattern squeeze fills in; it knows "
       "%j (job id)"},
      {"output: ''", "output: '': the path is empty"},
      {"error: logs/", "error: 'logs/': it names a directory"},
      {"error: [a, b]", "error: expected a file path, got a list"},
      {"output: ~/out.txt", "output: '~/out.txt': '~' is not expanded"},
  };
  for (const auto& [line, message] : kCases) {
    EXPECT_THAT(YamlError(WithCommand(line + "\n")), HasSubstr(message)) << line;
  }
  EXPECT_THAT(JsonError(R"({"command": ["a"], "env": ["A=1"]})"),
              HasSubstr("JSON request: env: expected a map of NAME: value, got a list"));
  EXPECT_THAT(JsonError(R"({"command": ["a"], "output": "out\u0000x"})"),
              HasSubstr("JSON request: output: 'out\\x00x' holds a control character (\\x00)"));
}

TEST(JobFileTest, BadPoolRegionsAndDataGbNameTheFieldAndTheValue) {
  const BadLine kCases[] = {
      {"pool: ''", "job.yaml:2:7: pool: the pool name is empty"},
      {"pool: [a, b]", "job.yaml:2:7: pool: expected a pool name, got a list"},
      {"regions: {us: east}",
       "job.yaml:2:10: regions: expected a region or a list of them, got a map"},
      {"regions: [us-east, '']", "job.yaml:2:20: regions: a region name is empty"},
      {"regions: ' '", "job.yaml:2:10: regions: a region name is empty"},
      {"regions: [[us-east]]", "job.yaml:2:11: regions: expected a region name, got a list"},
      {"data_gb: -1", "job.yaml:2:10: data_gb: value '-1' is outside 0..1e12"},
      {"data_gb: 2e12", "job.yaml:2:10: data_gb: value '2e12' is outside 0..1e12"},
      {"data_gb: lots",
       "job.yaml:2:10: data_gb: value 'lots' is not a number of GB (like 250 or 1.5)"},
      {"data_gb: 250GB",
       "job.yaml:2:10: data_gb: value '250GB' is not a number of GB (like 250 or 1.5)"},
      {"data_gb: .nan",
       "job.yaml:2:10: data_gb: value '.nan' is not a number of GB (like 250 or 1.5)"},
      {"data_gb: nan",
       "job.yaml:2:10: data_gb: value 'nan' is not a number of GB (like 250 or 1.5)"},
      {"data_gb: inf",
       "job.yaml:2:10: data_gb: value 'inf' is not a number of GB (like 250 or 1.5)"},
      {"data_gb: 1e999",
       "job.yaml:2:10: data_gb: value '1e999' is not a number of GB (like 250 or 1.5)"},
      {"data_gb: [1]", "job.yaml:2:10: data_gb: expected a number of GB, got a list"},
      {"region: us-east", "job.yaml:2:1: unknown field 'region' (did you mean 'regions'?)"},
  };
  for (const auto& [line, message] : kCases) {
    EXPECT_EQ(YamlError(WithCommand(line + "\n")), message) << line;
  }
  std::string many = "command: [a]\nregions: [r0";
  for (int i = 1; i < 65; ++i) many += ", r" + std::to_string(i);
  EXPECT_EQ(YamlError(many + "]\n"), "job.yaml:2:10: regions: 65 regions; the limit is 64");
  EXPECT_EQ(JsonError(R"({"command": ["a"], "data_gb": -0.5})"),
            "JSON request: data_gb: value '-0.5' is outside 0..1e12");
  EXPECT_EQ(JsonError(R"({"command": ["a"], "data_gb": "many"})"),
            "JSON request: data_gb: value 'many' is not a number of GB (like 250 or 1.5)");
  EXPECT_EQ(JsonError(R"({"command": ["a"], "regions": {"a": "b"}})"),
            "JSON request: regions: expected a region or a list of them, got a map");
  EXPECT_EQ(JsonError(R"({"command": ["a"], "regions": ["us-east", ""]})"),
            "JSON request: regions: a region name is empty");
  EXPECT_EQ(JsonError(R"({"command": ["a"], "pool": ""})"),
            "JSON request: pool: the pool name is empty");
}

TEST(JobFileTest, CheckpointCostAndStallTakeDurationsOfZeroOrMore) {
  const auto read = [](const std::string& lines) {
    return ParseJobYaml(WithCommand("checkpointable: true\n" + lines), "j", kNow);
  };
  Result<JobRequest> r = read("checkpoint_cost: 90\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.checkpoint_cost, 90 * kSecond);
  EXPECT_FALSE(r->spec.checkpoint_stall.has_value());  // synchronous: the whole cost pauses
  r = read("checkpoint_cost: 1h30m\ncheckpoint_stall: 0s\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.checkpoint_cost, 90 * kMinute);
  EXPECT_EQ(r->spec.checkpoint_stall, 0);  // asynchronous, without a pause
  r = read("checkpoint_cost: 0s\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.checkpoint_cost, 0);
  r = read("checkpoint_cost: 2m\ncheckpoint_stall: 120\n");  // the whole checkpoint pauses
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.checkpoint_stall, 2 * kMinute);
  r = ParseJobJson(R"({"command": ["a"], "checkpointable": true, "checkpoint_cost": 45,
                       "checkpoint_stall": "2s"})",
                   kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.checkpoint_cost, 45 * kSecond);
  EXPECT_EQ(r->spec.checkpoint_stall, 2 * kSecond);
}

TEST(JobFileTest, BadCheckpointCostAndStallNameTheFieldAndTheValue) {
  const BadLine kCases[] = {
      {"checkpointable: true\ncheckpoint_cost: 2 min",
       "job.yaml:3:18: checkpoint_cost: '2 min' is not a duration (use seconds or forms like "
       "90s, 30m, 12h, 2d)"},
      {"checkpointable: true\ncheckpoint_cost: -5s",
       "job.yaml:3:18: checkpoint_cost: value '-5s' is negative; give 0s or more"},
      {"checkpointable: true\ncheckpoint_cost: [1m]",
       "job.yaml:3:18: checkpoint_cost: expected a duration, got a list"},
      {"checkpointable: true\ncheckpoint_cost: 1m\ncheckpoint_stall: soon",
       "job.yaml:4:19: checkpoint_stall: 'soon' is not a duration (use seconds or forms like "
       "90s, 30m, 12h, 2d)"},
      {"checkpointable: true\ncheckpoint_cost: 1m\ncheckpoint_stall: -1",
       "job.yaml:4:19: checkpoint_stall: value '-1' is negative; give 0s or more"},
      {"checkpoint_cost: 2m", "job.yaml:2:18: checkpoint_cost: needs checkpointable: true"},
      {"checkpointable: false\ncheckpoint_cost: 2m\ncheckpoint_stall: 5s",
       "job.yaml:3:18: checkpoint_cost: needs checkpointable: true"},
      {"checkpoint_stall: 5s", "job.yaml:2:19: checkpoint_stall: needs checkpointable: true"},
      {"checkpointable: true\ncheckpoint_stall: 5s",
       "job.yaml:3:19: checkpoint_stall: needs checkpoint_cost (what the whole checkpoint "
       "takes; the stall is the part of it that pauses training)"},
      {"checkpointable: true\ncheckpoint_cost: 2m\ncheckpoint_stall: 5m",
       "job.yaml:4:19: checkpoint_stall: value '5m' is longer than checkpoint_cost '2m' (the "
       "stall is the part of the checkpoint that pauses training)"},
      {"checkpointable: true\ncheckpoint_cost: 0s\ncheckpoint_stall: 1s",
       "job.yaml:4:19: checkpoint_stall: value '1s' is longer than checkpoint_cost '0s' (the "
       "stall is the part of the checkpoint that pauses training)"},
      {"checkpoint_costs: 2m",
       "job.yaml:2:1: unknown field 'checkpoint_costs' (did you mean 'checkpoint_cost'?)"},
  };
  for (const auto& [line, message] : kCases) {
    EXPECT_EQ(YamlError(WithCommand(line + "\n")), message) << line;
  }
  EXPECT_EQ(JsonError(R"({"command": ["a"], "checkpointable": true, "checkpoint_cost": "-2m"})"),
            "JSON request: checkpoint_cost: value '-2m' is negative; give 0s or more");
  EXPECT_EQ(JsonError(R"({"command": ["a"], "checkpointable": true, "checkpoint_cost": 30,
                          "checkpoint_stall": 31})"),
            "JSON request: checkpoint_stall: value '31' is longer than checkpoint_cost '30' (the "
            "stall is the part of the checkpoint that pauses training)");
  EXPECT_EQ(JsonError(R"({"command": ["a"], "checkpoint_stall": "5s"})"),
            "JSON request: checkpoint_stall: needs checkpointable: true");
}

TEST(JobFileTest, CommandMustBeAList) {
  EXPECT_THAT(YamlError("command: python train.py\n"),
              HasSubstr("command: expected a list of arguments, got the single value "
                        "'python train.py'; write it as a list, like [python, train.py], or run a "
                        "shell line with [bash, -c, \"...\"]"));
  EXPECT_THAT(YamlError("command: []\n"), HasSubstr("command: the list is empty"));
  EXPECT_THAT(YamlError("gpus: 1\n"), HasSubstr("job.yaml:1:1: command: required"));
  EXPECT_THAT(YamlError("command: [[a]]\n"),
              HasSubstr("command[0]: expected a string, got a list"));
}

TEST(JobFileTest, SizesAreBounded) {
  EXPECT_THAT(YamlError("command: [a]\n#" + std::string(270000, 'x') + "\n"),
              HasSubstr("job.yaml: the job is 270015 bytes long; the limit is 262144"));
  EXPECT_THAT(YamlError("command: [" + std::string(70000, 'a') + "]\n"),
              HasSubstr("a value is 70000 bytes long; the limit is 65536"));
  std::string args = "command: [a";
  for (int i = 0; i < 1024; ++i) args += ",b";
  EXPECT_THAT(YamlError(args + "]\n"), HasSubstr("command: 1025 arguments; the limit is 1024"));
  std::string env = "command: [a]\nenv:\n";
  for (int i = 0; i < 1025; ++i) env += "  V" + std::to_string(i) + ": x\n";
  EXPECT_THAT(YamlError(env), HasSubstr("env: 1025 variables; the limit is 1024"));
  EXPECT_THAT(JsonError(R"({"command": [[[[[[[[[["a"]]]]]]]]]]})"), HasSubstr("nested too deeply"));
}

TEST(JobFileTest, JsonNeedsAFullWorkdir) {
  EXPECT_THAT(JsonError(R"({"command": ["a"], "workdir": "project"})"),
              HasSubstr("workdir: 'project' is relative"));
}

TEST(JobFileTest, NullMeansTheDefault) {
  const Result<JobRequest> r = ParseJobJson(R"({"command": ["a"], "gpus": null})", kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.gpus, 1);
}

TEST(JobFileTest, ReadsTheExampleJobFile) {
  const std::string path = std::string(SQUEEZE_SOURCE_DIR) + "/examples/jobs/train-like.yaml";
  const Result<JobRequest> r = ReadJobFile(path, kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->command, (std::vector<std::string>{"bash", "examples/jobs/train-like.sh"}));
  EXPECT_EQ(r->workdir, std::filesystem::current_path().string());
  EXPECT_EQ(r->spec.gpus, 1);
  EXPECT_TRUE(r->spec.preemptible);
  EXPECT_TRUE(r->spec.checkpointable);
  EXPECT_EQ(r->spec.checkpoint_interval, 2 * kSecond);
  EXPECT_EQ(r->spec.estimate, 15 * kSecond);
  EXPECT_EQ(r->spec.team, "ml");
  EXPECT_THAT(ReadJobFile("/no/such/job.yaml", kNow).status().message(),
              HasSubstr("job file: cannot open '/no/such/job.yaml'"));
}

TEST(JobFileTest, ReadsThePyTorchExampleJobFile) {
  const std::string path = std::string(SQUEEZE_SOURCE_DIR) + "/examples/jobs/pytorch-train.yaml";
  const Result<JobRequest> r = ReadJobFile(path, kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->command.at(1), "examples/python/pytorch_train.py");
  EXPECT_TRUE(r->spec.checkpointable);
  EXPECT_EQ(r->spec.checkpoint_interval, 30 * kSecond);
  EXPECT_EQ(r->spec.checkpoint_cost, kSecond);
  EXPECT_EQ(r->spec.checkpoint_stall, 0);
}

TEST(JobValuesTest, DateTimesRoundTrip) {
  EXPECT_EQ(*ParseDateTime("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(*ParseDateTime("2026-12-01T00:00:00Z"), kNow);
  EXPECT_EQ(FormatDateTime(kNow + kHour + kMinute + kSecond), "2026-12-01T01:01:01Z");
  EXPECT_EQ(FormatDateTime(-kSecond), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatDateTime(-1), "1969-12-31T23:59:59Z");  // a part of a second: the second before
  EXPECT_FALSE(ParseDateTime("2026-12-01T24:00:00Z").ok());
  EXPECT_FALSE(ParseDateTime("2026-12-01T10:00:00+1:00").ok());
}

TEST(JobValuesTest, MemoryAndCpus) {
  EXPECT_EQ(*ParseMemoryMib("512MiB"), 512);
  EXPECT_EQ(*ParseMemoryMib("1.5 GiB"), 1536);
  EXPECT_EQ(*ParseMemoryMib("1TiB"), 1024 * 1024);
  EXPECT_FALSE(ParseMemoryMib("0GiB").ok());
  EXPECT_FALSE(ParseMemoryMib("512").ok());
  EXPECT_EQ(*ParseCpuMilli("0.5"), 500);
  EXPECT_FALSE(ParseCpuMilli("0").ok());
  EXPECT_FALSE(ParseCpuMilli("5000").ok());
}

TEST(DataPathTest, StaysInsideTheDataDirectory) {
  EXPECT_EQ(*ResolveInside("/var/lib/squeeze", "jobs/7/log.txt"),
            "/var/lib/squeeze/jobs/7/log.txt");
  EXPECT_EQ(*ResolveInside("/var/lib/squeeze/", "jobs/./7/../8"), "/var/lib/squeeze/jobs/8");
  EXPECT_EQ(*ResolveInside("/var/lib/squeeze", "/var/lib/squeeze/ckpt"), "/var/lib/squeeze/ckpt");
  EXPECT_THAT(ResolveInside("/var/lib/squeeze", "../etc/passwd").status().message(),
              HasSubstr("path '../etc/passwd' leads outside the data directory /var/lib/squeeze"));
  EXPECT_FALSE(ResolveInside("/var/lib/squeeze", "jobs/../../x").ok());
  EXPECT_FALSE(ResolveInside("/var/lib/squeeze", "/etc/passwd").ok());
  EXPECT_FALSE(ResolveInside("/var/lib/squeeze", "/var/lib/squeeze-other/x").ok());
  EXPECT_FALSE(ResolveInside("/var/lib/squeeze", "").ok());
  EXPECT_FALSE(ResolveInside("relative", "x").ok());
}

}  // namespace
}  // namespace squeeze
