#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "slurm/recordings_for_test.h"
#include "slurm/slurm_output.h"

namespace squeeze {
namespace {

TEST(JobcompTextTest, FinishedJobsOfEast) {
  UseUtc();
  Result<std::vector<SlurmJob>> r = ParseJobcomp(Recording("jobcomp-east.txt"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  const SlurmJob& failed = (*r)[0];
  EXPECT_EQ(failed.id, 4);
  EXPECT_EQ(failed.name, "fails");
  EXPECT_EQ(failed.state, "FAILED");
  EXPECT_EQ(failed.reason, "");
  EXPECT_EQ(failed.partition, "low");
  EXPECT_EQ(failed.nodes, "east-n0");
  EXPECT_EQ(failed.exit_code, std::optional<int>(3));
  EXPECT_EQ(failed.submit_time, 1796031846);
  EXPECT_EQ(failed.start_time, std::optional<int64_t>(1796031847));
  EXPECT_EQ(failed.end_time, std::optional<int64_t>(1796031847));
  EXPECT_EQ(failed.workdir, "/tmp/squeeze-slurm/east/jobs");
  const SlurmJob& cancelled = (*r)[1];
  EXPECT_EQ(cancelled.id, 1);
  EXPECT_EQ(cancelled.name, "wrap");
  EXPECT_EQ(cancelled.state, "CANCELLED");
  EXPECT_EQ(cancelled.exit_code, std::optional<int>(0));  // jobcomp says 0:0 for a cancel
  EXPECT_EQ(cancelled.start_time, std::optional<int64_t>(1796031841));
  EXPECT_EQ(cancelled.end_time, std::optional<int64_t>(1796031849));
}

TEST(JobcompTextTest, BlankLinesAreSkippedAndAnEmptyFileHasNoJobs) {
  Result<std::vector<SlurmJob>> r = ParseJobcomp("\n  \nJobId=9 Name=x JobState=COMPLETED "
                                                 "ExitCode=0:0\n\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].id, 9);
  EXPECT_EQ((*r)[0].exit_code, std::optional<int>(0));
  Result<std::vector<SlurmJob>> empty = ParseJobcomp("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(JobcompTextTest, BrokenLinesAreErrorsNamingTheLineKeyAndValue) {
  const std::string good = Recording("jobcomp-east.txt");
  ExpectErrorWith(ParseJobcomp(good + "JobId=x Name=y JobState=FAILED ExitCode=1:0\n").status(),
                  {"jobcomp: line 3: JobId: 'x' is not a job id"});
  ExpectErrorWith(ParseJobcomp(good + "JobId=7 Name=y JobState=FAILED ExitCode=3:x\n").status(),
                  {"jobcomp: line 3: ExitCode: '3:x' is not EXIT:SIGNAL"});
  ExpectErrorWith(ParseJobcomp("UserId=root(0) JobState=FAILED\n").status(),
                  {"jobcomp: line 1: JobId is missing"});
  ExpectErrorWith(ParseJobcomp("JobId=7 Name=y ExitCode=0:0\n").status(),
                  {"jobcomp: line 1: JobState is missing"});
  ExpectErrorWith(
      ParseJobcomp("JobId=7 JobState=FAILED EndTime=2026-11-30 ExitCode=0:0\n").status(),
      {"EndTime: '2026-11-30' is not a time like 2026-11-30T09:44:07"});
}

}  // namespace
}  // namespace squeeze
