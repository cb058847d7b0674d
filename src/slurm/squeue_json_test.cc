#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "slurm/recordings_for_test.h"
#include "slurm/slurm_output.h"

namespace squeeze {
namespace {

using nlohmann::json;

std::vector<SlurmJob> Jobs(const std::string& text) {
  Result<std::vector<SlurmJob>> r = ParseSqueueJson(text);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : std::vector<SlurmJob>{};
}

// squeue-east.json with one change to its job at `index`.
std::string EastWith(size_t index, const char* key, const json& value) {
  json doc = json::parse(Recording("squeue-east.json"));
  doc["jobs"][index][key] = value;
  return doc.dump();
}

TEST(SqueueJsonTest, TwoRunningGpuJobsAndOnePending) {
  const std::vector<SlurmJob> jobs = Jobs(Recording("squeue-east.json"));
  ASSERT_EQ(jobs.size(), 3u);
  const SlurmJob& first = jobs[0];
  EXPECT_EQ(first.id, 1);
  EXPECT_EQ(first.name, "wrap");
  EXPECT_EQ(first.state, "RUNNING");
  EXPECT_EQ(first.reason, "None");
  EXPECT_EQ(first.partition, "low");
  EXPECT_EQ(first.nodes, "east-n0");
  EXPECT_EQ(first.gpu_indices, (std::vector<int>{0, 1}));
  EXPECT_EQ(first.restart_count, 0);
  EXPECT_EQ(first.exit_code, std::nullopt);  // still running
  EXPECT_EQ(first.submit_time, 1796031840);
  EXPECT_EQ(first.start_time, std::optional<int64_t>(1796031841));
  EXPECT_EQ(first.end_time, std::nullopt);  // 1827567841 there is the time limit
  EXPECT_TRUE(first.requeue);
  EXPECT_EQ(first.comment, "");
  EXPECT_EQ(first.workdir, "/tmp/squeeze-slurm/east/jobs");

  EXPECT_EQ(jobs[1].id, 2);
  EXPECT_EQ(jobs[1].name, "second");
  EXPECT_EQ(jobs[1].gpu_indices, (std::vector<int>{2, 3}));

  const SlurmJob& waits = jobs[2];
  EXPECT_EQ(waits.id, 3);
  EXPECT_EQ(waits.state, "PENDING");
  EXPECT_EQ(waits.reason, "Resources");
  EXPECT_EQ(waits.nodes, "");
  EXPECT_EQ(waits.gpu_indices, std::vector<int>{});
  EXPECT_EQ(waits.start_time, std::nullopt);  // 1827567841 there is an estimate
  EXPECT_EQ(waits.end_time, std::nullopt);
}

TEST(SqueueJsonTest, EndedJobsCarryTheShellsExitCodeAndTheirEnd) {
  const std::vector<SlurmJob> jobs = Jobs(Recording("squeue-east-all.json"));
  ASSERT_EQ(jobs.size(), 4u);
  const SlurmJob& cancelled = jobs[0];
  EXPECT_EQ(cancelled.state, "CANCELLED");
  EXPECT_EQ(cancelled.exit_code, std::optional<int>(128 + 15));  // wait status 15: SIGTERM
  EXPECT_EQ(cancelled.start_time, std::optional<int64_t>(1796031841));
  EXPECT_EQ(cancelled.end_time, std::optional<int64_t>(1796031849));
  EXPECT_EQ(cancelled.gpu_indices, std::vector<int>{});
  const SlurmJob& failed = jobs[3];
  EXPECT_EQ(failed.id, 4);
  EXPECT_EQ(failed.name, "fails");
  EXPECT_EQ(failed.state, "FAILED");
  EXPECT_EQ(failed.reason, "NonZeroExitCode");
  EXPECT_EQ(failed.exit_code, std::optional<int>(3));  // wait status 768
  EXPECT_EQ(failed.submit_time, 1796031846);
  EXPECT_EQ(failed.end_time, std::optional<int64_t>(1796031847));
  EXPECT_EQ(jobs[1].exit_code, std::nullopt);
}

TEST(SqueueJsonTest, JobRequeuedAfterItsNodeFailedWaitsAgain) {
  const std::vector<SlurmJob> jobs = Jobs(Recording("squeue-west-nodedown.json"));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].id, 1);
  EXPECT_EQ(jobs[0].name, "victim");
  EXPECT_EQ(jobs[0].state, "PENDING");
  EXPECT_EQ(jobs[0].reason, "Resources");
  EXPECT_EQ(jobs[0].restart_count, 1);
  EXPECT_EQ(jobs[0].submit_time, 1796031886);
  EXPECT_EQ(jobs[0].start_time, std::nullopt);
  EXPECT_EQ(jobs[0].workdir, "/tmp/squeeze-slurm/west/jobs");
}

TEST(SqueueJsonTest, SeveralNodesGpusFollowEachOther) {
  const std::vector<SlurmJob> jobs =
      Jobs(EastWith(0, "gres_detail", json::array({"gpu:a100:2(IDX:0,3)", "gpu:a100:1(IDX:1)"})));
  EXPECT_EQ(jobs.at(0).gpu_indices, (std::vector<int>{0, 3, 1}));
}

TEST(SqueueJsonTest, AMultiNodeJobsGpusArePerNodeInItsNodeListsOrder) {
  using NodeGpus = std::vector<std::pair<std::string, std::vector<int>>>;
  const std::vector<SlurmJob> jobs = Jobs(Recording("squeue-east-multinode.json"));
  const SlurmJob* spread = nullptr;
  const SlurmJob* other = nullptr;
  const SlurmJob* big = nullptr;
  for (const SlurmJob& j : jobs) {
    if (j.name == "squeeze-7.1") spread = &j;
    if (j.name == "other") other = &j;
    if (j.name == "big") big = &j;
  }
  ASSERT_TRUE(spread && other && big);
  EXPECT_EQ(spread->state, "RUNNING");
  EXPECT_EQ(spread->nodes, "east-n[1,3]");
  EXPECT_EQ(spread->node_gpus, (NodeGpus{{"east-n1", {0, 1}}, {"east-n3", {0, 1}}}));
  EXPECT_EQ(other->node_gpus, (NodeGpus{{"east-n0", {0, 1, 2}}}));
  EXPECT_EQ(big->state, "PENDING");
  EXPECT_EQ(big->reason, "Resources");
  EXPECT_TRUE(big->node_gpus.empty());
}

TEST(SqueueJsonTest, BrokenDocumentsAreErrors) {
  const std::string text = Recording("squeue-east.json");
  ExpectErrorWith(ParseSqueueJson(text.substr(0, 4000)).status(), {"squeue --json: not JSON"});
  ExpectErrorWith(ParseSqueueJson("").status(), {"squeue --json: not JSON"});
  ExpectErrorWith(ParseSqueueJson("squeue: error: Invalid user").status(), {"not JSON"});
  ExpectErrorWith(ParseSqueueJson(R"({"errors": [], "jobs": 3})").status(),
                  {"squeue --json: jobs: '3' is not an array"});
  ExpectErrorWith(ParseSqueueJson(R"({"errors": "none", "jobs": []})").status(),
                  {"errors: 'none' is not an array"});
  ExpectErrorWith(ParseSqueueJson(R"({"errors": [], "jobs": [7]})").status(),
                  {"squeue --json: jobs[0]: '7' is not an object"});
  EXPECT_TRUE(ParseSqueueJson(R"({"errors": [], "jobs": []})").ok());
}

TEST(SqueueJsonTest, SlurmsErrorsArrayBecomesTheError) {
  json doc = json::parse(Recording("squeue-east.json"));
  doc["errors"] = json::array({{{"error", "Invalid job id specified"}, {"errno", 2017}},
                               "second problem"});
  ExpectErrorWith(ParseSqueueJson(doc.dump()).status(),
                  {"squeue --json: Slurm reported errors: Invalid job id specified (errno 2017)",
                   "; second problem"});
}

TEST(SqueueJsonTest, BrokenFieldsNameThePathAndTheValue) {
  ExpectErrorWith(ParseSqueueJson(EastWith(2, "job_id", "3")).status(),
                  {"squeue --json: jobs[2].job_id: '3' is not an integer"});
  ExpectErrorWith(ParseSqueueJson(EastWith(1, "job_id", nullptr)).status(),
                  {"squeue --json: jobs[1].job_id is missing"});
  ExpectErrorWith(ParseSqueueJson(EastWith(1, "job_id", 0)).status(),
                  {"jobs[1].job_id: '0' is not a job id"});
  ExpectErrorWith(ParseSqueueJson(EastWith(0, "job_state", nullptr)).status(),
                  {"jobs[0].job_state is missing"});
  ExpectErrorWith(ParseSqueueJson(EastWith(0, "job_state", "")).status(),
                  {"jobs[0].job_state: '' is not a job state"});
  ExpectErrorWith(ParseSqueueJson(EastWith(0, "gres_detail", json::array({"gpu:x"}))).status(),
                  {"squeue --json: jobs[0].gres_detail[0]: 'gpu:x' is not a GPU GRES"});
  ExpectErrorWith(
      ParseSqueueJson(EastWith(0, "gres_detail", json::array({"gpu:2(IDX:3-1)"}))).status(),
      {"jobs[0].gres_detail[0]: 'gpu:2(IDX:3-1)': GPU index range '3-1' is reversed"});
  ExpectErrorWith(ParseSqueueJson(EastWith(0, "nodes", "east-n[0-")).status(),
                  {"squeue --json: jobs[0].nodes: host list 'east-n[0-': '[' is not closed"});
  ExpectErrorWith(ParseSqueueJson(EastWith(0, "gres_detail", "gpu:2(IDX:0-1)")).status(),
                  {"jobs[0].gres_detail: 'gpu:2(IDX:0-1)' is not an array"});
  ExpectErrorWith(ParseSqueueJson(EastWith(0, "requeue", 1)).status(),
                  {"jobs[0].requeue: '1' is not true or false"});
  ExpectErrorWith(ParseSqueueJson(EastWith(0, "exit_code", 1.5)).status(),
                  {"jobs[0].exit_code: '1.5' is not an integer"});
  ExpectErrorWith(ParseSqueueJson(EastWith(0, "restart_cnt", 1LL << 40)).status(),
                  {"jobs[0].restart_cnt", "is not a 32-bit integer"});
}

}  // namespace
}  // namespace squeeze
