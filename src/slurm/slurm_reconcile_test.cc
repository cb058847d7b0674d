#include "slurm/slurm_reconcile.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "slurm/recordings_for_test.h"

namespace squeeze {
namespace {

std::vector<SlurmJob> Jobs(const std::string& recording) {
  auto jobs = ParseSqueueJson(Recording(recording));
  EXPECT_TRUE(jobs.ok()) << jobs.status().message();
  return jobs.ok() ? *jobs : std::vector<SlurmJob>{};
}

std::vector<SlurmNode> Nodes(const std::string& recording) {
  auto nodes = ParseSinfoJson(Recording(recording));
  EXPECT_TRUE(nodes.ok()) << nodes.status().message();
  return nodes.ok() ? *nodes : std::vector<SlurmNode>{};
}

SlurmJob Job(int64_t id, const std::string& name, const std::string& state, int restarts = 0) {
  SlurmJob j;
  j.id = id;
  j.name = name;
  j.state = state;
  j.restart_count = restarts;
  return j;
}

TEST(SlurmReconcileTest, NodeWhoseSlurmdWasKilledIsInTrouble) {
  const std::vector<SlurmNode> nodes = Nodes("sinfo-east-node-killed.json");
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_FALSE(nodes[0].usable);
  EXPECT_EQ(NodeTrouble(nodes[0]), "down, NOT_RESPONDING: Not responding");
}

TEST(SlurmReconcileTest, DrainedNodeIsInTroubleAndSaysWhy) {
  const std::vector<SlurmNode> nodes = Nodes("sinfo-west-drained.json");
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(NodeTrouble(nodes[0]), "idle, DRAIN: maintenance");
}

TEST(SlurmReconcileTest, UsableNodesHaveNoTrouble) {
  for (const char* recording : {"sinfo-east.json", "sinfo-west.json"}) {
    for (const SlurmNode& n : Nodes(recording)) EXPECT_EQ(NodeTrouble(n), "") << recording;
  }
}

TEST(SlurmReconcileTest, JobRequeuedAfterItsNodeDiedIsRequeuedAndLostToTheNode) {
  const std::vector<SlurmJob> jobs = Jobs("squeue-east-requeued.json");
  const SlurmJob* found = nullptr;
  // Job 3 (squeeze-6.1) ran on east-n0 when its slurmd was killed: PENDING again, 1 restart.
  EXPECT_EQ(FateOf(3, jobs, &found), SlurmFate::kRequeued);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->name, "squeeze-6.1");
  EXPECT_EQ(LostReason(*found, "east-n0", Nodes("sinfo-east-node-killed.json")),
            "node east-n0 failed (down, NOT_RESPONDING: Not responding)");
  // Once the node is back, the words come from Slurm's job.
  EXPECT_EQ(LostReason(*found, "east-n0", Nodes("sinfo-west.json")),
            "Slurm requeued it (Resources) after it ran on east-n0");
  // Job 2 was cancelled after its requeue: ended.
  EXPECT_EQ(FateOf(2, jobs, &found), SlurmFate::kEnded);
  EXPECT_EQ(FateOf(99, jobs, &found), SlurmFate::kMissing);
  EXPECT_EQ(found, nullptr);
}

TEST(SlurmReconcileTest, FatesOfLiveAndEndedJobs) {
  const std::vector<SlurmJob> jobs = {Job(1, "a", "PENDING"), Job(2, "b", "RUNNING"),
                                      Job(3, "c", "COMPLETING"), Job(4, "d", "NODE_FAIL"),
                                      Job(5, "e", "REQUEUE_HOLD"), Job(6, "f", "RUNNING", 1)};
  const SlurmJob* found = nullptr;
  EXPECT_EQ(FateOf(1, jobs, &found), SlurmFate::kLive);
  EXPECT_EQ(FateOf(2, jobs, &found), SlurmFate::kLive);
  EXPECT_EQ(FateOf(3, jobs, &found), SlurmFate::kLive);
  EXPECT_EQ(FateOf(4, jobs, &found), SlurmFate::kEnded);
  EXPECT_EQ(FateOf(5, jobs, &found), SlurmFate::kRequeued);
  EXPECT_EQ(FateOf(6, jobs, &found), SlurmFate::kRequeued);  // Slurm restarted it by itself
}

TEST(SlurmReconcileTest, NodeFailureIsLostNotAFailure) {
  SlurmJob j = Job(4, "squeeze-4.1", "NODE_FAIL");
  j.nodes = "east-n0";
  j.exit_code = 0;
  const ExitStatus e = SlurmExit(j, Nodes("sinfo-east-node-killed.json"));
  EXPECT_TRUE(e.lost);
  EXPECT_FALSE(e.Succeeded());
  EXPECT_EQ(e.error, "Slurm lost it: node east-n0 failed (down, NOT_RESPONDING: Not responding)");
  EXPECT_EQ(SlurmExit(Job(5, "x", "NODE_FAIL"), {}).error, "Slurm lost it: NODE_FAIL");
}

TEST(SlurmReconcileTest, OwnExitsAndCancelsAreNotLost) {
  SlurmJob done = Job(1, "squeeze-1.1", "COMPLETED");
  done.exit_code = 0;
  EXPECT_TRUE(SlurmExit(done, {}).Succeeded());
  EXPECT_FALSE(SlurmExit(done, {}).lost);
  SlurmJob failed = Job(2, "squeeze-2.1", "FAILED");
  failed.exit_code = 3;
  EXPECT_EQ(SlurmExit(failed, {}).code, 3);
  EXPECT_FALSE(SlurmExit(failed, {}).lost);
  SlurmJob cancelled = Job(3, "squeeze-3.1", "CANCELLED");
  cancelled.exit_code = 0;
  const ExitStatus c = SlurmExit(cancelled, {});
  EXPECT_FALSE(c.lost);
  EXPECT_FALSE(c.Succeeded());
  EXPECT_EQ(c.error, "Slurm ended the job CANCELLED before it started");
}

TEST(SlurmReconcileTest, UnknownSqueezeJobsAreLiveOnesNobodyFollows) {
  const std::vector<SlurmJob> jobs = {
      Job(1, "squeeze-7.1", "RUNNING"),      // followed
      Job(2, "squeeze-999999.1", "RUNNING"), // behind squeeze's back
      Job(3, "squeeze-7.2", "PENDING"),      // a copy of another attempt
      Job(4, "squeeze-8.1", "COMPLETED"),    // ended: nothing runs
      Job(5, "train", "RUNNING"),            // not squeeze's name
      Job(6, "squeeze-x.1", "RUNNING")};     // not squeeze's name either
  const std::vector<SlurmJob> unknown = UnknownSqueezeJobs(jobs, {1});
  ASSERT_EQ(unknown.size(), 2u);
  EXPECT_EQ(unknown[0].id, 2);
  EXPECT_EQ(unknown[1].id, 3);
  SlurmJob described = unknown[0];
  described.nodes = "east-n0";
  EXPECT_EQ(DescribeSlurmJob(described), "Slurm job 2 'squeeze-999999.1' RUNNING on east-n0");
}

TEST(SlurmReconcileTest, BrokenSinfoIsAnErrorNotANodeList) {
  EXPECT_FALSE(ParseSinfoJson("").ok());
  EXPECT_FALSE(ParseSinfoJson("{\"nodes\": [{\"name\": \"n0\"}]}").ok());  // no state
  EXPECT_FALSE(ParseSinfoJson("{\"nodes\": [{\"name\": \"n0\", \"state\": 3}]}").ok());
  EXPECT_FALSE(
      ParseSinfoJson("{\"errors\": [{\"error\": \"Unable to contact slurm controller\"}], "
                     "\"nodes\": []}")
          .ok());
}

TEST(SlurmReconcileTest, FormatUtc) {
  EXPECT_EQ(FormatUtc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatUtc(kDay + 90 * kMinute + 7 * kSecond), "1970-01-02T01:30:07Z");
}

}  // namespace
}  // namespace squeeze
