#include "cli/client_format.h"

#include <cstdlib>
#include <ctime>

#include "cli/job_show_format.h"
#include "cli/job_table_format.h"

#include <gmock/gmock.h>
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
     "gpu_milli": 1000, "wait_s": 95, "reason": null, "run_s": 3600, "time_limit_s": 7200,
     "run_nodes": ["gpu-0"]},
    {"id": 14, "name": "eval-small", "owner": "bob", "state": "pending", "gpus": 1,
     "gpu_milli": 500, "wait_s": 4000, "reason": "waiting for 1 GPU (0 free)", "run_s": 0,
     "time_limit_s": null, "run_nodes": []}]})J");
  EXPECT_EQ(FormatQueue(jobs),
            "ID  NAME        OWNER  STATE    GPUS    WAIT   TIME  TIME_LIMIT  NODELIST(REASON)\n"
            "3   train       alice  running  2       1m35s  1h0m  2h0m        gpu-0\n"
            "14  eval-small  bob    pending  1x500m  1h6m   0s    UNLIMITED   (waiting for 1 GPU (0 free))\n");
  // -o/--format: squeeze's names, squeue's codes and sacct's names choose the columns.
  for (const char* spec : {"id,st,time,nodelist_reason", "%.18i %.2t %.10M %R",
                           "JobID,st,Elapsed,nodelist_reason"}) {
    Result<std::vector<JobColumn>> columns = JobColumns(spec);
    ASSERT_TRUE(columns.ok()) << spec << ": " << columns.status().message();
    EXPECT_EQ(FormatJobTable(jobs, *columns, true),
              "ID  ST  TIME  NODELIST(REASON)\n"
              "3   R   1h0m  gpu-0\n"
              "14  PD  0s    (waiting for 1 GPU (0 free))\n") << spec;
  }
  EXPECT_EQ(JobColumns("id,bogus").status().message().substr(0, 32),
            "--format: 'bogus' is no column; ");
  EXPECT_EQ(*StateNames("PD,r,CG,cd,F,CA,to,done"),
            "pending,running,checkpointing,done,failed,cancelled,timeout,done");
  EXPECT_THAT(StateNames("PD,zz").status().message(), ::testing::HasSubstr("'zz' is no state"));
  EXPECT_EQ(FormatQueue(nlohmann::json::array()), "no jobs\n");
}

// A waiting job's REASON is its code, as squeue's (Resources, Priority, ...), when it has one.
// An elastic job: its range while it waits, the width of its run and its range while it runs.
TEST(ClientFormatTest, QueueShowsAnElasticJobsWidthAndRange) {
  const auto jobs = nlohmann::json::parse(R"J({"jobs": [
    {"id": 3, "name": "el", "owner": "ana", "state": "running", "gpus": 2, "gpus_range": "2-8",
     "gpus_step": 1, "scaling": "linear", "run_gpus": [0, 1, 2, 3], "wait_s": 1, "reason": ""},
    {"id": 4, "name": "el2", "owner": "ana", "state": "pending", "gpus": 4, "gpus_range": "4-8",
     "gpus_step": 4, "scaling": "amdahl:0.9", "run_gpus": [], "wait_s": 2, "reason": ""}]})J");
  const std::string out = FormatJobTable(jobs, *JobColumns("id,gpus"), true);
  EXPECT_EQ(out, "ID  GPUS\n3   4/2-8\n4   4-8\n");
  EXPECT_THAT(FormatJobShown(jobs["jobs"][0]),
              ::testing::HasSubstr("GPUs=4 (elastic 2-8, step 1, scaling linear)"));
  EXPECT_THAT(FormatJobShown(jobs["jobs"][1]),
              ::testing::HasSubstr("GPUs=4 (elastic 4-8, step 4, scaling amdahl:0.9)"));
}

TEST(ClientFormatTest, ShowGivesTheCardsAJobAsksFor) {
  nlohmann::json job = {{"id", 3}, {"gpus", 1}, {"gpu_memory_mib", 40960},
                        {"gpu_speeds", {{"V100", 1}, {"K80", 0.24}, {"T4\x1b[2J", 2}}}};
  EXPECT_THAT(FormatJobShown(job),
              ::testing::HasSubstr("   GpuMemory=40G GpuSpeeds=K80:0.24,T4\\x1b[2J:2,V100:1\n"));
  job["gpu_speeds"] = nullptr;
  EXPECT_THAT(FormatJobShown(job),
              ::testing::HasSubstr("   GpuMemory=40G GpuSpeeds=the cluster's\n"));
  job["gpu_memory_mib"] = nullptr;
  EXPECT_THAT(FormatJobShown(job), ::testing::Not(::testing::HasSubstr("GpuMemory=")));
}

TEST(ClientFormatTest, QueueShowsAWaitingJobsReasonCode) {
  const auto jobs = nlohmann::json::parse(R"J({"jobs": [
    {"id": 5, "name": "big", "owner": "bob", "state": "pending", "gpus": 8, "wait_s": 60,
     "reason": "preempted by 9; resumes from its checkpoint", "reason_code": "Priority"}]})J");
  EXPECT_EQ(FormatQueue(jobs),
            "ID  NAME  OWNER  STATE    GPUS  WAIT  TIME  TIME_LIMIT  NODELIST(REASON)\n"
            "5   big   bob    pending  8     1m0s  -     UNLIMITED   (Priority)\n");
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
            "ID          NAME   OWNER  STATE    GPUS  WAIT  TIME  TIME_LIMIT  NODELIST(REASON)\n"
            "12_0        sweep  ana    running  1     5s    -     UNLIMITED   -\n"
            "12_[2-4,7]  sweep  ana    pending  1     9s    -     UNLIMITED   (ArrayLimit)\n"
            "12_8        sweep  ana    pending  1     9s    -     UNLIMITED   (JobHeld)\n"
            "18          eval   ana    pending  1     9s    -     UNLIMITED   (Dependency)\n");
}

// squeue --start: each waiting job's expected start, N/A when none is known.
TEST(ClientFormatTest, QueueStartListsExpectedStarts) {
  SetShownTimesUtc(true);  // --utc; the local zone's are ShowGroupsAJobAsScontrolDoes's
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
  SetShownTimesUtc(true);
  const auto jobs = nlohmann::json::parse(R"J({"jobs": [
    {"id": 3, "name": "train", "owner": "alice", "state": "done", "wait_s": 95, "run_s": 7200,
     "gpu_hours": 16.0, "exit_code": 0, "ended_at": "2026-12-01T10:00:00Z"},
    {"id": 4, "name": "eval", "owner": "bob", "state": "timeout", "wait_s": 0, "run_s": 600,
     "gpu_hours": 0.167, "exit_code": 143, "ended_at": "2026-12-01T11:00:00Z"}]})J");
  EXPECT_EQ(FormatHistory(jobs),
            "ID  NAME   OWNER  STATE    START  END                   WAIT   TIME   GPU-H  EXIT  NODELIST\n"
            "3   train  alice  done     -      2026-12-01T10:00:00Z  1m35s  2h0m   16.00  0     -\n"
            "4   eval   bob    timeout  -      2026-12-01T11:00:00Z  0s     10m0s  0.17   143   -\n"
            "2 jobs, 16.17 GPU-hours\n");
  EXPECT_EQ(FormatHistory(nlohmann::json::parse(R"({"jobs": []})")), "no ended jobs\n");
  nlohmann::json one = jobs;
  one["jobs"].erase(1);
  EXPECT_NE(FormatHistory(one).find("\n1 job, 16.00 GPU-hours\n"), std::string::npos);
}

// An elastic job's GPU-hours at each width: summed over the listed jobs under the total, and
// in `show`; broken values are left out, not shown.
TEST(ClientFormatTest, HistorySplitsElasticGpuHoursByWidth) {
  SetShownTimesUtc(true);
  const auto jobs = nlohmann::json::parse(R"J({"jobs": [
    {"id": 3, "name": "a", "owner": "alice", "state": "done", "gpu_hours": 10.0,
     "gpu_hours_by_width": {"8": 8.0, "4": 2.0}},
    {"id": 4, "name": "b", "owner": "bob", "state": "done", "gpu_hours": 1.5,
     "gpu_hours_by_width": {"4": 1.0, "2": 0.5, "x": 9, "16": "a lot"}},
    {"id": 5, "name": "c", "owner": "bob", "state": "done", "gpu_hours": 1.0}]})J");
  const std::string shown = FormatHistory(jobs);
  EXPECT_NE(shown.find("3 jobs, 12.50 GPU-hours\n"
                       "elastic jobs' GPU-hours by width: 8 GPUs 8.00, 4 GPUs 3.00, 2 GPUs 0.50\n"),
            std::string::npos)
      << shown;
  nlohmann::json fixed = jobs;
  fixed["jobs"].erase(0);
  fixed["jobs"].erase(0);
  EXPECT_EQ(FormatHistory(fixed).find("by width"), std::string::npos);
  EXPECT_NE(FormatJob(jobs["jobs"][0]).find("GpuHours=10.0 ByWidth=8 GPUs 8.00, 4 GPUs 2.00\n"),
            std::string::npos)
      << FormatJob(jobs["jobs"][0]);
}

TEST(ClientFormatTest, OneJobWithItsHistory) {
  SetShownTimesUtc(true);
  const auto job = nlohmann::json::parse(R"J({"id": 7, "state": "running", "history": [
    {"at": "2026-11-30T10:00:00Z", "kind": "submit", "text": "by admin"},
    {"at": "2026-11-30T10:00:01Z", "kind": "region",
     "text": "moved from region us-east to us-west: expected wait at home 1h > 1s"}]})J");
  const std::string shown = FormatJob(job);
  EXPECT_EQ(shown.substr(0, shown.find('\n')), "JobId=7 JobName=-");
  EXPECT_NE(shown.find("\n   JobState=running Reason=-\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("History:\n"
                       "   2026-11-30T10:00:00Z  submit     by admin\n"
                       "   2026-11-30T10:00:01Z  region     moved from region us-east to us-west: "
                       "expected wait at home 1h > 1s\n"),
            std::string::npos)
      << shown;
}

// scontrol's groups: who, state, times (local unless --utc), resources, how it runs; the
// environment counted, its values only when asked for, nothing of another's.
TEST(ClientFormatTest, ShowGroupsAJobAsScontrolDoes) {
  const auto job = nlohmann::json::parse(R"J({"id": 12, "name": "train", "owner": "alice",
    "team": "ml", "urgency": "high", "pool": "", "state": "running", "reason": "",
    "gpus": 2, "gpu_milli": 1000, "gpu_models": [], "cpus": 8, "memory_mib": 32768,
    "run_s": 3725, "time_limit_s": 7200, "estimate_s": null,
    "submitted_at": "2026-11-30T10:00:00Z", "started_at": "2026-11-30T10:01:00Z",
    "ended_at": null, "wait_s": 60, "run_nodes": ["gpu-0"], "run_gpus": [0, 1],
    "command": ["python", "train.py", "--note", "two words"], "workdir": "/home/alice/p",
    "output": null, "error": null, "env_count": 2, "env": null, "private": false,
    "held": false, "checkpointable": true})J");
  SetShownTimesUtc(false);
  setenv("TZ", "JST-9", 1);  // POSIX: 9 hours east of UTC, no time zone database needed
  tzset();
  std::string shown = FormatJob(job);
  EXPECT_NE(shown.find("   UserId=alice Team=ml Urgency=high Pool=any\n"), std::string::npos)
      << shown;
  EXPECT_NE(shown.find("RunTime=1h2m TimeLimit=2h0m Estimate=- Deadline=-"), std::string::npos)
      << shown;
  EXPECT_NE(shown.find("SubmitTime=2026-11-30T19:00:00 StartTime=2026-11-30T19:01:00 EndTime=- "
                       "Wait=1m0s"),
            std::string::npos)
      << shown;
  EXPECT_NE(shown.find("NodeList=gpu-0 GPUs=2 GpuIndices=0,1 GpuModels=any CPUs=8 Memory=32G"),
            std::string::npos)
      << shown;
  EXPECT_NE(shown.find("   Command=python train.py --note 'two words'\n"), std::string::npos)
      << shown;
  EXPECT_NE(shown.find("   Environment=2 variables (values hidden: squeeze show 12 --env)\n"),
            std::string::npos)
      << shown;
  // The daemon's texts carry API times: shown local too, the rest of the text as it is.
  EXPECT_EQ(ShownTimesIn("stopped at its time limit 2h at 2026-11-30T12:01:00Z; checkpointing"),
            "stopped at its time limit 2h at 2026-11-30T21:01:00; checkpointing");
  EXPECT_EQ(ShownTimesIn("2026-11-30T12:01:00Z"), "2026-11-30T21:01:00");
  EXPECT_EQ(ShownTimesIn("not 2026-11-30T12:01:00 nor 2026-13-30x12:01:00Z\x1b[2J"),
            "not 2026-11-30T12:01:00 nor 2026-13-30x12:01:00Z\\x1b[2J");
  nlohmann::json timed_out = job;
  timed_out["reason"] = "reclaimed: its provider takes it back at 2026-11-30T10:05:00Z";
  EXPECT_NE(FormatJob(timed_out).find("takes it back at 2026-11-30T19:05:00"), std::string::npos)
      << FormatJob(timed_out);
  SetShownTimesUtc(true);
  EXPECT_NE(FormatJob(job).find("SubmitTime=2026-11-30T10:00:00Z"), std::string::npos);
  EXPECT_NE(FormatJob(timed_out).find("takes it back at 2026-11-30T10:05:00Z"), std::string::npos);
  unsetenv("TZ");
  tzset();
  const nlohmann::json env = {{"env", {{"HF_TOKEN", "hf_x"}, {"PATH", "/v/bin"}}}};
  shown = FormatJobShown(job, &env);
  EXPECT_NE(shown.find("   Environment=2 variables\n      HF_TOKEN=hf_x\n      PATH=/v/bin\n"),
            std::string::npos)
      << shown;
  EXPECT_EQ(FormatJob(job).find("hf_x"), std::string::npos);
  // Another user's view: what is private says so, never a value.
  nlohmann::json theirs = job;
  theirs["private"] = true;
  theirs["command"] = theirs["workdir"] = theirs["env_count"] = nullptr;
  shown = FormatJob(theirs);
  EXPECT_NE(shown.find("   Command=(private)\n   WorkDir=(private)\n   StdOut=(private) "
                       "StdErr=(private)\n   Environment=(private)\n"),
            std::string::npos)
      << shown;
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

// Nodes in blocks and racks (a topology): a TOPOLOGY column, "-" for a node in none; a domain
// name from the daemon is shown with its control characters escaped.
TEST(ClientFormatTest, NodesShowTheirBlockAndRack) {
  const auto nodes = nlohmann::json::parse(R"J([{"name": "east-n0", "pool": "east",
    "gpu_model": "gpu", "gpus": 4, "free_gpus": 4, "jobs": [],
    "topology": {"switch": "east/east-s0", "switch2": "east/east-top"}},
    {"name": "loose", "pool": "east", "gpu_model": "gpu", "gpus": 4, "free_gpus": 4, "jobs": []},
    {"name": "odd", "pool": "east", "gpu_model": "gpu", "gpus": 4, "free_gpus": 4, "jobs": [],
    "topology": {"switch": "s\u001b[2J"}}])J");
  EXPECT_EQ(FormatNodes(nodes),
            "NODE     POOL  MODEL  GPUS  FREE  JOBS  TOPOLOGY\n"
            "east-n0  east  gpu    4     4     -     switch=east/east-s0,switch2=east/east-top\n"
            "loose    east  gpu    4     4     -     -\n"
            "odd      east  gpu    4     4     -     switch=s\\x1b[2J\n");
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
  // Every text a user chose, escaped: the names, and a waiting job's reason.
  jobs["jobs"][0]["state"] = "pending";
  const std::string queue = FormatQueue(jobs);
  EXPECT_EQ(queue.find('\x1b'), std::string::npos) << queue;
  EXPECT_NE(queue.find("7   \\x1b[2Jx  bob    pending"), std::string::npos) << queue;
  EXPECT_NE(queue.find("(cannot open '/tmp/o\\r\\x1b[1A7  fake  alice  running')"),
            std::string::npos) << queue;
  EXPECT_NE(queue.find("8   bad\xEF\xBF\xBD      bob    done"), std::string::npos) << queue;
  const std::string history = FormatHistory(jobs);
  EXPECT_EQ(history.find('\x1b'), std::string::npos) << history;
  EXPECT_NE(history.find("\\x1b[2Jx"), std::string::npos) << history;

  const nlohmann::json job = {{"id", 7},
                              {"name", "\x1b]0;owned\x07"},
                              {"command", {"python3", "-c", "print(1)\n\tprint(2)"}},
                              {"env", {{"PS1", "\x1b[32m$ \xC2\x85"}}},
                              {"history", {{{"at", "t"}, {"kind", "end"}, {"text", "a\rb"}}}}};
  SetShownTimesUtc(true);
  const std::string shown = FormatJob(job);
  EXPECT_EQ(shown.find('\x1b'), std::string::npos) << shown;
  EXPECT_EQ(shown.find('\x07'), std::string::npos) << shown;
  EXPECT_NE(shown.find("JobId=7 JobName=\\x1b]0;owned\\x07\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("   Command=python3 -c 'print(1)\\n\\tprint(2)'\n"), std::string::npos)
      << shown;
  EXPECT_NE(shown.find("   t  end        a\\rb\n"), std::string::npos) << shown;
  const nlohmann::json env = {{"env", job["env"]}};
  const std::string with_env = FormatJobShown(job, &env);
  EXPECT_EQ(with_env.find('\x1b'), std::string::npos) << with_env;
  EXPECT_NE(with_env.find("      PS1=\\x1b[32m$ \\u0085\n"), std::string::npos) << with_env;
  EXPECT_EQ(FormatWhy({{"explanation", {"line\x1b[K"}}}), "line\\x1b[K\n");
  const nlohmann::json nodes = {
      {"nodes", {{{"name", "n0\x1b"}, {"unavailable", "down\r"}, {"gpus", 1}}}}};
  EXPECT_EQ(FormatNodes(nodes).find('\x1b'), std::string::npos);
  EXPECT_NE(FormatNodes(nodes).find("n0\\x1b takes no new jobs: down\\r"), std::string::npos);
}

}  // namespace
}  // namespace squeeze
