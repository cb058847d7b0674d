#include "config/job_gpu_speeds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "config/job_file.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

constexpr Time kCardNow = Seconds(1796083200);

Result<JobRequest> CardYaml(const std::string& rest) {
  return ParseJobYaml("command: [true]\n" + rest, "job.yaml", kCardNow);
}

std::string CardYamlError(const std::string& rest) {
  const Result<JobRequest> r = CardYaml(rest);
  return r.ok() ? "accepted" : r.status().message();
}

std::string CardJsonError(const std::string& fields) {
  const Result<JobRequest> r = ParseJobJson(R"({"command": ["true"], )" + fields + "}", kCardNow);
  return r.ok() ? "accepted" : r.status().message();
}

TEST(JobGpuFieldsTest, GpuMemoryTakesTheFormsOfMemory) {
  Result<JobRequest> r = CardYaml("gpu_memory: 40GiB\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.min_gpu_memory_mib, 40 * 1024);
  r = ParseJobJson(R"({"command": ["true"], "gpu_memory": "1.5 TiB"})", kCardNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.min_gpu_memory_mib, 1536 * 1024);
  r = CardYaml("gpu_memory:\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->spec.min_gpu_memory_mib, 0);
}

TEST(JobGpuFieldsTest, BadGpuMemoryNamesWhereTheFieldAndTheValue) {
  EXPECT_THAT(CardYamlError("gpu_memory: 40G\n"),
              HasSubstr("job.yaml:2:13: gpu_memory: '40G' is not a memory size"));
  EXPECT_THAT(CardYamlError("gpu_memory: 0GiB\n"), HasSubstr("gpu_memory: '0GiB'"));
  EXPECT_THAT(CardYamlError("gpu_memory: -1GiB\n"), HasSubstr("gpu_memory: '-1GiB'"));
  EXPECT_THAT(CardYamlError("gpu_memory: 65TiB\n"),
              HasSubstr("gpu_memory: '65TiB' is outside 1MiB..64TiB"));
  EXPECT_THAT(CardYamlError("gpu_memory: [40GiB]\n"),
              HasSubstr("gpu_memory: expected a memory size, got a list"));
  EXPECT_THAT(CardJsonError(R"("gpu_memory": 40960)"),
              HasSubstr("JSON request: gpu_memory: '40960' is not a memory size"));
}

TEST(JobGpuFieldsTest, GpuSpeedsAsAMapOrAsText) {
  Result<JobRequest> r = CardYaml("gpu_speeds: {V100: 1, K80: 0.24, Tesla T4: \"2\"}\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::map<std::string, double> want = {{"V100", 1}, {"K80", 0.24}, {"Tesla T4", 2}};
  EXPECT_EQ(r->spec.gpu_speeds, want);
  r = CardYaml("gpu_speeds: V100:1,K80:0.24\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.gpu_speeds, (std::map<std::string, double>{{"V100", 1}, {"K80", 0.24}}));
  r = ParseJobJson(R"({"command": ["true"], "gpu_speeds": {"A100": 100, "K80": 0.001}})",
                   kCardNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.gpu_speeds, (std::map<std::string, double>{{"A100", 100}, {"K80", 0.001}}));
}

TEST(JobGpuFieldsTest, ClaimedSpeedsAreBounded) {
  const std::pair<std::string, std::string> kCases[] = {
      {"gpu_speeds: {V100: 101}",
       "job.yaml:2:20: gpu_speeds.V100: value '101' is not a speed from 0.001 to 100"},
      {"gpu_speeds: {V100: 1e300}", "gpu_speeds.V100: value '1e300' is not a speed"},
      {"gpu_speeds: {V100: 0}", "gpu_speeds.V100: value '0' is not a speed"},
      {"gpu_speeds: {V100: -1}", "gpu_speeds.V100: value '-1' is not a speed"},
      {"gpu_speeds: {V100: 0.0001}", "gpu_speeds.V100: value '0.0001' is not a speed"},
      {"gpu_speeds: {V100: .nan}", "gpu_speeds.V100: value '.nan' is not a speed"},
      {"gpu_speeds: {V100: nan}", "gpu_speeds.V100: value 'nan' is not a speed"},
      {"gpu_speeds: {V100: inf}", "gpu_speeds.V100: value 'inf' is not a speed"},
      {"gpu_speeds: {V100: fast}", "gpu_speeds.V100: value 'fast' is not a speed"},
      {"gpu_speeds: {V100: [1]}", "gpu_speeds.V100: expected a number, got a list"},
      {"gpu_speeds: {'': 1}", "gpu_speeds.: a model name is empty"},
      {"gpu_speeds: {'" + std::string(129, 'x') + "': 1}", "is longer than 128 characters"},
      {"gpu_speeds: [V100, K80]", "gpu_speeds: expected a map of MODEL: SPEED"},
      {"gpu_speeds: V100:500", "gpu_speeds.V100: value '500' is not a speed from 0.001 to 100"},
      {"gpu_speeds: V100", "gpu_speeds: 'V100' is not MODEL:SPEED (as V100:1,K80:0.24)"},
      {"gpu_speeds: 'V100:1,V100:2'", "gpu_speeds.V100: the model is given twice"},
      {"gpu_speeds: 'V100:1,,K80:1'", "gpu_speeds: '' is not MODEL:SPEED"},
      {"gpu_speeds: ':1'", "gpu_speeds.: a model name is empty"},
      {"gpu_speeds: 'V100:'", "gpu_speeds.V100: value '' is not a speed"},
      {"gpu_speeds: ''", "gpu_speeds: no MODEL:SPEED pairs"},
  };
  for (const auto& [line, message] : kCases) {
    EXPECT_THAT(CardYamlError(line + "\n"), HasSubstr(message)) << line;
  }
  std::string many = "gpu_speeds: {";
  for (int i = 0; i < 65; ++i) many += (i ? ", m" : "m") + std::to_string(i) + ": 1";
  EXPECT_THAT(CardYamlError(many + "}\n"), HasSubstr("gpu_speeds: 65 models; the limit is 64"));
  EXPECT_THAT(CardJsonError(R"("gpu_speeds": {"V100": 1, " V100 ": 2})"),
              HasSubstr("JSON request: gpu_speeds.V100: the model is given twice"));
  EXPECT_THAT(CardJsonError(R"("gpu_speeds": {"V100\u001b[2J": 1})"),
              HasSubstr("control character"));
  EXPECT_THAT(CardJsonError(R"("gpu_speeds": true)"),
              HasSubstr("JSON request: gpu_speeds: 'true' is not MODEL:SPEED"));
  std::string long_text = "gpu_speeds: '";
  for (int i = 0; i < 65; ++i) long_text += (i ? ",m" : "m") + std::to_string(i) + ":1";
  EXPECT_THAT(CardYamlError(long_text + "'\n"), HasSubstr("gpu_speeds: more than 64 models"));
}

// Where a job of several nodes may go (issue 38): MODE or MODE:LEVEL, written back as given.
TEST(JobGpuFieldsTest, TopologyIsAModeAndALevel) {
  Result<JobRequest> r = CardYaml("topology: required:rack\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.topology.mode, TopologyMode::kRequired);
  EXPECT_EQ(r->spec.topology.level, "rack");
  r = ParseJobJson(R"({"command": ["true"], "topology": "unconstrained"})", kCardNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->spec.topology.mode, TopologyMode::kUnconstrained);
  EXPECT_TRUE(CardYaml("")->spec.topology.IsDefault());
  EXPECT_THAT(CardYamlError("topology: required\n"),
              HasSubstr("job.yaml:2:11: topology: topology 'required': required needs a level"));
  EXPECT_THAT(CardJsonError(R"("topology": ["required", "rack"])"), HasSubstr("topology"));
  EXPECT_THAT(CardJsonError(R"("topology": "everywhere")"),
              HasSubstr("'everywhere' is not preferred, required or unconstrained"));
}

}  // namespace
}  // namespace squeeze
