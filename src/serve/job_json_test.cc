#include "serve/job_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace squeeze {
namespace {

TEST(JobJsonTest, ShowsThePoolRegionsAndDataSize) {
  StoredJob job;
  job.id = 7;
  job.request.command = {"true"};
  job.request.spec.pool = "a100";
  job.request.spec.regions = {"us-east", "eu-west"};
  job.request.spec.data_gb = 1.5;
  const nlohmann::json j = StoredJobJson(job, 100 * kSecond);
  EXPECT_EQ(j["pool"], "a100");
  EXPECT_EQ(j["regions"], (std::vector<std::string>{"us-east", "eu-west"}));
  EXPECT_EQ(j["data_gb"], 1.5);
}

// An elastic job: its range and step, and GPU-hours run by run (8 GPUs for an hour, then 4 GPUs
// for the half hour so far), not its minimum times its time.
TEST(JobJsonTest, AnElasticJobsRangeAndGpuHoursByWidth) {
  StoredJob job;
  job.request.command = {"true"};
  job.request.spec.gpus = job.request.spec.elastic.min = 2;
  job.request.spec.elastic.max = 8;
  job.request.spec.elastic.step = 2;
  job.state = JobState::kRunning;
  job.started_at = kHour;
  job.ran = kHour;
  job.gpu_ran = 8 * kHour;
  job.ran_by_width = {{8, kHour}};
  job.gpus = {0, 1, 2, 3};
  const nlohmann::json j = StoredJobJson(job, kHour + 30 * kMinute);
  EXPECT_EQ(j["gpus_range"], "2-8");
  EXPECT_EQ(j["gpus_step"], 2);
  EXPECT_EQ(j["scaling"], "linear");
  EXPECT_EQ(j["gpu_hours"], 10.0);  // 8 + 4 x 0.5
  EXPECT_EQ(j["gpu_hours_by_width"], (nlohmann::json{{"8", 8.0}, {"4", 2.0}}));
  job.request.spec.elastic = ElasticSpec{};  // the same times for a job of 2 GPUs
  EXPECT_EQ(StoredJobJson(job, kHour + 30 * kMinute)["gpu_hours"], 3.0);
  EXPECT_FALSE(StoredJobJson(job, kHour + 30 * kMinute).contains("gpu_hours_by_width"));
  EXPECT_TRUE(StoredJobJson(job, kHour)["gpus_range"].is_null());
}

TEST(JobJsonTest, ShowsTheGpuMemoryAndTheJobsOwnSpeeds) {
  StoredJob job;
  job.request.command = {"true"};
  nlohmann::json j = StoredJobJson(job, 100 * kSecond);
  EXPECT_TRUE(j["gpu_memory_mib"].is_null());
  EXPECT_TRUE(j["gpu_speeds"].is_null());
  job.request.spec.min_gpu_memory_mib = 40960;
  job.request.spec.gpu_speeds = {{"V100", 1}, {"K80", 0.24}};
  j = StoredJobJson(job, 100 * kSecond);
  EXPECT_EQ(j["gpu_memory_mib"], 40960);
  EXPECT_EQ(j["gpu_speeds"], (nlohmann::json{{"K80", 0.24}, {"V100", 1.0}}));
}

TEST(JobJsonTest, AnyPoolAndRegionAndNoDataShowAsEmpty) {
  StoredJob job;
  job.request.command = {"true"};
  const nlohmann::json j = StoredJobJson(job, 100 * kSecond);
  EXPECT_EQ(j["pool"], "");
  EXPECT_TRUE(j["regions"].is_array());
  EXPECT_TRUE(j["regions"].empty());
  EXPECT_EQ(j["data_gb"], 0.0);
}

TEST(JobJsonTest, ShowsTheCheckpointCostAndStallInSeconds) {
  StoredJob job;
  job.request.command = {"true"};
  job.request.spec.checkpointable = true;
  job.request.spec.checkpoint_interval = 30 * kMinute;
  job.request.spec.checkpoint_cost = 2 * kMinute;
  job.request.spec.checkpoint_stall = 5 * kSecond;
  nlohmann::json j = StoredJobJson(job, 100 * kSecond);
  EXPECT_EQ(j["checkpoint_interval_s"], 1800);
  EXPECT_EQ(j["checkpoint_cost_s"], 120);
  EXPECT_EQ(j["checkpoint_stall_s"], 5);
  // An asynchronous checkpoint may pause training not at all.
  job.request.spec.checkpoint_stall = 0;
  EXPECT_EQ(StoredJobJson(job, 100 * kSecond)["checkpoint_stall_s"], 0);
}

TEST(JobJsonTest, CheckpointFieldsNotGivenAreNull) {
  StoredJob job;
  job.request.command = {"true"};
  const nlohmann::json j = StoredJobJson(job, 100 * kSecond);
  for (const char* key : {"checkpoint_interval_s", "checkpoint_cost_s", "checkpoint_stall_s"}) {
    ASSERT_TRUE(j.contains(key)) << key;
    EXPECT_TRUE(j[key].is_null()) << key;
  }
}

// The reason's detail (a path, the command) is its owner's and the admins'; every other user
// sees the public reason, and none of the private fields.
TEST(JobJsonTest, TheReasonsDetailIsShownOnlyWithThePrivateFields) {
  StoredJob job;
  job.request.command = {"/home/bob/secret/train.sh"};
  job.request.output_path = "/home/bob/secret/out.txt";
  job.reason = "the output file could not be opened (exit 127)";
  job.reason_detail = "cannot open the output file '/home/bob/secret/out.txt': No such file";
  const nlohmann::json mine = StoredJobJson(job, 100 * kSecond, true);
  EXPECT_EQ(mine["reason"], job.reason_detail);
  const nlohmann::json theirs = StoredJobJson(job, 100 * kSecond, false);
  EXPECT_EQ(theirs["reason"], job.reason);
  EXPECT_EQ(theirs.dump().find("secret"), std::string::npos) << theirs.dump();
  job.reason_detail.clear();
  EXPECT_EQ(StoredJobJson(job, 100 * kSecond, true)["reason"], job.reason);
}

}  // namespace
}  // namespace squeeze
