#include "sim/writers/job_profile_writer.h"

#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/readers/job_profile_reader.h"
#include "sim/readers/trace_reader.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

Trace TwoJobs() {
  Trace t;
  TraceJob a;
  a.spec.id = 7;
  a.spec.submit_time = 30 * kMinute;
  a.duration = 2 * kHour;
  a.spec.gpus = 1;
  a.spec.pool = "inference-a";
  a.spec.name = "bert; \"ft\", v2";  // the delimiter, a quote and a comma
  a.spec.team = "nlp";
  a.spec.urgency = Urgency::kHigh;
  a.spec.gpu_milli = 500;
  a.spec.gpu_models = {"A100", "H100"};
  a.spec.min_gpu_memory_mib = 40960;
  a.spec.cpu_milli = 8000;
  a.spec.memory_mib = 65536;
  a.spec.preemptible = false;
  a.spec.checkpointable = true;
  a.spec.fault_tolerant = true;
  a.spec.checkpoint_interval = 15 * kMinute;
  a.spec.checkpoint_cost = 45 * kSecond;
  a.spec.restart_overhead = 2 * kMinute;
  a.spec.estimate = 90 * kMinute;
  a.spec.deadline = 12 * kHour;
  a.spec.regions = {"us-east", "eu-west"};
  a.spec.data_gb = 250.5;
  TraceJob b;
  b.spec.id = 9;
  b.spec.submit_time = kHour;
  b.duration = kMinute;
  b.spec.gpus = 8;
  b.spec.name = "multi\nline";
  t.jobs = {a, b};
  return t;
}

void ExpectSameJobs(const Trace& got, const Trace& want) {
  ASSERT_EQ(got.jobs.size(), want.jobs.size());
  for (size_t i = 0; i < got.jobs.size(); ++i) {
    SCOPED_TRACE(i);
    const TraceJob& g = got.jobs[i];
    const TraceJob& w = want.jobs[i];
    // Every column, compared through the writer: what it writes is what was read.
    for (const ColumnDef& c : JobProfileColumns()) {
      EXPECT_EQ(*ProfileCell(c.name, g), *ProfileCell(c.name, w)) << c.name;
    }
    EXPECT_EQ(g.spec.name, w.spec.name);
    EXPECT_EQ(g.spec.data_gb, w.spec.data_gb);
  }
}

TEST(JobProfileWriterTest, EveryReaderColumnIsWritten) {
  const Trace t = TwoJobs();
  for (const ColumnDef& c : JobProfileColumns()) {
    EXPECT_TRUE(ProfileCell(c.name, t.jobs[0]).ok()) << c.name;
  }
  EXPECT_FALSE(ProfileCell("colour", t.jobs[0]).ok());
}

TEST(JobProfileWriterTest, WhatItWritesReadsBackTheSame) {
  for (const ProfileCsvOptions& o : {ProfileCsvOptions{false, ','}, ProfileCsvOptions{true, ','},
                                     ProfileCsvOptions{true, ';'}}) {
    SCOPED_TRACE(std::string(1, o.delimiter) + (o.excel ? " excel" : ""));
    std::ostringstream out;
    ASSERT_TRUE(WriteJobProfileCsv(TwoJobs(), o, &out).ok());
    auto back = ParseTrace(out.str(), "out.csv", ReadOptions{});
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(back->format, "job-profile");
    ExpectSameJobs(*back, TwoJobs());
  }
}

// An elastic job: its range, step, scaling, resize cost and the width its duration is for
// (as --assume-elastic makes them) read back the same.
TEST(JobProfileWriterTest, AnElasticJobReadsBack) {
  Trace t;
  TraceJob e;
  e.spec.id = 4;
  e.duration = kHour;
  e.spec.gpus = 8;
  e.spec.name = "elastic";
  e.spec.elastic.min = 2;
  e.spec.elastic.max = 16;
  e.spec.elastic.step = 2;
  e.spec.elastic.reference = 8;
  e.spec.elastic.scaling = *ParseScaling("amdahl:0.9");
  e.spec.elastic.resize_cost = kMinute;
  t.jobs = {e};
  std::ostringstream out;
  ASSERT_TRUE(WriteJobProfileCsv(t, ProfileCsvOptions{}, &out).ok());
  EXPECT_THAT(out.str(), HasSubstr("\n4,0,3600,2-16,"));
  auto back = ParseTrace(out.str(), "out.csv", ReadOptions{});
  ASSERT_TRUE(back.ok()) << back.status().message();
  const ElasticSpec& r = back->jobs[0].spec.elastic;
  EXPECT_EQ(r.min, 2);
  EXPECT_EQ(r.max, 16);
  EXPECT_EQ(r.step, 2);
  EXPECT_EQ(r.Reference(), 8);
  EXPECT_EQ(ScalingText(r.scaling), "amdahl:0.9");
  EXPECT_EQ(r.resize_cost, kMinute);
  ExpectSameJobs(*back, t);
}

// The daemon runs CPU-only jobs (gpus 0); profile export writes them and simulate reads them.
TEST(JobProfileWriterTest, ACpuOnlyJobReadsBack) {
  Trace t;
  TraceJob cpu;
  cpu.spec.id = 3;
  cpu.spec.submit_time = 10 * kSecond;
  cpu.duration = kMinute;
  cpu.spec.gpus = 0;
  cpu.spec.name = "prep";
  cpu.spec.cpu_milli = 4000;
  cpu.spec.memory_mib = 2048;
  t.jobs = {cpu};
  std::ostringstream out;
  ASSERT_TRUE(WriteJobProfileCsv(t, ProfileCsvOptions{}, &out).ok());
  EXPECT_THAT(out.str(), HasSubstr("\n3,10,60,0,"));
  auto back = ParseTrace(out.str(), "out.csv", ReadOptions{});
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->jobs.size(), 1u);
  EXPECT_EQ(back->jobs[0].spec.gpus, 0);
  EXPECT_EQ(back->jobs[0].spec.cpu_milli, 4000);
  ExpectSameJobs(*back, t);
}

TEST(JobProfileWriterTest, ExcelGetsABomCrlfAndQuotedFields) {
  std::ostringstream out;
  ASSERT_TRUE(WriteJobProfileCsv(TwoJobs(), {true, ';'}, &out).ok());
  const std::string text = out.str();
  EXPECT_THAT(text, StartsWith("\xEF\xBB\xBFid;submit_time;duration;gpus;pool;name;"));
  EXPECT_THAT(text, HasSubstr("\r\n7;1800;7200;1;inference-a;\"bert; \"\"ft\"\", v2\";"));
  EXPECT_THAT(text, HasSubstr(";\"multi\nline\";"));
  std::ostringstream plain;
  ASSERT_TRUE(WriteJobProfileCsv(TwoJobs(), {}, &plain).ok());
  EXPECT_EQ(plain.str().find('\r'), std::string::npos);
  EXPECT_THAT(plain.str(), StartsWith("id,submit_time,"));
  EXPECT_FALSE(WriteJobProfileCsv(TwoJobs(), {false, '\t'}, &plain).ok());
}

TEST(JobProfileWriterTest, CsvFieldQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(CsvField("plain", ','), "plain");
  EXPECT_EQ(CsvField("a;b", ','), "a;b");
  EXPECT_EQ(CsvField("a;b", ';'), "\"a;b\"");
  EXPECT_EQ(CsvField(" edge", ','), "\" edge\"");
  EXPECT_EQ(CsvField("say \"hi\"", ','), "\"say \"\"hi\"\"\"");
}

TEST(JobProfileWriterTest, GpuSpeedsReadBack) {
  Trace t;
  TraceJob j;
  j.spec.id = 5;
  j.duration = kHour;
  j.spec.gpu_speeds = {{"V100", 1}, {"K80", 0.24}};
  t.jobs = {j};
  std::ostringstream out;
  ASSERT_TRUE(WriteJobProfileCsv(t, ProfileCsvOptions{}, &out).ok());
  EXPECT_THAT(out.str(), HasSubstr(",K80:0.24|V100:1,"));
  auto back = ParseTrace(out.str(), "out.csv", ReadOptions{});
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->jobs[0].spec.gpu_speeds, j.spec.gpu_speeds);
}

}  // namespace
}  // namespace squeeze
