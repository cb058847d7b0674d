#include "config/job_json_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "config/job_file.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

constexpr Time kNow = Seconds(1796083200);  // 2026-12-01T00:00:00Z

// Every field a job file has, compared one by one so a failure names the field.
void ExpectSameJob(const JobRequest& want, const JobRequest& got) {
  EXPECT_EQ(got.spec.name, want.spec.name);
  EXPECT_EQ(got.command, want.command);
  EXPECT_EQ(got.workdir, want.workdir);
  EXPECT_EQ(got.env, want.env);
  EXPECT_EQ(got.spec.gpus, want.spec.gpus);
  EXPECT_EQ(got.spec.gpu_milli, want.spec.gpu_milli);
  EXPECT_EQ(got.spec.elastic.min, want.spec.elastic.min);
  EXPECT_EQ(got.spec.elastic.max, want.spec.elastic.max);
  EXPECT_EQ(got.spec.elastic.step, want.spec.elastic.step);
  EXPECT_EQ(ScalingText(got.spec.elastic.scaling), ScalingText(want.spec.elastic.scaling));
  EXPECT_EQ(got.spec.gpu_models, want.spec.gpu_models);
  EXPECT_EQ(got.spec.min_gpu_memory_mib, want.spec.min_gpu_memory_mib);
  EXPECT_EQ(got.spec.gpu_speeds, want.spec.gpu_speeds);
  EXPECT_EQ(got.spec.pool, want.spec.pool);
  EXPECT_EQ(got.spec.regions, want.spec.regions);
  EXPECT_EQ(got.spec.data_gb, want.spec.data_gb);
  EXPECT_EQ(got.spec.urgency, want.spec.urgency);
  EXPECT_EQ(got.spec.preemptible, want.spec.preemptible);
  EXPECT_EQ(got.spec.checkpointable, want.spec.checkpointable);
  EXPECT_EQ(got.spec.checkpoint_interval, want.spec.checkpoint_interval);
  EXPECT_EQ(got.spec.checkpoint_cost, want.spec.checkpoint_cost);
  EXPECT_EQ(got.spec.checkpoint_stall, want.spec.checkpoint_stall);
  EXPECT_EQ(got.spec.estimate, want.spec.estimate);
  EXPECT_EQ(got.spec.deadline, want.spec.deadline);
  EXPECT_EQ(got.spec.team, want.spec.team);
  EXPECT_EQ(got.spec.cpu_milli, want.spec.cpu_milli);
  EXPECT_EQ(got.spec.memory_mib, want.spec.memory_mib);
  EXPECT_EQ(got.max_retries, want.max_retries);
  EXPECT_EQ(got.tasks, want.tasks);
  EXPECT_EQ(got.output_path, want.output_path);
  EXPECT_EQ(got.error_path, want.error_path);
  EXPECT_EQ(got.spec.submit_time, want.spec.submit_time);
}

JobRequest RoundTrip(const JobRequest& r) {
  const std::string json = JobRequestToJobJson(r);
  Result<JobRequest> back = ParseJobJson(json, kNow);
  EXPECT_TRUE(back.ok()) << back.status().message() << "\n" << json;
  return back.ok() ? *back : JobRequest{};
}

TEST(JobJsonWriterTest, EveryFieldRoundTrips) {
  JobRequest r;
  r.spec.name = "resnet-50";
  r.command = {"python", "train.py", "--lr", "3e-4", "with \"quotes\" and spaces"};
  r.workdir = "/home/me/project";
  r.env = {{"OMP_NUM_THREADS", "4"}, {"EMPTY", ""}};
  r.spec.gpus = 1;
  r.spec.gpu_milli = 250;
  r.spec.gpu_models = {"A100", "H100"};
  r.spec.min_gpu_memory_mib = 40 * 1024 + 1;
  // Every bit of a speed comes back, and a model name with a space (nvidia-smi's names).
  r.spec.gpu_speeds = {{"V100", 1}, {"K80", 0.1 + 0.14}, {"Tesla T4", 100}, {"P100", 0.001}};
  r.spec.pool = "spot-h100";
  r.spec.regions = {"us-east", "eu-west"};
  r.spec.data_gb = 0.1 + 0.2;  // 0.30000000000000004: every bit comes back
  r.spec.urgency = Urgency::kCritical;
  r.spec.preemptible = true;
  r.spec.checkpointable = true;
  r.spec.checkpoint_interval = 30 * kMinute + 45 * kSecond;
  r.spec.checkpoint_cost = 2 * kMinute + 7 * kSecond;
  r.spec.checkpoint_stall = 5 * kSecond;
  r.spec.estimate = 2 * kHour + kMinute;
  r.spec.deadline = kNow + 18 * kHour + 7 * kSecond;
  r.spec.team = "ml";
  r.spec.cpu_milli = 1500;
  r.spec.memory_mib = 16 * 1024 + 3;
  r.max_retries = 0;
  r.tasks = 16;
  r.output_path = "logs/%x-%j_100%%.out";
  r.error_path = "/scratch/%u/%A_%a.err";
  r.spec.submit_time = kNow;
  ExpectSameJob(r, RoundTrip(r));
}

TEST(JobJsonWriterTest, OtherValuesRoundTrip) {
  JobRequest r;
  r.spec.name = "x";
  r.command = {"run"};
  r.workdir = "/srv/run";
  r.spec.gpus = 0;
  r.spec.urgency = Urgency::kLow;
  r.spec.cpu_milli = 1;
  r.spec.memory_mib = 1;
  r.spec.regions = {"eu-west"};
  r.spec.data_gb = 1e12;
  r.spec.checkpointable = true;
  r.spec.checkpoint_stall = 0;  // asynchronous, and free: its cost of 0s is written beside it
  r.max_retries = 100;
  r.spec.submit_time = kNow;
  ExpectSameJob(r, RoundTrip(r));
}

TEST(JobJsonWriterTest, AnElasticJobRoundTrips) {
  JobRequest r;
  r.spec.name = "train";
  r.command = {"train"};
  r.spec.checkpointable = true;
  r.spec.elastic.min = r.spec.gpus = 2;
  r.spec.elastic.max = 8;
  r.spec.elastic.step = 2;
  r.spec.elastic.scaling = ParseScaling("amdahl:0.9").value();
  r.spec.submit_time = kNow;
  const std::string json = JobRequestToJobJson(r);
  EXPECT_THAT(json, ::testing::HasSubstr(R"("gpus":"2-8","step":2,"scaling":"amdahl:0.9")"));
  ExpectSameJob(r, RoundTrip(r));
}

TEST(JobJsonWriterTest, MinimalRequestRoundTripsAndLeavesUnsetFieldsOut) {
  Result<JobRequest> minimal = ParseJobJson(R"({"command": ["train"]})", kNow);
  ASSERT_TRUE(minimal.ok()) << minimal.status().message();
  const std::string json = JobRequestToJobJson(*minimal);
  for (const char* absent :
       {"workdir", "env", "gpu_models", "gpu_memory", "gpu_speeds", "pool", "regions", "data_gb",
        "checkpoint_interval",
        "checkpoint_cost", "checkpoint_stall", "estimate", "deadline", "team", "cpus", "memory",
        "max_retries", "tasks"}) {
    EXPECT_THAT(json, ::testing::Not(HasSubstr(std::string("\"") + absent + "\""))) << json;
  }
  const JobRequest back = RoundTrip(*minimal);
  ExpectSameJob(*minimal, back);
  EXPECT_EQ(back.max_retries, -1);
  EXPECT_FALSE(back.spec.estimate.has_value());
}

TEST(JobJsonWriterTest, WritesTheFormsAJobFileUses) {
  JobRequest r;
  r.command = {"a"};
  r.spec.checkpointable = true;
  r.spec.checkpoint_interval = 90 * kMinute;
  r.spec.checkpoint_cost = 2 * kMinute + 30 * kSecond;
  r.spec.checkpoint_stall = 5 * kSecond;
  r.spec.estimate = 2 * kHour;
  r.spec.deadline = kNow + kHour;
  r.spec.cpu_milli = 500;
  r.spec.memory_mib = 2048;
  r.spec.urgency = Urgency::kHigh;
  r.spec.pool = "a100";
  r.spec.regions = {"us-east", "eu-west"};
  r.spec.data_gb = 250;
  const std::string json = JobRequestToJobJson(r);
  EXPECT_THAT(json, HasSubstr(R"("checkpoint_interval":"1h30m")"));
  EXPECT_THAT(json, HasSubstr(R"("checkpoint_cost":"2m30s","checkpoint_stall":"5s")"));
  EXPECT_THAT(json, HasSubstr(R"("estimate":"2h")"));
  EXPECT_THAT(json, HasSubstr(R"("deadline":"2026-12-01T01:00:00Z")"));
  EXPECT_THAT(json, HasSubstr(R"("cpus":"0.5")"));
  EXPECT_THAT(json, HasSubstr(R"("memory":"2048MiB")"));
  EXPECT_THAT(json, HasSubstr(R"("urgency":"high")"));
  EXPECT_THAT(json, HasSubstr(R"("pool":"a100","regions":["us-east","eu-west"],"data_gb":250.0)"));
}

TEST(JobJsonWriterTest, FormatsCpuMilliAsCores) {
  EXPECT_EQ(FormatCpuMilli(500), "0.5");
  EXPECT_EQ(FormatCpuMilli(4000), "4");
  EXPECT_EQ(FormatCpuMilli(1), "0.001");
  EXPECT_EQ(FormatCpuMilli(1250), "1.25");
  EXPECT_EQ(FormatCpuMilli(4096000), "4096");
}

}  // namespace
}  // namespace squeeze
