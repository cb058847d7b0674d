#include "sim/readers/job_profile_reader.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/readers/trace_reader.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

constexpr char kRequired[] = "id,submit_time,duration,gpus,pool\n";

Result<Trace> Parse(const std::string& text, ReadOptions options = {}) {
  return ParseTrace(text, "t.csv", options);
}

std::string ErrorOf(const std::string& text, ReadOptions options = {}) {
  Result<Trace> r = Parse(text, options);
  return r.ok() ? "(parsed without error)" : r.status().message();
}

TEST(JobProfileReaderTest, EveryColumn) {
  Result<Trace> r = Parse(
      "id,submit_time,duration,gpus,pool,name,team,urgency,gpu_milli,gpu_models,"
      "min_gpu_memory_mib,cpu_milli,memory_mib,preemptible,checkpointable,checkpoint_interval,"
      "checkpoint_cost,restart_overhead,estimate,deadline,regions,data_gb\n"
      "7,30m,2h,1,inference-a,bert-ft,nlp,HIGH,500, A100 | H100 ,40960,8000,65536,no,Yes,15m,"
      "45s,2m,1h30m,12h,us-east|eu-west,250.5\n"
      "3,90,3600,8,,train,vision,critical,,,,,,,,,,,,,,\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, "job-profile");
  ASSERT_EQ(r->jobs.size(), 2u);

  const TraceJob& a = r->jobs[1];
  EXPECT_EQ(a.spec.id, 7);
  EXPECT_EQ(a.spec.submit_time, 30 * kMinute);
  EXPECT_EQ(a.duration, 2 * kHour);
  EXPECT_EQ(a.spec.gpus, 1);
  EXPECT_EQ(a.spec.pool, "inference-a");
  EXPECT_EQ(a.spec.name, "bert-ft");
  EXPECT_EQ(a.spec.team, "nlp");
  EXPECT_EQ(a.spec.urgency, Urgency::kHigh);
  EXPECT_EQ(a.spec.gpu_milli, 500);
  EXPECT_THAT(a.spec.gpu_models, ElementsAre("A100", "H100"));
  EXPECT_EQ(a.spec.min_gpu_memory_mib, 40960);
  EXPECT_EQ(a.spec.cpu_milli, 8000);
  EXPECT_EQ(a.spec.memory_mib, 65536);
  EXPECT_FALSE(a.spec.preemptible);
  EXPECT_TRUE(a.spec.checkpointable);
  EXPECT_EQ(a.spec.checkpoint_interval, 15 * kMinute);
  EXPECT_EQ(a.spec.checkpoint_cost, 45 * kSecond);
  EXPECT_EQ(a.spec.restart_overhead, std::optional<Time>(2 * kMinute));
  EXPECT_EQ(a.spec.estimate, std::optional<Time>(90 * kMinute));
  EXPECT_EQ(a.spec.deadline, std::optional<Time>(12 * kHour));
  EXPECT_THAT(a.spec.regions, ElementsAre("us-east", "eu-west"));
  EXPECT_DOUBLE_EQ(a.spec.data_gb, 250.5);

  const TraceJob& b = r->jobs[0];  // empty optional cells: not given
  EXPECT_EQ(b.spec.id, 3);
  EXPECT_EQ(b.spec.submit_time, 90 * kSecond);
  EXPECT_EQ(b.duration, kHour);
  EXPECT_EQ(b.spec.gpus, 8);
  EXPECT_EQ(b.spec.pool, "");
  EXPECT_EQ(b.spec.name, "train");
  EXPECT_EQ(b.spec.team, "vision");
  EXPECT_EQ(b.spec.urgency, Urgency::kCritical);
  EXPECT_EQ(b.spec.gpu_milli, kMilliPerGpu);
  EXPECT_THAT(b.spec.gpu_models, IsEmpty());
  EXPECT_EQ(b.spec.min_gpu_memory_mib, 0);
  EXPECT_EQ(b.spec.cpu_milli, 0);
  EXPECT_EQ(b.spec.memory_mib, 0);
  EXPECT_TRUE(b.spec.preemptible);
  EXPECT_TRUE(b.spec.checkpointable);
  EXPECT_EQ(b.spec.checkpoint_interval, 0);
  EXPECT_EQ(b.spec.checkpoint_cost, 0);
  EXPECT_EQ(b.spec.restart_overhead, std::nullopt);
  EXPECT_EQ(b.spec.estimate, std::nullopt);
  EXPECT_EQ(b.spec.deadline, std::nullopt);
  EXPECT_THAT(b.spec.regions, IsEmpty());
  EXPECT_DOUBLE_EQ(b.spec.data_gb, 0);
}

TEST(JobProfileReaderTest, RequiredColumnsOnlyInAnyOrderAndCase) {
  ReadOptions options;
  options.default_preemptible = false;
  options.default_checkpointable = false;
  Result<Trace> r = Parse(" Pool ,GPUS,Duration,SUBMIT_TIME,  id \nbatch,2,1h30m,5,9\n", options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->jobs.size(), 1u);
  const JobSpec& spec = r->jobs[0].spec;
  EXPECT_EQ(spec.id, 9);
  EXPECT_EQ(spec.name, "9");  // named after the id
  EXPECT_EQ(spec.pool, "batch");
  EXPECT_EQ(spec.gpus, 2);
  EXPECT_EQ(spec.submit_time, 5 * kSecond);
  EXPECT_EQ(r->jobs[0].duration, 90 * kMinute);
  EXPECT_EQ(spec.urgency, Urgency::kNormal);
  EXPECT_FALSE(spec.preemptible);
  EXPECT_FALSE(spec.checkpointable);
}

TEST(JobProfileReaderTest, InterruptibilityDefaultsOnlyWhereNotGiven) {
  ReadOptions options;
  options.default_preemptible = false;
  options.default_checkpointable = true;
  Result<Trace> r = Parse(
      "id,submit_time,duration,gpus,pool,preemptible,checkpointable\n"
      "1,0,10,1,p,,\n2,1,10,1,p,1,0\n3,2,10,1,p,TRUE,No\n",
      options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->jobs.size(), 3u);
  EXPECT_FALSE(r->jobs[0].spec.preemptible);
  EXPECT_TRUE(r->jobs[0].spec.checkpointable);
  EXPECT_TRUE(r->jobs[1].spec.preemptible);
  EXPECT_FALSE(r->jobs[1].spec.checkpointable);
  EXPECT_TRUE(r->jobs[2].spec.preemptible);
  EXPECT_FALSE(r->jobs[2].spec.checkpointable);
}

TEST(JobProfileReaderTest, SortsBySubmitTimeStably) {
  Result<Trace> r = Parse(std::string(kRequired) +
                          "1,1h,10,1,p\n2,60s,10,1,p\n3,3600,10,1,p\n4,1m,10,1,p\n5,0,10,1,p\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<JobId> ids;
  for (const TraceJob& job : r->jobs) ids.push_back(job.spec.id);
  EXPECT_THAT(ids, ElementsAre(5, 2, 4, 1, 3));
}

TEST(JobProfileReaderTest, BomSemicolonsQuotedFieldsAndCrlf) {
  const std::string text =
      "\xEF\xBB\xBF Pool ;GPUS;Duration;SUBMIT_TIME; id ;name;gpu_models\r\n"
      "\"p;1\";2;12h;0;1;\"say \"\"hi\"\"\";\"A100|H100\"\r\n"
      "\r\n"
      "\"\";1;90s;\"5\";2;\"multi\r\nline\";\r\n";
  Result<Trace> r = Parse(text);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->jobs.size(), 2u);
  EXPECT_EQ(r->jobs[0].spec.pool, "p;1");
  EXPECT_EQ(r->jobs[0].spec.gpus, 2);
  EXPECT_EQ(r->jobs[0].duration, 12 * kHour);
  EXPECT_EQ(r->jobs[0].spec.name, "say \"hi\"");
  EXPECT_THAT(r->jobs[0].spec.gpu_models, ElementsAre("A100", "H100"));
  EXPECT_EQ(r->jobs[1].spec.id, 2);
  EXPECT_EQ(r->jobs[1].spec.pool, "");
  EXPECT_EQ(r->jobs[1].spec.submit_time, 5 * kSecond);
  EXPECT_EQ(r->jobs[1].duration, 90 * kSecond);
  EXPECT_EQ(r->jobs[1].spec.name, "multi\r\nline");
  // Lines keep counting through blank lines and quoted line breaks.
  EXPECT_EQ(ErrorOf(text + "x;zz;1;1;3;n;\r\n"),
            "t.csv:6: column 'gpus': value 'zz' is not an integer");
}

TEST(JobProfileReaderTest, DataSizes) {
  const std::string header = std::string(kRequired).substr(0, std::string(kRequired).size() - 1) +
                              ",data_gb\n";
  EXPECT_EQ(ErrorOf(header + "1,0,10,1,p,-3\n"),
            "t.csv:2: column 'data_gb': value '-3' is negative (a size in GB)");
  EXPECT_THAT(ErrorOf(header + "1,0,10,1,p,lots\n"),
              StartsWith("t.csv:2: column 'data_gb': value 'lots' "));
  ReadOptions options;
  options.default_data_gb = 40;
  Result<Trace> r = Parse(header + "1,0,10,1,p,\n2,0,10,1,p,7\n", options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->jobs[0].spec.data_gb, 40);  // none given: the default
  EXPECT_DOUBLE_EQ(r->jobs[1].spec.data_gb, 7);
}

TEST(JobProfileReaderTest, CheckpointCostDefaultOnlyWhereNotGiven) {
  const std::string header = std::string(kRequired).substr(0, std::string(kRequired).size() - 1) +
                              ",checkpoint_cost\n";
  ReadOptions options;
  options.default_checkpoint_cost = kMinute;
  Result<Trace> r = Parse(header + "1,0,10,1,p,\n2,0,10,1,p,5m\n", options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->jobs[0].spec.checkpoint_cost, kMinute);  // none given: the default
  EXPECT_EQ(r->jobs[1].spec.checkpoint_cost, 5 * kMinute);
}

TEST(JobProfileReaderTest, CheckpointStallDefaultOnlyWhereNotGivenAndBadOnesRefused) {
  const std::string header = std::string(kRequired).substr(0, std::string(kRequired).size() - 1) +
                              ",checkpoint_cost,checkpoint_stall\n";
  ReadOptions options;
  options.default_checkpoint_stall = 10 * kSecond;
  Result<Trace> r = Parse(header + "1,0,10,1,p,2m,\n2,0,10,1,p,2m,30s\n", options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->jobs[0].spec.checkpoint_stall, 10 * kSecond);  // none given: the default
  EXPECT_EQ(r->jobs[1].spec.checkpoint_stall, 30 * kSecond);
  r = Parse(header + "1,0,10,1,p,2m,\n");  // no default: synchronous checkpoints
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->jobs[0].spec.checkpoint_stall.has_value());
  EXPECT_THAT(ErrorOf(header + "1,0,10,1,p,2m,soon\n"),
              HasSubstr("t.csv:2: column 'checkpoint_stall': value 'soon' is not a duration"));
  EXPECT_THAT(ErrorOf(header + "1,0,10,1,p,2m,-5\n"),
              HasSubstr("column 'checkpoint_stall': value '-5' must be >= 0"));
}

TEST(JobProfileReaderTest, HeaderErrors) {
  EXPECT_THAT(ErrorOf("id,submit_time,duration,gpus,pool,urgancy\n1,0,1,1,p,high\n"),
              AllOf(StartsWith("t.csv:1: unknown column 'urgancy' in a job-profile file "
                               "(known columns: id, submit_time, duration, gpus, pool, name, "),
                    EndsWith(", deadline, regions, data_gb, user, time_limit, array, dependency, "
                             "gpus_step, scaling, resize_cost, duration_gpus)")));
  EXPECT_THAT(ErrorOf("jobid,when\n1,2\n"),  // a header of no known format
              StartsWith("t.csv:1: unknown column 'jobid' in a job-profile file"));
  EXPECT_THAT(ErrorOf("id,submit_time,duration,gpus,pool,timestamp\n"),
              StartsWith("t.csv:1: unknown column 'timestamp' in a job-profile file"));
  EXPECT_EQ(ErrorOf("id,submit_time,duration,gpus\n1,0,1,1\n"),
            "t.csv:1: missing required column 'pool' (a job-profile file needs id, "
            "submit_time, duration, gpus, pool)");
  EXPECT_EQ(ErrorOf("id,name,pool\n1,a,p\n"),
            "t.csv:1: missing required column 'submit_time', 'duration', 'gpus' (a job-profile "
            "file needs id, submit_time, duration, gpus, pool)");
  EXPECT_EQ(ErrorOf("id,submit_time,duration,gpus,pool,ID\n"),
            "t.csv:1: column 'id' appears twice (fields 1 and 6)");
  EXPECT_EQ(ErrorOf("id,submit_time,duration,gpus,pool,\n"),
            "t.csv:1: header field 6 is empty (every column needs a name)");
}

TEST(JobProfileReaderTest, BadValuesNameLineColumnAndValue) {
  const std::string h =
      "id,submit_time,duration,gpus,pool,urgency,gpu_milli,preemptible,estimate\n"
      "1,0,10,1,p,,,,\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"2,0,10,x,p,,,,", "column 'gpus': value 'x' is not an integer"},
      {"2,0,10,1.5,p,,,,", "column 'gpus': value '1.5' is not an integer"},
      {"2,0,10,-1,p,,,,", "column 'gpus': value '-1' must be >= 0"},
      {"2,0,10,0,p,,500,,",
       "column 'gpu_milli': value '500' is only allowed with gpus = 1 (this row asks for 0 GPUs)"},
      {"2,0,10,,p,,,,", "column 'gpus': value '' is empty"},
      {"2,0,-5m,1,p,,,,", "column 'duration': value '-5m' must be >= 1"},
      {"2,0,0,1,p,,,,", "column 'duration': value '0' must be >= 1"},
      {"2,0,0.4,1,p,,,,", "column 'duration': value '0.4' must be >= 1"},
      {"2,0,10x,1,p,,,,",
       "column 'duration': value '10x' is not a duration (use seconds or forms like 90s, 30m, "
       "12h, 2d, 1h30m)"},
      {"2,-1,10,1,p,,,,", "column 'submit_time': value '-1' must be >= 0"},
      {"two,0,10,1,p,,,,", "column 'id': value 'two' is not an integer"},
      {"2,0,10,1,p,urgent,,,",
       "column 'urgency': value 'urgent' is not valid: urgency must be one of critical, high, "
       "normal, low"},
      {"2,0,10,1,p,,1500,,", "column 'gpu_milli': value '1500' must be <= 1000"},
      {"2,0,10,1,p,,0,,", "column 'gpu_milli': value '0' must be >= 1"},
      {"2,0,10,2,p,,500,,",
       "column 'gpu_milli': value '500' is only allowed with gpus = 1 (this row asks for 2 GPUs)"},
      {"2,0,10,1,p,,,maybe,",
       "column 'preemptible': value 'maybe' is not a boolean (use true/false, yes/no or 1/0)"},
      {"2,0,10,1,p,,,,0", "column 'estimate': value '0' must be >= 1"},
      {"1,0,10,1,p,,,,", "column 'id': value '1' is a duplicate id 1 (first on line 2)"},
      {"01,0,10,1,p,,,,", "column 'id': value '01' is a duplicate id 1 (first on line 2)"},
      {"2,0,10,1,p,,,", "row has 8 fields but the header has 9"},
  };
  for (const auto& [row, message] : cases) {
    EXPECT_EQ(ErrorOf(h + "\n" + row), "t.csv:4: " + message) << row;
  }
}

TEST(JobProfileReaderTest, LongValuesAreCutInMessages) {
  const std::string value(100, '7');
  EXPECT_EQ(ErrorOf(std::string(kRequired) + "1,0,10," + value + ",p\n"),
            "t.csv:2: column 'gpus': value '" + std::string(60, '7') + "...' is out of range");
}

TEST(JobProfileReaderTest, SkipBadRowsKeepsTheGoodOnes) {
  ReadOptions options;
  options.skip_bad_rows = true;
  Result<Trace> r = Parse(std::string(kRequired) +
                              "1,0,10,1,p\n2,0,10,zero,p\n3,5,10,1\n1,6,10,1,p\n4,3,10,4,q\n",
                          options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->skipped_rows, 3);
  EXPECT_THAT(r->skipped,
              ElementsAre("t.csv:3: column 'gpus': value 'zero' is not an integer",
                          "t.csv:4: row has 4 fields but the header has 5",
                          "t.csv:5: column 'id': value '1' is a duplicate id 1 (first on line 2)"));
  ASSERT_EQ(r->jobs.size(), 2u);
  EXPECT_EQ(r->jobs[0].spec.id, 1);
  EXPECT_EQ(r->jobs[1].spec.id, 4);
  EXPECT_EQ(r->jobs[1].spec.pool, "q");
}

TEST(JobProfileReaderTest, ReadsFaultTolerantAndRefusesABadOne) {
  ReadOptions options;
  const std::string header = "id,submit_time,duration,gpus,pool,fault_tolerant\n";
  auto ok = ParseTrace(header + "1,0,60,1,a,true\n2,0,60,1,a,\n", "p.csv", options);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_TRUE(ok->jobs[0].spec.fault_tolerant);
  EXPECT_FALSE(ok->jobs[1].spec.fault_tolerant);
  auto bad = ParseTrace(header + "1,0,60,1,a,sometimes\n", "p.csv", options);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("fault_tolerant"));
  EXPECT_THAT(bad.status().message(), HasSubstr("sometimes"));
}

TEST(JobProfileReaderTest, KnowsItsColumns) {
  std::vector<std::string> names;
  for (const ColumnDef& c : JobProfileColumns()) {
    if (c.required) names.emplace_back(c.name);
  }
  EXPECT_THAT(names, ElementsAre("id", "submit_time", "duration", "gpus", "pool"));
  EXPECT_EQ(JobProfileColumns().size(), 33u);
}

// gpus MIN-MAX is an elastic job; its columns are refused on a fixed one, and every broken
// value names its column and value.
TEST(JobProfileReaderTest, AGpusRangeIsAnElasticJob) {
  const std::string header = "id,submit_time,duration,gpus,pool,gpus_step,scaling,resize_cost\n";
  auto ok = Parse(header + "1,0,60,2-8,a,2,amdahl:0.95,30\n2,0,60,4,a,,,\n");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  const JobSpec& e = ok->jobs[0].spec;
  EXPECT_EQ(e.gpus, 8);  // the width its duration is for
  EXPECT_EQ(e.elastic.min, 2);
  EXPECT_EQ(e.elastic.max, 8);
  EXPECT_EQ(e.elastic.step, 2);
  EXPECT_EQ(ScalingText(e.elastic.scaling), "amdahl:0.95");
  EXPECT_EQ(e.elastic.resize_cost, 30 * kSecond);
  EXPECT_FALSE(ok->jobs[1].spec.elastic.enabled());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"1,0,60,8-2,a,,,", "column 'gpus': value '8-2'"},
      {"1,0,60,2-x,a,,,", "column 'gpus': value '2-x'"},
      {"1,0,60,2-99999999,a,,,", "column 'gpus': value '2-99999999'"},
      {"1,0,60,2-8,a,0,,", "column 'gpus_step': value '0'"},
      {"1,0,60,2-8,a,9,,", "column 'gpus_step': value '9'"},
      {"1,0,60,2-8,a,,amdahl:7,", "column 'scaling': value 'amdahl:7'"},
      {"1,0,60,2-8,a,,,-5", "column 'resize_cost': value '-5'"},
      {"1,0,60,4,a,2,,", "column 'gpus_step': value '2' is only for an elastic job"},
      {"1,0,60,4,a,,linear,", "column 'scaling': value 'linear' is only for an elastic job"},
  };
  for (const auto& [row, words] : bad) {
    EXPECT_THAT(ErrorOf(header + row + "\n"), HasSubstr(words)) << row;
  }
}

}  // namespace
}  // namespace squeeze

namespace squeeze {
namespace {

TEST(JobProfileReaderTest, AFileWithErrorsIsRejectedWholeWithEveryErrorListed) {
  const std::string text =
      "id,submit_time,duration,gpus,pool,urgency\n"
      "1,0,1h,2,,normal\n"
      "2,0,soon,many,,normal\n"  // two bad cells in one row
      "3,0,1h,1,,\n"
      "4,-5,1h,1,,whenever\n"    // two more
      "5,0,1h,1\n";              // a short row
  const std::string message = ErrorOf(text);
  EXPECT_THAT(message, StartsWith("5 errors in t.csv; nothing was read:\n"));
  EXPECT_THAT(message, HasSubstr("t.csv:3: column 'duration': value 'soon'"));
  EXPECT_THAT(message, HasSubstr("t.csv:3: column 'gpus': value 'many'"));
  EXPECT_THAT(message, HasSubstr("t.csv:5: column 'submit_time': value '-5'"));
  EXPECT_THAT(message, HasSubstr("t.csv:5: column 'urgency': value 'whenever'"));
  EXPECT_THAT(message, HasSubstr("t.csv:6: row has 4 fields but the header has 6"));
  // The good rows alone read.
  EXPECT_TRUE(Parse("id,submit_time,duration,gpus,pool\n1,0,1h,2,\n3,0,1h,1,\n").ok());
}

TEST(JobProfileReaderTest, ManyErrorsAreCountedBeyondTheListedOnes) {
  std::string text = "id,submit_time,duration,gpus,pool\n";
  for (int i = 1; i <= kMaxListedErrors + 5; ++i) text += std::to_string(i) + ",0,1h,x,\n";
  const std::string message = ErrorOf(text);
  EXPECT_THAT(message, StartsWith(std::to_string(kMaxListedErrors + 5) + " errors in t.csv"));
  EXPECT_THAT(message, EndsWith("\n... and 5 more"));
}

TEST(JobProfileReaderTest, SkippingBadRowsStillWorksRowByRow) {
  ReadOptions skip;
  skip.skip_bad_rows = true;
  Result<Trace> r = Parse("id,submit_time,duration,gpus,pool\n1,0,1h,x,\n2,0,1h,1,\n", skip);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->jobs.size(), 1u);
  EXPECT_EQ(r->skipped_rows, 1);
}

TEST(JobProfileReaderTest, GpuSpeedsAreAJobsOwnTable) {
  const std::string header = "id,submit_time,duration,gpus,pool,gpu_speeds\n";
  auto ok = Parse(header + "1,0,60,1,a,V100:1|K80:0.24\n2,0,60,1,a,\n");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->jobs[0].spec.gpu_speeds.at("K80"), 0.24);
  EXPECT_TRUE(ok->jobs[1].spec.gpu_speeds.empty());
  for (const auto& [row, words] : std::vector<std::pair<std::string, std::string>>{
           {"1,0,60,1,a,V100", "column 'gpu_speeds': value 'V100'"},
           {"1,0,60,1,a,V100:0", "'V100:0' is not MODEL:SPEED"},
           {"1,0,60,1,a,K80:1|K80:2", "model 'K80' is given twice"}}) {
    EXPECT_THAT(ErrorOf(header + row + "\n"), HasSubstr(words)) << row;
  }
}

}  // namespace
}  // namespace squeeze
