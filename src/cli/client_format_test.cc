#include "cli/client_format.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

TEST(ClientFormatTest, ShortDurations) {
  EXPECT_EQ(ShortDuration(59), "59s");
  EXPECT_EQ(ShortDuration(90), "1m30s");
  EXPECT_EQ(ShortDuration(7260), "2h1m");
  EXPECT_EQ(ShortDuration(200000), "2d7h");
  EXPECT_EQ(ShortDuration(nullptr), "-");
}

TEST(ClientFormatTest, QueueLikeSqueue) {
  const auto jobs = nlohmann::json::parse(R"J({"jobs": [
    {"id": 3, "name": "train", "owner": "alice", "state": "running", "gpus": 2,
     "gpu_milli": 1000, "wait_s": 95, "reason": null},
    {"id": 14, "name": "eval-small", "owner": "bob", "state": "pending", "gpus": 1,
     "gpu_milli": 500, "wait_s": 4000, "reason": "waiting for 1 GPU (0 free)"}]})J");
  EXPECT_EQ(FormatQueue(jobs),
            "ID  NAME        OWNER  STATE    GPUS    WAIT   REASON\n"
            "3   train       alice  running  2       1m35s  -\n"
            "14  eval-small  bob    pending  1x500m  1h6m   waiting for 1 GPU (0 free)\n");
  EXPECT_EQ(FormatQueue(nlohmann::json::array()), "no jobs\n");
}

// A waiting job's REASON is its code, as squeue's (Resources, Priority, ...), when it has one.
TEST(ClientFormatTest, QueueShowsAWaitingJobsReasonCode) {
  const auto jobs = nlohmann::json::parse(R"J({"jobs": [
    {"id": 5, "name": "big", "owner": "bob", "state": "pending", "gpus": 8, "wait_s": 60,
     "reason": "preempted by 9; resumes from its checkpoint", "reason_code": "Priority"}]})J");
  EXPECT_EQ(FormatQueue(jobs),
            "ID  NAME  OWNER  STATE    GPUS  WAIT  REASON\n"
            "5   big   bob    pending  8     1m0s  Priority\n");
}

// An array's waiting tasks with the same reason share a row (12_[2-4,7]), as squeue shows
// them; a running task is ARRAY_TASK; a waiting task with another reason starts a new row.
TEST(ClientFormatTest, QueueCollapsesAnArraysWaitingTasks) {
  const auto jobs = nlohmann::json::parse(R"J({"jobs": [
    {"id": 12, "array_id": 12, "array_task": 0, "name": "sweep", "owner": "ana", "state": "running", "gpus": 1, "wait_s": 5, "reason": ""},
    {"id": 13, "array_id": 12, "array_task": 2, "name": "sweep", "owner": "ana", "state": "pending", "gpus": 1, "wait_s": 9, "reason": "", "reason_code": "ArrayLimit"},
    {"id": 14, "array_id": 12, "array_task": 3, "name": "sweep", "owner": "ana", "state": "pending", "gpus": 1, "wait_s": 9, "reason": "", "reason_code": "ArrayLimit"},
    {"id": 15, "array_id": 12, "array_task": 4, "name": "sweep", "owner": "ana", "state": "pending", "gpus": 1, "wait_s": 9, "reason": "", "reason_code": "ArrayLimit"},
    {"id": 16, "array_id": 12, "array_task": 7, "name": "sweep", "owner": "ana", "state": "pending", "gpus": 1, "wait_s": 9, "reason": "", "reason_code": "ArrayLimit"},
    {"id": 17, "array_id": 12, "array_task": 8, "name": "sweep", "owner": "ana", "state": "pending", "gpus": 1, "wait_s": 9, "reason": "", "reason_code": "JobHeld"},
    {"id": 18, "name": "eval", "owner": "ana", "state": "pending", "gpus": 1, "wait_s": 9, "reason": "", "reason_code": "Dependency"}]})J");
  EXPECT_EQ(FormatQueue(jobs),
            "ID          NAME   OWNER  STATE    GPUS  WAIT  REASON\n"
            "12_0        sweep  ana    running  1     5s    \n"
            "12_[2-4,7]  sweep  ana    pending  1     9s    ArrayLimit\n"
            "12_8        sweep  ana    pending  1     9s    JobHeld\n"
            "18          eval   ana    pending  1     9s    Dependency\n");
}

// squeue --start: each waiting job's expected start, N/A when none is known.
TEST(ClientFormatTest, QueueStartListsExpectedStarts) {
  const auto jobs = nlohmann::json::parse(R"J({"jobs": [
    {"id": 5, "name": "big", "owner": "bob", "state": "pending", "gpus": 8, "reason": "", "reason_code": "Resources", "expected_start_at": "2026-12-03T14:00:00Z"},
    {"id": 7, "array_id": 6, "array_task": 1, "name": "t", "owner": "bob", "state": "pending", "gpus": 1, "reason": "", "reason_code": "Dependency", "expected_start_at": null}]})J");
  EXPECT_EQ(FormatQueueStart(jobs),
            "ID   NAME  OWNER  GPUS  START_TIME            REASON\n"
            "5    big   bob    8     2026-12-03T14:00:00Z  Resources\n"
            "6_1  t     bob    1     N/A                   Dependency\n");
  EXPECT_EQ(FormatQueueStart(nlohmann::json::parse(R"({"jobs": []})")), "no waiting jobs\n");
}

// Ended jobs as sacct lists them, with the GPU-hours summed.
TEST(ClientFormatTest, HistoryLikeSacct) {
  const auto jobs = nlohmann::json::parse(R"J({"jobs": [
    {"id": 3, "name": "train", "owner": "alice", "state": "done", "wait_s": 95, "run_s": 7200,
     "gpu_hours": 16.0, "exit_code": 0, "ended_at": "2026-12-01T10:00:00Z"},
    {"id": 4, "name": "eval", "owner": "bob", "state": "timeout", "wait_s": 0, "run_s": 600,
     "gpu_hours": 0.167, "exit_code": 143, "ended_at": "2026-12-01T11:00:00Z"}]})J");
  EXPECT_EQ(FormatHistory(jobs),
            "ID  NAME   OWNER  STATE    WAIT   RUN    GPU-H  EXIT  ENDED\n"
            "3   train  alice  done     1m35s  2h0m   16.00  0     2026-12-01T10:00:00Z\n"
            "4   eval   bob    timeout  0s     10m0s  0.17   143   2026-12-01T11:00:00Z\n"
            "2 jobs, 16.17 GPU-hours\n");
  EXPECT_EQ(FormatHistory(nlohmann::json::parse(R"({"jobs": []})")), "no ended jobs\n");
}

TEST(ClientFormatTest, OneJobWithItsHistory) {
  const auto job = nlohmann::json::parse(R"J({"id": 7, "state": "running", "history": [
    {"at": "2026-11-30T10:00:00Z", "kind": "submit", "text": "by admin"},
    {"at": "2026-11-30T10:00:01Z", "kind": "region",
     "text": "moved from region us-east to us-west: expected wait at home 1h > 1s"}]})J");
  EXPECT_EQ(FormatJob(job),
            "id: 7\nstate: running\nhistory:\n"
            "  2026-11-30T10:00:00Z  submit     by admin\n"
            "  2026-11-30T10:00:01Z  region     moved from region us-east to us-west: expected "
            "wait at home 1h > 1s\n");
}

TEST(ClientFormatTest, WhyAndNodes) {
  const auto why = nlohmann::json::parse(R"J({"explanation": ["needs 2 GPUs; 1 is free",
    "job 3 (alice) holds 2 GPUs until about 10m from now"], "expected_start_in_s": 600})J");
  EXPECT_EQ(FormatWhy(why),
            "needs 2 GPUs; 1 is free\njob 3 (alice) holds 2 GPUs until about 10m from now\n"
            "expected to start in about 10m0s (by the running and waiting jobs' estimates)\n");
  // A running or ended job has no expected start to print.
  const auto running = nlohmann::json::parse(
      R"J({"explanation": ["running since T"], "state": "running", "expected_start_in_s": null})J");
  EXPECT_EQ(FormatWhy(running), "running since T\n");
  const auto ended = nlohmann::json::parse(R"J({"explanation": ["it has ended: done"],
    "state": "done", "expected_start_in_s": null})J");
  EXPECT_EQ(FormatWhy(ended), "it has ended: done\n");
  // A held job waits for its release, not for GPUs: no expected start either.
  const auto held = nlohmann::json::parse(R"J({"explanation": ["held by ana"], "state": "pending",
    "held": true, "expected_start_in_s": null})J");
  EXPECT_EQ(FormatWhy(held), "held by ana\n");
  const auto nodes = nlohmann::json::parse(R"J([{"name": "local", "pool": "local",
    "gpu_model": "L4", "gpus": 4, "free_gpus": 1, "virtual": true, "jobs": [3, 14]}])J");
  EXPECT_EQ(FormatNodes(nodes),
            "NODE   POOL   MODEL         GPUS  FREE  JOBS\n"
            "local  local  L4 (virtual)  4     1     3,14\n");
}

TEST(ClientFormatTest, NodesSayWhyANodeTakesNoNewJobs) {
  const auto nodes = nlohmann::json::parse(R"J([{"name": "east-n0", "pool": "east",
    "gpu_model": "gpu", "gpus": 4, "free_gpus": 3, "jobs": [7], "available": false,
    "unavailable": "the controller of Slurm cluster east does not answer since 2026-11-30T08:52:03Z"},
    {"name": "west-n0", "pool": "west", "gpu_model": "gpu", "gpus": 4, "free_gpus": 4,
    "jobs": [], "available": true}])J");
  EXPECT_EQ(FormatNodes(nodes),
            "NODE     POOL  MODEL  GPUS  FREE  JOBS\n"
            "east-n0  east  gpu    4     3     7\n"
            "west-n0  west  gpu    4     4     -\n"
            "east-n0 takes no new jobs: the controller of Slurm cluster east does not answer "
            "since 2026-11-30T08:52:03Z\n");
}

TEST(ClientFormatTest, NodesSayWhatTheCallerMayAskFor) {
  const auto nodes = nlohmann::json::parse(R"J({"nodes": [{"name": "n0", "pool": "local",
    "gpu_model": "gpu", "gpus": 1, "free_gpus": 1, "jobs": []}], "limits": {"yours": {
    "user": "bob", "team": "ml", "admin": false, "max_urgency": "normal", "waiting_jobs": 3,
    "max_waiting_jobs_per_user": 10000, "team_waiting_jobs": 7, "max_waiting_jobs_per_team":
    50000, "max_tasks_per_submission": 10000}}})J");
  EXPECT_EQ(FormatNodes(nodes),
            "NODE  POOL   MODEL  GPUS  FREE  JOBS\n"
            "n0    local  gpu    1     1     -\n"
            "your limits: urgency up to normal; 3 of 10000 waiting jobs (team ml: 7 of 50000); "
            "10000 tasks per submission\n");
}

TEST(ClientFormatTest, HeldIdleJobsAsATable) {
  const auto held = nlohmann::json::parse(R"J({"threshold": 0.1, "window_s": 1800, "jobs": [
    {"id": 4, "name": "train", "user": "alice", "team": "vision",
     "gpus": [{"node": "local", "gpu": 0}, {"node": "local", "gpu": 1}],
     "mean_utilization": 0.02, "idle_since": "2026-11-30T08:00:00Z"}]})J");
  EXPECT_EQ(FormatHeldIdle(held),
            "ID  NAME   USER   TEAM    GPUS             MEAN  IDLE SINCE\n"
            "4   train  alice  vision  local:0,local:1  2%    2026-11-30T08:00:00Z\n"
            "held but idle: every GPU below 10% for 30m0s\n");
  EXPECT_EQ(FormatHeldIdle(nlohmann::json::parse(
                R"({"jobs": [], "threshold": 0.1, "window_s": 1800})")),
            "no job is held but idle (every GPU below 10% for 30m0s)\n");
}

// What a user chose reaches no terminal raw: the issue's fake row (a CR and a cursor-up in an
// -o path, shown in the REASON of an older daemon's queue), a name that clears the screen,
// bytes that are not UTF-8, a C1 control and a right-to-left override are printed escaped,
// on one line each.
TEST(ClientFormatTest, TextFromUsersIsPrintedEscaped) {
  nlohmann::json jobs = {{"jobs", nlohmann::json::array()}};
  jobs["jobs"].push_back({{"id", 7}, {"name", "\x1b[2Jx"}, {"owner", "bob"}, {"state", "failed"},
                          {"gpus", 1}, {"wait_s", 1},
                          {"reason", "cannot open '/tmp/o\r\x1b[1A7  fake  alice  running'"}});
  jobs["jobs"].push_back({{"id", 8}, {"name", std::string("bad\xff")}, {"owner", "bob"},
                          {"state", "done"}, {"gpus", 1}, {"wait_s", 1},
                          {"reason", "c1 \xC2\x9b" "31m rtl \xE2\x80\xAE"}});
  const std::string queue = FormatQueue(jobs);
  EXPECT_EQ(queue,
            "ID  NAME      OWNER  STATE   GPUS  WAIT  REASON\n"
            "7   \\x1b[2Jx  bob    failed  1     1s    cannot open '/tmp/o\\r\\x1b[1A7  fake  alice  "
            "running'\n"
            "8   bad\xEF\xBF\xBD      bob    done    1     1s    c1 \\u009b31m rtl \\u202e\n");
  const std::string history = FormatHistory(jobs);
  EXPECT_EQ(history.find('\x1b'), std::string::npos) << history;
  EXPECT_NE(history.find("\\x1b[2Jx"), std::string::npos) << history;

  const nlohmann::json job = {{"id", 7},
                              {"name", "\x1b]0;owned\x07"},
                              {"command", {"python3", "-c", "print(1)\n\tprint(2)"}},
                              {"env", {{"PS1", "\x1b[32m$ \xC2\x85"}}},
                              {"history", {{{"at", "t"}, {"kind", "end"}, {"text", "a\rb"}}}}};
  EXPECT_EQ(FormatJob(job),
            "command: [\"python3\",\"-c\",\"print(1)\\n\\tprint(2)\"]\n"
            "env: {\"PS1\":\"\\u001b[32m$ \\u0085\"}\n"
            "id: 7\n"
            "name: \\x1b]0;owned\\x07\n"
            "history:\n"
            "  t  end        a\\rb\n");
  EXPECT_EQ(FormatWhy({{"explanation", {"line\x1b[K"}}}), "line\\x1b[K\n");
  const nlohmann::json nodes = {
      {"nodes", {{{"name", "n0\x1b"}, {"unavailable", "down\r"}, {"gpus", 1}}}}};
  EXPECT_EQ(FormatNodes(nodes).find('\x1b'), std::string::npos);
  EXPECT_NE(FormatNodes(nodes).find("n0\\x1b takes no new jobs: down\\r"), std::string::npos);
}

}  // namespace
}  // namespace squeeze
