#include "sim/readers/job_types_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/readers/trace_reader.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

TEST(JobTypesReaderTest, ReadsTypesAndSkipsComments) {
  auto r = ParseJobTypes(
      "# Gavel's\njob_type,multi_gpu,gpu_speeds\nresnet,yes,V100:1|K80:0.2\n# a note\n"
      "a3c,no,V100:1|K80:0.48\n",
      "types.csv");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].name, "resnet");
  EXPECT_TRUE((*r)[0].multi_gpu);
  EXPECT_FALSE((*r)[1].multi_gpu);
  EXPECT_EQ((*r)[1].gpu_speeds.at("K80"), 0.48);
}

TEST(JobTypesReaderTest, BrokenFilesNameTheLineColumnAndValue) {
  const std::string header = "job_type,multi_gpu,gpu_speeds\n";
  for (const auto& [text, words] : std::vector<std::pair<std::string, std::string>>{
           {"", "the file is empty"},
           {"type,speeds\n", "types.csv:1: the header must be job_type,multi_gpu,gpu_speeds"},
           {header, "no job types after the header"},
           {header + "a,maybe,V100:1\n", "types.csv:2: column 'multi_gpu': value 'maybe'"},
           {header + "a,no,V100:x\n", "types.csv:2: column 'gpu_speeds': GPU speeds 'V100:x'"},
           {header + "a,no,V100:1\na,no,V100:1\n", "types.csv:3: column 'job_type': value 'a' is given twice"},
           {header + ",no,V100:1\n", "column 'job_type': the value is empty"},
           {header + "a,no\n", "types.csv:2: 2 fields; the header has 3"},
           {header + "a,no,\"V100:1\n", "types.csv"}}) {
    auto r = ParseJobTypes(text, "types.csv");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.status().message(), HasSubstr(words)) << text;
  }
}

// Each job gets one type's speeds by a hash of its id (the same every time), a job of several
// GPUs only a multi_gpu type's; a job with its own table keeps it.
TEST(JobTypesReaderTest, JobsGetATypeByTheirIds) {
  ReadOptions options;
  options.job_types = *ParseJobTypes(
      "job_type,multi_gpu,gpu_speeds\nsolo,no,K80:0.5\nwide,yes,K80:0.25\n", "t.csv");
  std::string csv = "id,submit_time,duration,gpus,pool,gpu_speeds\n";
  for (int i = 1; i <= 200; ++i) csv += std::to_string(i) + ",0,60," + (i % 2 ? "1" : "4") + ",a,\n";
  csv += "201,0,60,1,a,K80:0.9\n";
  auto a = ParseTrace(csv, "jobs.csv", options);
  auto b = ParseTrace(csv, "jobs.csv", options);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok());
  int solo = 0;
  for (size_t i = 0; i < a->jobs.size(); ++i) {
    const JobSpec& s = a->jobs[i].spec;
    EXPECT_EQ(s.gpu_speeds, b->jobs[i].spec.gpu_speeds);
    if (s.id == 201) {
      EXPECT_EQ(s.gpu_speeds.at("K80"), 0.9);
      continue;
    }
    if (s.gpus > 1) EXPECT_EQ(s.gpu_speeds.at("K80"), 0.25) << s.id;
    solo += s.gpu_speeds.at("K80") == 0.5;
  }
  EXPECT_GT(solo, 20);  // about half of the 100 one-GPU jobs
  EXPECT_LT(solo, 80);
}

}  // namespace
}  // namespace squeeze
