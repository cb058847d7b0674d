#include "serve/job_update.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

TEST(JobUpdateTest, CardsAndTopologyReadAsAJobFileReadsThem) {
  auto u = ParseJobUpdate(R"({"gpu_models": ["A100", "H100"], "gpu_memory": "40GiB",
                              "gpu_speeds": "V100:1,K80:0.25", "topology": "required:rack"})");
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_TRUE(u->ChangesWaitingOnly());
  JobRequest r;
  r.spec.gpu_models = {"V100"};
  const std::string what = u->ApplyTo(r);
  EXPECT_EQ(r.spec.gpu_models, (std::vector<std::string>{"A100", "H100"}));
  EXPECT_EQ(r.spec.min_gpu_memory_mib, 40960);
  EXPECT_EQ(r.spec.gpu_speeds.at("K80"), 0.25);
  EXPECT_EQ(r.spec.topology.mode, TopologyMode::kRequired);
  EXPECT_EQ(r.spec.topology.level, "rack");
  EXPECT_EQ(what,
            " gpu_models A100,H100 gpu_memory 40960MiB gpu_speeds K80:0.25,V100:1 topology "
            "required:rack");
}

TEST(JobUpdateTest, NullPutsTheDefaultBack) {
  auto u = ParseJobUpdate(
      R"({"gpu_models": null, "gpu_memory": null, "gpu_speeds": null, "topology": null})");
  ASSERT_TRUE(u.ok()) << u.status().message();
  JobRequest r;
  r.spec.gpu_models = {"V100"};
  r.spec.min_gpu_memory_mib = 1024;
  r.spec.gpu_speeds = {{"V100", 1}};
  r.spec.topology = {TopologyMode::kUnconstrained, ""};
  EXPECT_EQ(u->ApplyTo(r), " gpu_models any gpu_memory any gpu_speeds none topology preferred");
  EXPECT_TRUE(r.spec.gpu_models.empty());
  EXPECT_EQ(r.spec.min_gpu_memory_mib, 0);
  EXPECT_TRUE(r.spec.gpu_speeds.empty());
  EXPECT_TRUE(r.spec.topology.IsDefault());
}

TEST(JobUpdateTest, TimeLimitAloneIsForRunningJobsToo) {
  auto u = ParseJobUpdate(R"({"time_limit": "2h"})");
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE(u->ChangesWaitingOnly());
}

void ExpectRefused(const std::string& body, const std::string& part) {
  auto u = ParseJobUpdate(body);
  ASSERT_FALSE(u.ok()) << body;
  EXPECT_NE(u.status().message().find(part), std::string::npos) << u.status().message();
}

TEST(JobUpdateTest, BrokenValuesNamedAsASubmissionNamesThem) {
  ExpectRefused(R"({"gpu_memory": "lots"})", "gpu_memory");
  ExpectRefused(R"({"gpu_memory": "lots"})", "lots");
  ExpectRefused(R"({"gpu_speeds": "K80:1000"})", "K80");
  ExpectRefused(R"({"topology": "required"})", "topology");
  ExpectRefused(R"({"topology": "sideways:rack"})", "sideways");
  ExpectRefused(R"({"gpu_models": [""]})", "gpu_models");
  ExpectRefused(R"({"command": ["rm"]})", "'command' cannot be updated");
  ExpectRefused(R"({"urgency": "urgent"})", "urgency: 'urgent'");
  ExpectRefused(R"({})", "nothing to update");
  ExpectRefused("[1]", "not a JSON object");
}

}  // namespace
}  // namespace squeeze
