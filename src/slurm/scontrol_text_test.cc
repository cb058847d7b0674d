#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "slurm/recordings_for_test.h"
#include "slurm/slurm_output.h"

namespace squeeze {
namespace {

SlurmJob Job(const std::string& text) {
  UseUtc();
  Result<SlurmJob> r = ParseScontrolJob(text);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : SlurmJob{};
}

// The recording with `from` replaced by `to` (which must be there).
std::string Edited(const std::string& name, const std::string& from, const std::string& to) {
  std::string text = Recording(name);
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(ScontrolTextTest, FailedJob) {
  const SlurmJob j = Job(Recording("scontrol-job-failed.txt"));
  EXPECT_EQ(j.id, 4);
  EXPECT_EQ(j.name, "fails");
  EXPECT_EQ(j.state, "FAILED");
  EXPECT_EQ(j.reason, "NonZeroExitCode");
  EXPECT_EQ(j.partition, "low");
  EXPECT_EQ(j.nodes, "east-n0");
  EXPECT_EQ(j.exit_code, std::optional<int>(3));
  EXPECT_EQ(j.restart_count, 0);
  EXPECT_TRUE(j.requeue);
  // The same instants squeue gave in epoch seconds (the recording's zone was UTC).
  EXPECT_EQ(j.submit_time, 1796031846);
  EXPECT_EQ(j.start_time, std::optional<int64_t>(1796031847));
  EXPECT_EQ(j.end_time, std::optional<int64_t>(1796031847));
  EXPECT_EQ(j.comment, "");
  EXPECT_EQ(j.workdir, "/tmp/squeeze-slurm/east/jobs");
  EXPECT_EQ(j.gpu_indices, std::vector<int>{});
}

TEST(ScontrolTextTest, RunningJobHasNoExitCodeNorEnd) {
  const SlurmJob j = Job(Recording("scontrol-job-running.txt"));
  EXPECT_EQ(j.id, 1);
  EXPECT_EQ(j.name, "wrap");
  EXPECT_EQ(j.state, "RUNNING");
  EXPECT_EQ(j.reason, "None");
  EXPECT_EQ(j.nodes, "east-n0");
  EXPECT_EQ(j.exit_code, std::nullopt);
  EXPECT_EQ(j.start_time, std::optional<int64_t>(1796031841));
  EXPECT_EQ(j.end_time, std::nullopt);  // EndTime=2027-11-30T09:44:01 is the time limit
  EXPECT_EQ(j.workdir, "/tmp/squeeze-slurm/east/jobs");
}

TEST(ScontrolTextTest, RequeuedJobWaitsWithARestart) {
  const SlurmJob j = Job(Recording("scontrol-job-requeued.txt"));
  EXPECT_EQ(j.id, 1);
  EXPECT_EQ(j.name, "victim");
  EXPECT_EQ(j.state, "PENDING");
  EXPECT_EQ(j.reason,
            "Nodes_required_for_job_are_DOWN,_DRAINED_or_reserved_for_jobs_in_higher_priority_"
            "partitions");
  EXPECT_EQ(j.restart_count, 1);
  EXPECT_EQ(j.nodes, "");
  EXPECT_EQ(j.submit_time, 1796031886);
  EXPECT_EQ(j.start_time, std::nullopt);  // StartTime=Unknown
  EXPECT_EQ(j.workdir, "/tmp/squeeze-slurm/west/jobs");
}

TEST(ScontrolTextTest, SignalExitSpacesInValuesAndDetailedGres) {
  EXPECT_EQ(Job(Edited("scontrol-job-failed.txt", "ExitCode=3:0", "ExitCode=0:9")).exit_code,
            std::optional<int>(137));
  const SlurmJob j = Job(Recording("scontrol-job-running.txt") +
                         "   Nodes=east-n0 CPU_IDs=0 Mem=0 GRES=gpu:2(IDX:0-1)\n"
                         "   Comment=resume from epoch=3 please\n");
  EXPECT_EQ(j.gpu_indices, (std::vector<int>{0, 1}));
  EXPECT_EQ(j.comment, "resume from epoch=3 please");
  EXPECT_EQ(Job(Edited("scontrol-job-failed.txt", "JobState=FAILED", "JobState=CANCELLED by 0"))
                .state,
            "CANCELLED");
}

TEST(ScontrolTextTest, BrokenRecordsAreErrorsNamingTheKeyAndTheValue) {
  ExpectErrorWith(ParseScontrolJob("slurm_load_jobs error: Invalid job id specified\n").status(),
                  {"scontrol show job: JobId is missing in 'slurm_load_jobs error: Invalid job "
                   "id specified'"});
  ExpectErrorWith(ParseScontrolJob("").status(), {"JobId is missing"});
  ExpectErrorWith(
      ParseScontrolJob(Edited("scontrol-job-failed.txt", "ExitCode=3:0", "ExitCode=3:x")).status(),
      {"scontrol show job 4: ExitCode: '3:x' is not EXIT:SIGNAL"});
  ExpectErrorWith(
      ParseScontrolJob(Edited("scontrol-job-failed.txt", "ExitCode=3:0", "ExitCode=3")).status(),
      {"ExitCode: '3' is not EXIT:SIGNAL"});
  ExpectErrorWith(
      ParseScontrolJob(Edited("scontrol-job-failed.txt", "JobId=4", "JobId=four")).status(),
      {"JobId: 'four' is not a job id"});
  ExpectErrorWith(ParseScontrolJob(Edited("scontrol-job-failed.txt", "JobState=FAILED", ""))
                      .status(),
                  {"scontrol show job 4: JobState is missing"});
  ExpectErrorWith(ParseScontrolJob(Edited("scontrol-job-failed.txt", "StartTime=2026-11-30",
                                          "StartTime=2026-13-30"))
                      .status(),
                  {"StartTime: '2026-13-30T09:44:07' is not a time"});
  ExpectErrorWith(
      ParseScontrolJob(Edited("scontrol-job-failed.txt", "Restarts=0", "Restarts=x")).status(),
      {"Restarts: 'x' is not a number"});
  ExpectErrorWith(
      ParseScontrolJob(Recording("scontrol-job-failed.txt") + Recording("scontrol-job-running.txt"))
          .status(),
      {"2 JobId= records"});
  ExpectErrorWith(ParseScontrolJob(Recording("scontrol-job-running.txt") +
                                   " GRES=gpu:2(IDX:3-1)\n")
                      .status(),
                  {"GRES: 'gpu:2(IDX:3-1)': GPU index range '3-1' is reversed"});
}

}  // namespace
}  // namespace squeeze
