// SlurmExecutor against a real Slurm cluster: `east` of scripts/slurm-clusters.sh, which the
// CTest fixture slurm_clusters starts (label slurm). Real sbatch, squeue, scancel, scontrol;
// real batch jobs with fake GPUs as GRES.
#include <unistd.h>

#include <sstream>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/temp_dir.h"
#include "exec/command_runner.h"
#include "slurm/batch_script.h"
#include "slurm/slurm_executor.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

std::string SlurmRoot() {
  const char* root = std::getenv("SQUEEZE_SLURM_ROOT");
  return root && *root ? root : "/tmp/squeeze-slurm";
}

class SlurmExecutorLiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    conf_ = SlurmRoot() + "/east/etc/slurm.conf";
    if (!std::filesystem::exists(conf_)) GTEST_SKIP() << "no test cluster at " << conf_;
    // The Slurm tests take turns (RESOURCE_LOCK slurm), but an earlier one's daemon leaves
    // its runs to Slurm when it stops (a 16-GPU run of serve_slurm_multinode.distributed took
    // every node of east): cancel whatever is left and wait until the nodes are free.
    for (int i = 0; i < 120; ++i) {
      auto out = RunCommand({"squeue", "-h", "-o", "%i"}, {{"SLURM_CONF", conf_}});
      if (!out.ok() || out->out.empty()) return;
      if (i == 0) {
        std::istringstream ids(out->out);
        std::vector<std::string> argv = {"scancel"};
        for (std::string id; ids >> id;) argv.push_back(id);
        (void)RunCommand(argv, {{"SLURM_CONF", conf_}});
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }
  void TearDown() override {
    // Whatever a failed test left: cancel this test's jobs.
    auto out = RunCommand({"squeue", "-h", "-o", "%i %j"}, {{"SLURM_CONF", conf_}});
    if (!out.ok()) return;
    std::istringstream lines(out->out);
    std::string id, name;
    while (lines >> id >> name) {
      JobId job = 0;
      int attempt = 0;
      if (ParseSlurmJobName(name, job, attempt) && job >= kFirstId) {
        (void)RunCommand({"scancel", id}, {{"SLURM_CONF", conf_}});
      }
    }
  }

  SlurmExecutorOptions Options() const {
    SlurmExecutorOptions o;
    o.data_dir = dir_.path();
    o.pool.conf = conf_;
    o.pool.cluster = "east";
    return o;
  }
  static JobRequest Command(std::vector<std::string> argv, int gpus = 1) {
    JobRequest r;
    r.command = std::move(argv);
    r.spec.gpus = gpus;
    return r;
  }
  // Polls until `done` holds for an event of job `id` (60 s at most); other jobs' events wait
  // in a backlog for their turn.
  std::vector<ExecEvent> PollUntil(SlurmExecutor& ex, JobId id,
                                   const std::function<bool(const ExecEvent&)>& done) {
    std::vector<ExecEvent> seen;
    for (int i = 0; i < 300; ++i) {
      std::vector<ExecEvent> fresh = ex.Poll(0);
      backlog_.insert(backlog_.end(), fresh.begin(), fresh.end());
      for (auto it = backlog_.begin(); it != backlog_.end();) {
        if (it->id != id) {
          ++it;
          continue;
        }
        seen.push_back(*it);
        it = backlog_.erase(it);
        if (done(seen.back())) return seen;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    ADD_FAILURE() << "job " << id << ": nothing after 60 s";
    return seen;
  }
  static bool Exited(const ExecEvent& e) { return e.kind == ExecEvent::Kind::kExited; }
  static bool Started(const ExecEvent& e) { return e.kind == ExecEvent::Kind::kStarted; }
  std::string Log(JobId id, int attempt) const {
    std::ifstream in(PathsOf(dir_.path(), id, attempt).log);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  int CountNamed(const std::string& name) const {
    auto out = RunCommand({"squeue", "-h", "-t", "all", "-n", name, "-o", "%i"}, {{"SLURM_CONF", conf_}});
    if (!out.ok()) return -1;
    int n = 0;
    for (char c : out->out) n += c == '\n';
    return n;
  }

  // Ids unique to this process, so that runs of the test do not meet each other's jobs.
  static constexpr JobId kFirstId = 900000;
  static JobId NextId() {
    static int next = 0;
    return kFirstId + (getpid() % 1000) * 100 + next++;
  }

  std::vector<ExecEvent> backlog_;
  ::squeeze::testing::TempDir dir_{"squeeze-slurm-exec"};
  std::string conf_;
};

TEST_F(SlurmExecutorLiveTest, RunsAJobWithItsGpusAsSlurmBindsThemAndReportsItsExit) {
  SlurmExecutor ex(Options());
  const JobId ok = NextId(), bad = NextId();
  auto run = ex.Start(ok, 1, Command({"bash", "-c", "echo CVD=$CUDA_VISIBLE_DEVICES id=$SQUEEZE_JOB_ID"}, 2), RunPlace{}, false);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_FALSE(run->backend_id.empty());
  ASSERT_TRUE(ex.Start(bad, 1, Command({"bash", "-c", "exit 3"}), RunPlace{}, false).ok());
  auto ok_events = PollUntil(ex, ok, Exited);
  ASSERT_FALSE(ok_events.empty());
  EXPECT_EQ(ok_events.back().exit, (ExitStatus{false, 0, ""}));
  EXPECT_THAT(Log(ok, 1), HasSubstr("CVD=0,1 id=" + std::to_string(ok)));
  auto bad_events = PollUntil(ex, bad, Exited);
  ASSERT_FALSE(bad_events.empty());
  EXPECT_EQ(bad_events.back().exit.code, 3);
  EXPECT_FALSE(bad_events.back().exit.signaled);
}

// A run's end is known from the exit record its batch script writes, at the next poll: the
// watch here looks at the cluster once and then not for ten minutes, so squeue cannot be what
// told. Slurm's own end of the job follows, and the job is no stranger meanwhile.
TEST_F(SlurmExecutorLiveTest, SeesARunEndFromItsExitRecordWithoutWaitingForSqueue) {
  SlurmExecutorOptions o = Options();
  o.watch_interval_ms = 600000;
  SlurmExecutor ex(o);
  const JobId id = NextId();
  ASSERT_TRUE(ex.Start(id, 1, Command({"bash", "-c", "sleep 1; exit 4"}), RunPlace{}, false).ok());
  auto events = PollUntil(ex, id, Exited);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().exit, (ExitStatus{false, 4, ""}));
  EXPECT_EQ(ReadFileIfPresent(dir_.path() + "/logs/" + std::to_string(id) + ".1.exit"),
            "exit 4\n");
  EXPECT_FALSE(ex.IsRunning(id));
  auto report = ex.Report();
  ASSERT_TRUE(report.has_value());
  for (const std::string& stranger : report->unknown_jobs) {
    EXPECT_THAT(stranger, ::testing::Not(HasSubstr(SlurmJobName(id, 1)))) << stranger;
  }
}

TEST_F(SlurmExecutorLiveTest, AsksForACheckpointWithSigusr1AndSeesTheMarker) {
  SlurmExecutor ex(Options());
  const JobId id = NextId();
  JobRequest r = Command({"bash", std::string(SQUEEZE_SOURCE_DIR) + "/examples/jobs/train-like.sh"});
  r.env = {{"STEPS", "600"}, {"STEP_SECONDS", "0.05"}, {"CHECKPOINT_EVERY", "1000"}};
  ASSERT_TRUE(ex.Start(id, 1, r, RunPlace{}, false).ok());
  // The script's start is reported once, before anything else of the run (the live queue
  // counts the run's slice from it).
  ASSERT_TRUE(ex.ReportsLaunches());
  auto launched = PollUntil(ex, id, Started);
  ASSERT_EQ(launched.size(), 1u) << Log(id, 1);
  ASSERT_EQ(launched.front().kind, ExecEvent::Kind::kStarted);
  EXPECT_EQ(launched.front().attempt, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(800));  // some steps
  ASSERT_TRUE(ex.RequestCheckpoint(id).ok());
  auto events = PollUntil(ex, id, Exited);
  for (const ExecEvent& e : events) EXPECT_NE(e.kind, ExecEvent::Kind::kStarted) << "twice";
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events.front().kind, ExecEvent::Kind::kCheckpoint);
  EXPECT_GT(std::stoi(events.front().checkpoint), 0);
  EXPECT_EQ(events.back().exit.code, 0);  // train-like leaves cleanly after the checkpoint
  EXPECT_THAT(Log(id, 1), HasSubstr("stopping after the requested checkpoint"));
  // The next attempt resumes from it (the script sets SQUEEZE_RESUME from the marker).
  ASSERT_TRUE(ex.Start(id, 2, r, RunPlace{}, true).ok());
  launched = PollUntil(ex, id, Started);
  ASSERT_FALSE(launched.empty());
  EXPECT_EQ(launched.back().attempt, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_TRUE(ex.Stop(id, 0, 5 * kSecond).ok());
  PollUntil(ex, id, Exited);
  EXPECT_THAT(Log(id, 2), HasSubstr("resuming from step " + events.front().checkpoint));
}

// A job that keeps its script's record from ever saying it started (here the record's path
// is a folder before the script runs) still counts as launched once Slurm has run it for the
// grace: it cannot keep its slice from ending that way.
TEST_F(SlurmExecutorLiveTest, ARunWithoutItsStartRecordCountsAsLaunchedAfterTheGrace) {
  SlurmExecutorOptions o = Options();
  o.launch_grace_ms = 2000;
  SlurmExecutor ex(o);
  const JobId id = NextId();
  ASSERT_TRUE(ex.Start(id, 1, Command({"sleep", "30"}), RunPlace{}, false).ok());
  const std::string record = dir_.path() + "/logs/" + std::to_string(id) + ".1.exit";
  if (!ReadFileIfPresent(record).value_or("").empty()) GTEST_SKIP() << "the script started first";
  std::filesystem::remove(record);
  std::filesystem::create_directory(record);
  auto launched = PollUntil(ex, id, Started);
  ASSERT_FALSE(launched.empty());
  EXPECT_EQ(launched.back().kind, ExecEvent::Kind::kStarted);
  ASSERT_TRUE(ex.Stop(id, 0, 5 * kSecond).ok());
  PollUntil(ex, id, Exited);
}

TEST_F(SlurmExecutorLiveTest, NeverSubmitsAnAttemptTwiceAndTakesRunsBackAfterARestart) {
  const JobId id = NextId();
  {
    SlurmExecutor ex(Options());
    ASSERT_TRUE(ex.Start(id, 1, Command({"sleep", "60"}), RunPlace{}, false).ok());
    auto again = ex.Start(id, 1, Command({"sleep", "60"}), RunPlace{}, false);
    ASSERT_FALSE(again.ok());
  }
  // A new executor (the daemon restarted): the attempt was submitted, so it is refused, and
  // Reattach takes the running job back.
  SlurmExecutor restarted(Options());
  auto refused = restarted.Start(id, 1, Command({"sleep", "60"}), RunPlace{}, false);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("already submitted"));
  auto runs = restarted.Reattach();
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  bool found = false;
  for (const RunInfo& r : *runs) found |= r.id == id && r.attempt == 1 && !r.exit;
  EXPECT_TRUE(found);
  EXPECT_TRUE(restarted.IsRunning(id));
  EXPECT_EQ(CountNamed(SlurmJobName(id, 1)), 1);
  // Killed between sbatch and its record: the next Start finds the job by name, submits none.
  const JobId lost_record = NextId();
  {
    SlurmExecutor ex(Options());
    ASSERT_TRUE(ex.Start(lost_record, 1, Command({"sleep", "60"}), RunPlace{}, false).ok());
  }
  std::filesystem::remove(dir_.path() + "/slurm/" + std::to_string(lost_record) + ".1.sbatch");
  SlurmExecutor again(Options());
  ASSERT_TRUE(again.Start(lost_record, 1, Command({"sleep", "60"}), RunPlace{}, false).ok());
  EXPECT_EQ(CountNamed(SlurmJobName(lost_record, 1)), 1);
  // Stop ends both (SIGTERM from scancel).
  for (JobId j : {id}) ASSERT_TRUE(restarted.Stop(j, 0, 5 * kSecond).ok());
  ASSERT_TRUE(again.Stop(lost_record, 0, 5 * kSecond).ok());
  auto stopped = PollUntil(restarted, id, Exited);
  ASSERT_FALSE(stopped.empty());
  // Cancelled (perhaps before it even started): never a success.
  EXPECT_FALSE(stopped.back().exit.Succeeded()) << FormatExitStatus(stopped.back().exit);
}

// A job of 16 GPUs placed on the four 4-GPU nodes of east runs as one Slurm job over them: one
// task per node, each seeing its rank, the world size and its node's 4 GPUs. The checkpoint
// request reaches every task; rank 0's marker completes the checkpoint; the next attempt
// resumes on every node.
TEST_F(SlurmExecutorLiveTest, AJobOfFourNodesRunsOneTaskPerNodeAndCheckpointsOnEach) {
  RunPlace place;
  for (const char* n : {"east-n0", "east-n1", "east-n2", "east-n3"}) place.nodes.push_back({n, {0, 1, 2, 3}});
  const JobId id = NextId();
  const std::string ckpt = PathsOf(dir_.path(), id, 1).checkpoint_dir;
  // Every task says who it is, then waits for the checkpoint signal: each saves its part, and
  // rank 0 writes the marker once all four parts are there.
  const std::string task =
      "echo rank=$SQUEEZE_NODE_RANK of=$SQUEEZE_NNODES world=$SQUEEZE_WORLD_SIZE "
      "gpn=$SQUEEZE_GPUS_PER_NODE node=$SLURMD_NODENAME cvd=$CUDA_VISIBLE_DEVICES "
      "master=$SQUEEZE_MASTER_ADDR:$SQUEEZE_MASTER_PORT list=$SQUEEZE_NODELIST "
      "resume=${SQUEEZE_RESUME:-0}; "
      "save() { echo part > \"$SQUEEZE_CHECKPOINT_DIR/part-$SQUEEZE_NODE_RANK\"; "
      "  if [ \"$SQUEEZE_NODE_RANK\" = 0 ]; then "
      "    while [ $(ls \"$SQUEEZE_CHECKPOINT_DIR\" | grep -c part-) -lt 4 ]; do sleep 0.1; done; "
      "    echo step-7 > \"$SQUEEZE_CHECKPOINT_DIR/COMPLETE\"; fi; exit 0; }; "
      "trap save USR1; for i in $(seq 600); do sleep 0.1; done; exit 9";
  SlurmExecutor ex(Options());
  auto run = ex.Start(id, 1, Command({"bash", "-c", task}, 16), place, false);
  ASSERT_TRUE(run.ok()) << run.status().message();
  // All four tasks have started (their lines are in the log), then the checkpoint is asked.
  std::string log;
  for (int i = 0; i < 300; ++i) {
    log = Log(id, 1);
    if (std::count(log.begin(), log.end(), '\n') >= 4) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (int rank = 0; rank < 4; ++rank) {
    const std::string node = "east-n" + std::to_string(rank);
    EXPECT_THAT(log, HasSubstr("rank=" + std::to_string(rank) + " of=4 world=16 gpn=4 node=" + node +
                               " cvd=0,1,2,3 master=127.0.0.1:" + std::to_string(MasterPort(id)) +
                               " list=east-n0,east-n1,east-n2,east-n3 resume=0"))
        << log;
  }
  for (const ExecEvent& e : ex.Poll(0)) backlog_.push_back(e);  // a look at the cluster
  auto view = ex.SlurmView(id);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->nodes, "east-n[0-3]");
  ASSERT_TRUE(ex.RequestCheckpoint(id).ok());
  auto events = PollUntil(ex, id, Exited);
  ASSERT_FALSE(events.empty());
  EXPECT_TRUE(events.back().exit.Succeeded()) << FormatExitStatus(events.back().exit) << "\n" << Log(id, 1);
  bool checkpointed = false;
  for (const ExecEvent& e : events) checkpointed |= e.kind == ExecEvent::Kind::kCheckpoint && e.checkpoint == "step-7";
  EXPECT_TRUE(checkpointed) << "rank 0's marker";
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_TRUE(std::filesystem::exists(ckpt + "/part-" + std::to_string(rank))) << rank;
  }
  // The next attempt, on two of the nodes with 2 GPUs each, resumes on both.
  RunPlace two;
  two.nodes = {{"east-n1", {0, 1}}, {"east-n3", {2, 3}}};
  ASSERT_TRUE(ex.Start(id, 2, Command({"bash", "-c",
                                       "echo rank=$SQUEEZE_NODE_RANK world=$SQUEEZE_WORLD_SIZE "
                                       "node=$SLURMD_NODENAME gpus=$CUDA_VISIBLE_DEVICES "
                                       "resume=${SQUEEZE_RESUME:-0}"},
                                      4),
                       two, false)
                  .ok());
  auto second = PollUntil(ex, id, Exited);
  ASSERT_FALSE(second.empty());
  EXPECT_TRUE(second.back().exit.Succeeded()) << FormatExitStatus(second.back().exit);
  const std::string log2 = Log(id, 2);
  EXPECT_THAT(log2, HasSubstr("rank=0 world=4 node=east-n1 gpus=0,1 resume=1")) << log2;
  EXPECT_THAT(log2, HasSubstr("rank=1 world=4 node=east-n3 gpus=0,1 resume=1")) << log2;
  // Shares that differ between nodes cannot be given to Slurm: refused, nothing submitted.
  RunPlace uneven;
  uneven.nodes = {{"east-n1", {0, 1, 2}}, {"east-n2", {0}}};
  auto refused = ex.Start(NextId(), 1, Command({"true"}, 4), uneven, false);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("the same GPUs; placed as 3 on east-n1 + 1 on east-n2"));
}

}  // namespace
}  // namespace squeeze
