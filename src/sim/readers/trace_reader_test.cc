#include "sim/readers/trace_reader.h"

#include <fstream>
#include <string>
#include <unordered_set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kPhillyHeader[] = "timestamp,duration,num_gpus,gpu_time,cluster\n";
constexpr char kOctNovHeader[] = "job_id,vc,submit_time_s,duration_s,num_gpus\n";

Result<Trace> Parse(const std::string& text, ReadOptions options = {}) {
  return ParseTrace(text, "t.csv", options);
}

std::string ErrorOf(const std::string& text, ReadOptions options = {}) {
  Result<Trace> r = Parse(text, options);
  return r.ok() ? "(parsed without error)" : r.status().message();
}

// `submit_s` and `duration_s` in seconds, as the trace gives them.
void ExpectJob(const TraceJob& job, JobId id, const std::string& name, const std::string& pool,
               int64_t submit_s, int64_t duration_s, int gpus) {
  SCOPED_TRACE("job " + std::to_string(id));
  EXPECT_EQ(job.spec.id, id);
  EXPECT_EQ(job.spec.name, name);
  EXPECT_EQ(job.spec.pool, pool);
  EXPECT_EQ(job.spec.submit_time, Seconds(submit_s));
  EXPECT_EQ(job.duration, Seconds(duration_s));
  EXPECT_EQ(job.spec.gpus, gpus);
  EXPECT_EQ(job.spec.gpu_milli, kMilliPerGpu);
  EXPECT_EQ(job.spec.urgency, Urgency::kNormal);
}

void ExpectSorted(const Trace& trace) {
  for (size_t i = 1; i < trace.jobs.size(); ++i) {
    ASSERT_LE(trace.jobs[i - 1].spec.submit_time, trace.jobs[i].spec.submit_time) << i;
  }
}

TEST(PhillyReaderTest, ParsesAndSortsFromTheEarliestTimestamp) {
  Result<Trace> r = Parse(std::string(kPhillyHeader) +
                          "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
                          "2017-10-09 06:13:03,2951.4,2,5902.8,6214e9\n"
                          "2017-10-09 07:01:55,0.0,8,0.0,11cb48\n"
                          "2016-12-31 23:59:59,10.5,1,10.5,vc");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, "philly");
  EXPECT_EQ(r->source, "t.csv");
  ASSERT_EQ(r->jobs.size(), 4u);
  ExpectJob(r->jobs[0], 4, "philly-4", "vc", 0, 11, 1);
  ExpectJob(r->jobs[1], 2, "philly-2", "6214e9", 24300784, 2951, 2);
  ExpectJob(r->jobs[2], 1, "philly-1", "11cb48", 24303716, 66, 1);
  ExpectJob(r->jobs[3], 3, "philly-3", "11cb48", 24303716, 1, 8);  // 0 s rounds up to 1
  EXPECT_TRUE(r->jobs[0].spec.preemptible);
  EXPECT_TRUE(r->jobs[0].spec.checkpointable);
  EXPECT_EQ(r->skipped_rows, 0);
}

TEST(PhillyReaderTest, ColumnsInAnyOrderAndInterruptibilityFromOptions) {
  ReadOptions options;
  options.default_checkpointable = false;
  options.default_preemptible = false;
  Result<Trace> r = Parse(
      "Cluster , GPU_TIME,duration,num_gpus,timestamp\nvc1,1,7.0,4,2017-01-01 00:00:00\n",
      options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->jobs.size(), 1u);
  ExpectJob(r->jobs[0], 1, "philly-1", "vc1", 0, 7, 4);
  EXPECT_FALSE(r->jobs[0].spec.preemptible);
  EXPECT_FALSE(r->jobs[0].spec.checkpointable);
}

TEST(PhillyReaderTest, UrgentShareMarksTheSameJobsHighEveryTime) {
  std::string text = "timestamp,duration,num_gpus,gpu_time,cluster\n";
  for (int i = 0; i < 1000; ++i) text += "2017-01-01 00:00:00,60,1,60,vc1\n";
  ReadOptions options;
  EXPECT_EQ(Parse(text, options)->jobs[0].spec.urgency, Urgency::kNormal);
  options.urgent_share = 0.2;
  Result<Trace> a = Parse(text, options);
  Result<Trace> b = Parse(text, options);
  ASSERT_TRUE(a.ok() && b.ok());
  int high = 0;
  for (size_t i = 0; i < a->jobs.size(); ++i) {
    const Urgency u = a->jobs[i].spec.urgency;
    EXPECT_TRUE(u == Urgency::kHigh || u == Urgency::kLow);
    EXPECT_EQ(u, b->jobs[i].spec.urgency);
    high += u == Urgency::kHigh;
  }
  EXPECT_NEAR(high, 200, 40);  // a hash, not an exact count
  // A job-profile file's urgency is its own.
  Result<Trace> profile =
      Parse("id,submit_time,duration,gpus,pool,urgency\n1,0,60,1,,normal\n", options);
  ASSERT_TRUE(profile.ok());
  EXPECT_EQ(profile->jobs[0].spec.urgency, Urgency::kNormal);
}

TEST(PhillyReaderTest, BadCellsNameLineColumnAndValue) {
  const std::string ok = "2017-10-09 07:01:55,66.0,1,66.0,vc\n";
  const std::string h = std::string(kPhillyHeader) + ok;
  EXPECT_EQ(ErrorOf(h + "2017/10/09 07:01:55,66.0,1,66.0,vc\n"),
            "t.csv:3: column 'timestamp': value '2017/10/09 07:01:55' is not a timestamp "
            "(expected YYYY-MM-DD HH:MM:SS, UTC)");
  EXPECT_EQ(ErrorOf(h + "2017-02-29 07:01:55,66.0,1,66.0,vc\n"),
            "t.csv:3: column 'timestamp': value '2017-02-29 07:01:55' is not a valid date and "
            "time (expected YYYY-MM-DD HH:MM:SS, UTC)");
  EXPECT_EQ(ErrorOf(h + "2017-10-09 07:01:55,66.0,two,66.0,vc\n"),
            "t.csv:3: column 'num_gpus': value 'two' is not an integer");
  EXPECT_EQ(ErrorOf(h + "2017-10-09 07:01:55,66.0,0,66.0,vc\n"),
            "t.csv:3: column 'num_gpus': value '0' must be >= 1");
  EXPECT_EQ(ErrorOf(h + "2017-10-09 07:01:55,-5.0,1,66.0,vc\n"),
            "t.csv:3: column 'duration': value '-5.0' must be >= 0");
  EXPECT_EQ(ErrorOf(h + "\n2017-10-09 07:01:55,abc,1,66.0,vc\n"),
            "t.csv:4: column 'duration': value 'abc' is not a number");
  EXPECT_EQ(ErrorOf(h + "2017-10-09 07:01:55,nan,1,66.0,vc\n"),
            "t.csv:3: column 'duration': value 'nan' is not a number");
}

TEST(PhillyReaderTest, HeaderMustHaveEveryColumn) {
  EXPECT_EQ(ErrorOf("timestamp,duration,num_gpus,cluster\n2017-10-09 07:01:55,6,1,vc\n"),
            "t.csv:1: missing required column 'gpu_time' (a philly file needs timestamp, "
            "duration, num_gpus, gpu_time, cluster)");
  EXPECT_THAT(ErrorOf("timestamp,duration,num_gpus,gpu_time,cluster,user\n"),
              StartsWith("t.csv:1: unknown column 'user' in a philly file"));
}

TEST(PhillyOctNovReaderTest, ParsesAndSortsStably) {
  Result<Trace> r = Parse(std::string(kOctNovHeader) +
                          "31395,6214e9,0,30,1\n"
                          "31394,11cb48,70,61,1\n"
                          "7,vcx,5,100,8\n"
                          "8,vcx,0,2,16\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, "philly-oct-nov");
  ASSERT_EQ(r->jobs.size(), 4u);
  ExpectJob(r->jobs[0], 31395, "31395", "6214e9", 0, 30, 1);
  ExpectJob(r->jobs[1], 8, "8", "vcx", 0, 2, 16);
  ExpectJob(r->jobs[2], 7, "7", "vcx", 5, 100, 8);
  ExpectJob(r->jobs[3], 31394, "31394", "11cb48", 70, 61, 1);
}

TEST(PhillyOctNovReaderTest, SortKeepsFileOrderAmongEqualTimes) {
  std::string text = kOctNovHeader;
  for (int i = 1; i <= 200; ++i) {  // ids rise in file order; times repeat out of order
    text += std::to_string(i) + ",vc," + std::to_string((7 * i) % 5) + ",10,1\n";
  }
  Result<Trace> r = Parse(text);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->jobs.size(), 200u);
  for (size_t i = 1; i < r->jobs.size(); ++i) {
    const JobSpec& a = r->jobs[i - 1].spec;
    const JobSpec& b = r->jobs[i].spec;
    ASSERT_TRUE(a.submit_time < b.submit_time || (a.submit_time == b.submit_time && a.id < b.id))
        << "position " << i << ": job " << a.id << " at " << a.submit_time << ", then job "
        << b.id << " at " << b.submit_time;
  }
}

TEST(PhillyOctNovReaderTest, BadRowsNameLineColumnAndValue) {
  const std::string h = std::string(kOctNovHeader) + "7,vc,0,30,1\n";
  EXPECT_EQ(ErrorOf(h + "8,vc,0,0,1\n"),
            "t.csv:3: column 'duration_s': value '0' must be >= 1");
  EXPECT_EQ(ErrorOf(h + "8,vc,0,-30,1\n"),
            "t.csv:3: column 'duration_s': value '-30' must be >= 1");
  EXPECT_EQ(ErrorOf(h + "8,vc,0,30.5,1\n"),
            "t.csv:3: column 'duration_s': value '30.5' is not an integer");
  EXPECT_EQ(ErrorOf(h + "8,vc,-1,30,1\n"),
            "t.csv:3: column 'submit_time_s': value '-1' must be >= 0");
  EXPECT_EQ(ErrorOf(h + "8,vc,0,30,x\n"),
            "t.csv:3: column 'num_gpus': value 'x' is not an integer");
  EXPECT_EQ(ErrorOf(h + "j8,vc,0,30,1\n"),
            "t.csv:3: column 'job_id': value 'j8' is not an integer");
  EXPECT_EQ(ErrorOf(h + "8,vc,0,30,1\n\n7,vc,9,30,1\n"),
            "t.csv:5: column 'job_id': value '7' is a duplicate id 7 (first on line 2)");
  EXPECT_EQ(ErrorOf(h + "8,vc,0,30\n"), "t.csv:3: row has 4 fields but the header has 5");
  EXPECT_EQ(ErrorOf(h + "8,vc,0,30,1,\n"), "t.csv:3: row has 6 fields but the header has 5");
  EXPECT_EQ(ErrorOf(h + "8,\"vc\n"),
            "t.csv:3: unterminated quoted field (a '\"' opened here is never closed)");
}

TEST(TraceReaderTest, SkipBadRowsCountsAndKeepsTheFirstTen) {
  std::string text = kOctNovHeader;
  for (int i = 1; i <= 12; ++i) text += std::to_string(i) + ",vc,0,0,1\n";  // lines 2..13
  text += "100,vc,5,10,1\n100,vc,6,10,1\n101,vc,1,10\n102,vc,2,10,2\n";      // lines 14..17
  ReadOptions options;
  options.skip_bad_rows = true;
  Result<Trace> r = Parse(text, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->skipped_rows, 14);
  ASSERT_EQ(r->skipped.size(), 10u);
  EXPECT_EQ(r->skipped[0], "t.csv:2: column 'duration_s': value '0' must be >= 1");
  EXPECT_EQ(r->skipped[9], "t.csv:11: column 'duration_s': value '0' must be >= 1");
  ASSERT_EQ(r->jobs.size(), 2u);
  EXPECT_EQ(r->jobs[0].spec.id, 102);
  EXPECT_EQ(r->jobs[1].spec.id, 100);
  EXPECT_EQ(r->jobs[1].spec.submit_time, Seconds(5));  // the first of the two id-100 rows
}

TEST(TraceReaderTest, SkipBadRowsStillFailsOnHeaderSyntaxAndNoJobs) {
  ReadOptions options;
  options.skip_bad_rows = true;
  EXPECT_EQ(ErrorOf("job_id,vc,submit_time_s,duration_s\n1,vc,0,1\n", options),
            "t.csv:1: missing required column 'num_gpus' (a philly-oct-nov file needs job_id, "
            "vc, submit_time_s, duration_s, num_gpus)");
  EXPECT_THAT(ErrorOf(std::string(kOctNovHeader) + "1,vc,0,1,1\n2,\"vc,0,1,1\n", options),
              StartsWith("t.csv:3: unterminated quoted field"));
  EXPECT_EQ(ErrorOf(std::string(kOctNovHeader) + "1,vc,0,0,1\n2,vc,0,1,z\n", options),
            "t.csv: no jobs: all 2 rows were skipped as bad; the first: t.csv:2: column "
            "'duration_s': value '0' must be >= 1");
}

TEST(TraceReaderTest, EmptyAndHeaderOnlyFilesHaveNoJobs) {
  EXPECT_EQ(ErrorOf(""), "t.csv: no jobs: the file is empty");
  EXPECT_EQ(ErrorOf("\n\r\n  \n"), "t.csv: no jobs: the file is empty");
  EXPECT_EQ(ErrorOf(kOctNovHeader), "t.csv: no jobs: the file has a header but no rows");
  EXPECT_EQ(ErrorOf(std::string(kPhillyHeader) + "\n\n"),
            "t.csv: no jobs: the file has a header but no rows");
  EXPECT_EQ(ErrorOf("id,submit_time,duration,gpus,pool"),
            "t.csv: no jobs: the file has a header but no rows");
}

TEST(TraceReaderTest, ReadsAFileWithoutFinalNewline) {
  const std::string path = ::testing::TempDir() + "/squeeze_trace_reader_test.csv";
  {
    std::ofstream out(path, std::ios::binary);
    out << kOctNovHeader << "5,vc,3,10,2\n4,vc,1,20,1";
  }
  Result<Trace> r = ReadTrace(path, ReadOptions{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->source, path);
  ASSERT_EQ(r->jobs.size(), 2u);
  ExpectJob(r->jobs[0], 4, "4", "vc", 1, 20, 1);
  ExpectJob(r->jobs[1], 5, "5", "vc", 3, 10, 2);
  std::remove(path.c_str());
}

TEST(TraceReaderTest, UnreadableFilesNameThePathAndTheReason) {
  Result<Trace> missing = ReadTrace("/nonexistent/dir/jobs.csv", ReadOptions{});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "cannot open '/nonexistent/dir/jobs.csv': No such file or directory");
  Result<Trace> dir = ReadTrace(::testing::TempDir(), ReadOptions{});
  ASSERT_FALSE(dir.ok());
  EXPECT_THAT(dir.status().message(), HasSubstr(::testing::TempDir()));
  EXPECT_THAT(dir.status().message(), HasSubstr("Is a directory"));
}

TEST(TraceReaderTest, RealPhillyOctNovFile) {
  Result<Trace> r =
      ReadTrace(SQUEEZE_SHARED_DIR "/traces/philly/philly_oct_nov.csv", ReadOptions{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, "philly-oct-nov");
  ASSERT_EQ(r->jobs.size(), 68503u);
  ExpectSorted(*r);
  ExpectJob(r->jobs.front(), 31395, "31395", "6214e9", 0, 30, 1);
  ExpectJob(r->jobs.back(), 21541, "21541", "11cb48", 5269886, 69, 1);
  std::unordered_set<JobId> ids;
  for (const TraceJob& job : r->jobs) ids.insert(job.spec.id);
  EXPECT_EQ(ids.size(), 68503u);
}

TEST(TraceReaderTest, RealPhillyFile) {
  Result<Trace> r = ReadTrace(SQUEEZE_SHARED_DIR "/traces/philly/philly.csv", ReadOptions{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, "philly");
  ASSERT_EQ(r->jobs.size(), 82247u);
  ExpectSorted(*r);
  // 2017-09-04 10:30:41 on line 31568 is the earliest; 2017-12-22 08:02:11 the latest.
  ExpectJob(r->jobs.front(), 31567, "philly-31567", "7f04ca", 0, 2240194, 8);
  ExpectJob(r->jobs.back(), 62254, "philly-62254", "11cb48", 9408690, 64, 1);
  for (const TraceJob& job : r->jobs) {
    ASSERT_GE(job.duration, kSecond);
    ASSERT_GE(job.spec.gpus, 1);
  }
  // Ids are row numbers, so file order among equal times shows as rising ids.
  int ties = 0;
  for (size_t i = 1; i < r->jobs.size(); ++i) {
    if (r->jobs[i - 1].spec.submit_time != r->jobs[i].spec.submit_time) continue;
    ++ties;
    ASSERT_LT(r->jobs[i - 1].spec.id, r->jobs[i].spec.id) << i;
  }
  EXPECT_GT(ties, 100);
}

}  // namespace
}  // namespace squeeze
