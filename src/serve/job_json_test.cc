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
  const nlohmann::json j = StoredJobJson(job, 100);
  EXPECT_EQ(j["pool"], "a100");
  EXPECT_EQ(j["regions"], (std::vector<std::string>{"us-east", "eu-west"}));
  EXPECT_EQ(j["data_gb"], 1.5);
}

TEST(JobJsonTest, AnyPoolAndRegionAndNoDataShowAsEmpty) {
  StoredJob job;
  job.request.command = {"true"};
  const nlohmann::json j = StoredJobJson(job, 100);
  EXPECT_EQ(j["pool"], "");
  EXPECT_TRUE(j["regions"].is_array());
  EXPECT_TRUE(j["regions"].empty());
  EXPECT_EQ(j["data_gb"], 0.0);
}

}  // namespace
}  // namespace squeeze
