#include "serve/capacity_requests.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::HasSubstr;

std::string ReclaimError(std::string_view body) {
  auto r = ParseReclaimBody(body);
  EXPECT_FALSE(r.ok()) << body;
  return r.ok() ? "" : r.status().message();
}

std::string TelemetryError(std::string_view body) {
  auto r = ParseTelemetryBody(body);
  EXPECT_FALSE(r.ok()) << body;
  return r.ok() ? "" : r.status().message();
}

TEST(CapacityRequestsTest, ReclaimWarningIsOptional) {
  for (std::string_view empty : {"", "  \n", "{}", R"({"warning_s": null})"}) {
    auto r = ParseReclaimBody(empty);
    ASSERT_TRUE(r.ok()) << empty << ": " << r.status().message();
    EXPECT_FALSE(r->has_value()) << empty;
  }
  EXPECT_EQ(**ParseReclaimBody(R"({"warning_s": 30})"), 30 * kSecond);
  EXPECT_EQ(**ParseReclaimBody(R"({"warning_s": 0})"), 0);
  EXPECT_EQ(**ParseReclaimBody(R"({"warning_s": 4.6})"), 5 * kSecond);
  EXPECT_EQ(**ParseReclaimBody(R"({"warning_s": "2m"})"), 2 * kMinute);
}

TEST(CapacityRequestsTest, BrokenReclaimBodiesNameTheFieldAndValue) {
  EXPECT_EQ(ReclaimError("{"), "the body is not JSON");
  EXPECT_EQ(ReclaimError("[30]"), "the body must be a JSON object, got [30]");
  EXPECT_EQ(ReclaimError(R"({"warning_s": -1})"),
            "warning_s: -1 is not a number of seconds from 0 to 86400");
  EXPECT_EQ(ReclaimError(R"({"warning_s": "soon"})"),
            "warning_s: \"soon\" is not a number of seconds from 0 to 86400");
  EXPECT_THAT(ReclaimError(R"({"warning_s": 90000})"), HasSubstr("warning_s: 90000"));
  EXPECT_THAT(ReclaimError(R"({"warning_s": true})"), HasSubstr("warning_s: true"));
  EXPECT_EQ(ReclaimError(R"({"warning": 30})"),
            "unknown field 'warning' (did you mean 'warning_s'?)");
}

TEST(CapacityRequestsTest, TelemetryReadsEveryGpu) {
  auto r = ParseTelemetryBody(
      R"({"gpus": [{"node": "n0", "gpu": 0, "inference_load": 0.72},
                   {"node": "n0", "gpu": 1, "inference_load": 0},
                   {"node": "n1", "gpu": 0, "inference_load": 1}]})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->gpus.size(), 3u);
  EXPECT_FALSE(r->time);
  EXPECT_EQ(r->gpus[0].node, "n0");
  EXPECT_EQ(r->gpus[0].gpu, 0);
  EXPECT_DOUBLE_EQ(*r->gpus[0].inference_load, 0.72);
  EXPECT_FALSE(r->gpus[0].utilization);
  EXPECT_EQ(r->gpus[1].gpu, 1);
  EXPECT_EQ(r->gpus[2].node, "n1");
  EXPECT_DOUBLE_EQ(*r->gpus[2].inference_load, 1);
}

TEST(CapacityRequestsTest, TelemetryReadsUtilizationMemoryAndTime) {
  auto r = ParseTelemetryBody(
      R"({"time": 1767225600,
          "gpus": [{"node": "n0", "gpu": 0, "utilization": 0.02, "memory_used_mib": 512},
                   {"node": "n0", "gpu": 1, "memory_used_mib": 0},
                   {"node": "n1", "gpu": 0, "inference_load": 0.5, "utilization": 0.8}]})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->time, Seconds(1767225600));
  ASSERT_EQ(r->gpus.size(), 3u);
  EXPECT_DOUBLE_EQ(*r->gpus[0].utilization, 0.02);
  EXPECT_DOUBLE_EQ(*r->gpus[0].memory_used_mib, 512);
  EXPECT_FALSE(r->gpus[0].inference_load);
  EXPECT_FALSE(r->gpus[1].utilization);
  EXPECT_DOUBLE_EQ(*r->gpus[1].memory_used_mib, 0);
  EXPECT_DOUBLE_EQ(*r->gpus[2].inference_load, 0.5);
  EXPECT_DOUBLE_EQ(*r->gpus[2].utilization, 0.8);
}

TEST(CapacityRequestsTest, BrokenUtilizationTelemetryNamesTheEntryFieldAndValue) {
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": 0, "utilization": 0.1},
                                        {"node": "n0", "gpu": 1, "utilization": 1.2}]})"),
            "gpus[1].utilization: 1.2 is not a number from 0 to 1");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": 0, "utilization": -0.1}]})"),
            "gpus[0].utilization: -0.1 is not a number from 0 to 1");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": 0, "utilization": "2%"}]})"),
            "gpus[0].utilization: \"2%\" is not a number from 0 to 1");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": 0, "memory_used_mib": -5}]})"),
            "gpus[0].memory_used_mib: -5 is not a number of MiB (0 or more)");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": 0, "memory_used_mib": "1G"}]})"),
            "gpus[0].memory_used_mib: \"1G\" is not a number of MiB (0 or more)");
  EXPECT_EQ(TelemetryError(R"({"time": "yesterday", "gpus": [{"node": "n0", "gpu": 0,
                                                                "utilization": 0.1}]})"),
            "time: \"yesterday\" is not a time in unix seconds");
  EXPECT_EQ(TelemetryError(R"({"time": -3, "gpus": [{"node": "n0", "gpu": 0,
                                                         "utilization": 0.1}]})"),
            "time: -3 is not a time in unix seconds");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": 0, "utilization": 0.1},
                                        {"node": "n0", "gpu": 1}]})"),
            "gpus[1]: no reading; give inference_load, utilization or memory_used_mib "
            "(or several)");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": 0, "utilisation": 0.1}]})"),
            "unknown field 'gpus[0].utilisation' (did you mean 'gpus[0].utilization'?)");
}

TEST(CapacityRequestsTest, BrokenTelemetryNamesTheFieldAndValue) {
  EXPECT_EQ(TelemetryError(""), "the body is not JSON");
  EXPECT_EQ(TelemetryError("{}"),
            "gpus: missing; give a list of {node, gpu, inference_load, utilization, "
            "memory_used_mib}");
  EXPECT_EQ(TelemetryError(R"({"gpus": []})"), "gpus: [] is not a non-empty list");
  EXPECT_EQ(TelemetryError(R"({"gpus": {"node": "n0"}})"),
            "gpus: {\"node\":\"n0\"} is not a non-empty list");
  EXPECT_EQ(TelemetryError(R"({"gpu": []})"), "unknown field 'gpu' (did you mean 'gpus'?)");
  EXPECT_EQ(TelemetryError(R"({"gpus": [3]})"),
            "gpus[0]: 3 is not an object {node, gpu, and one or more of inference_load, "
            "utilization, memory_used_mib}");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"gpu": 0, "inference_load": 0.5}]})"),
            "gpus[0].node: missing; expected a node name");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": 7, "gpu": 0, "inference_load": 0.5}]})"),
            "gpus[0].node: 7 is not a node name");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": -1, "inference_load": 0.5}]})"),
            "gpus[0].gpu: -1 is not a GPU index (0, 1, ...)");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": 0.5, "inference_load": 0.5}]})"),
            "gpus[0].gpu: 0.5 is not a GPU index (0, 1, ...)");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": 0, "inference_load": 0.1},
                                        {"node": "n0", "gpu": 1, "inference_load": 1.5}]})"),
            "gpus[1].inference_load: 1.5 is not a number from 0 to 1");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": 0, "inference_load": "high"}]})"),
            "gpus[0].inference_load: \"high\" is not a number from 0 to 1");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": 0}]})"),
            "gpus[0]: no reading; give inference_load, utilization or memory_used_mib "
            "(or several)");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": 0, "load": 0.5}]})"),
            "unknown field 'gpus[0].load'");
  EXPECT_EQ(TelemetryError(R"({"gpus": [{"node": "n0", "gpu": 0, "inference_load": 0.1},
                                        {"node": "n0", "gpu": 0, "inference_load": 0.2}]})"),
            "gpus[1].gpu: GPU 0 of node n0 is reported twice");
}

}  // namespace
}  // namespace squeeze
