#include "cli/gpu_agent.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

TEST(GpuAgentTest, ReportOfTheGpusWithAValue) {
  const nlohmann::json r = AgentReport(
      "gpu-3", 4, {{0, 0.5, 1024.0}, {1, std::nullopt, std::nullopt}, {2, std::nullopt, 10.0}},
      Seconds(1000));
  EXPECT_EQ(r, nlohmann::json::parse(R"({"time": 1000, "gpus": [
      {"node": "gpu-3", "gpu": 4, "utilization": 0.5, "memory_used_mib": 1024.0},
      {"node": "gpu-3", "gpu": 6, "memory_used_mib": 10.0}]})"));
  EXPECT_TRUE(AgentReport("gpu-3", 0, {{0, std::nullopt, std::nullopt}}, kSecond).is_null());
}

TEST(GpuAgentTest, BacklogSendsOldestFirstAndKeepsWhatFailed) {
  AgentBacklog backlog(3);
  for (int t = 1; t <= 4; ++t) backlog.Add({{"time", t}});
  EXPECT_EQ(backlog.size(), 3u);  // the oldest (time 1) dropped
  EXPECT_EQ(backlog.dropped(), 1u);
  std::vector<int> sent;
  Status error = Status::Ok();
  EXPECT_EQ(backlog.Send([&](const nlohmann::json& r) {
              if (r["time"] == 3 && sent.size() == 1) return Status::Error("connection refused");
              sent.push_back(r["time"]);
              return Status::Ok();
            }, &error),
            1u);
  EXPECT_EQ(sent, (std::vector<int>{2}));
  EXPECT_EQ(error.message(), "connection refused");
  EXPECT_EQ(backlog.size(), 2u);
  EXPECT_EQ(backlog.Send([&](const nlohmann::json& r) {
              sent.push_back(r["time"]);
              return Status::Ok();
            }, nullptr),
            2u);
  EXPECT_EQ(sent, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(backlog.size(), 0u);
}

}  // namespace
}  // namespace squeeze
