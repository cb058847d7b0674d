// LiveQueue with backends that run nodes of their own (Slurm pools), played by a fake
// executor: node states from its report, runs it loses, jobs it runs that squeeze does not know.
#include <mutex>

#include <gtest/gtest.h>

#include "core/testing/temp_dir.h"
#include "serve/live_queue.h"

namespace squeeze {
namespace {

// A cluster manager in a test: runs "start" at once and end when told; says what the test sets.
// The queue's outbox calls Start and Stop from its workers: those take the lock; the test reads
// the fields after Step, once the outbox is idle.
class FakeBackend : public Executor {
 public:
  Result<RunInfo> Start(JobId id, int attempt, const JobRequest&, const RunPlace& place,
                        bool resume) override {
    std::lock_guard lock(mu);
    running[id] = attempt;
    starts.push_back({id, resume});
    places[id] = place;
    return RunInfo{id, attempt, 0, 0, std::nullopt, "", "", "1"};
  }
  Status RequestCheckpoint(JobId) override { return Status::Ok(); }
  Status Stop(JobId id, Time, Time) override {
    std::lock_guard lock(mu);
    stops.push_back(id);
    return Status::Ok();
  }
  std::vector<ExecEvent> Poll(Time) override {
    std::lock_guard lock(mu);
    return std::exchange(events, {});
  }
  Result<std::vector<RunInfo>> Reattach() override { return std::vector<RunInfo>{}; }
  std::optional<BackendReport> Report() const override { return report; }
  bool ReportsLaunches() const override { return launches; }
  bool IsRunning(JobId id) const override {
    std::lock_guard lock(mu);
    return running.count(id) > 0;
  }
  size_t RunningCount() const override {
    std::lock_guard lock(mu);
    return running.size();
  }

  void End(JobId id, ExitStatus exit) {
    std::lock_guard lock(mu);
    ExecEvent e;
    e.id = id;
    e.attempt = running.at(id);
    e.exit = std::move(exit);
    running.erase(id);
    events.push_back(e);
  }

  mutable std::mutex mu;
  std::map<JobId, int> running;
  std::vector<std::pair<JobId, bool>> starts;
  std::map<JobId, RunPlace> places;
  std::vector<JobId> stops;
  std::vector<ExecEvent> events;
  std::optional<BackendReport> report;
  bool launches = false;  // its runs' scripts start when the test says (Launch)
  void Launch(JobId id) {
    std::lock_guard lock(mu);
    ExecEvent e;
    e.kind = ExecEvent::Kind::kStarted;
    e.id = id;
    e.attempt = running.at(id);
    events.push_back(e);
  }
};

BackendReport Healthy(const std::string& cluster) {
  BackendReport r;
  r.cluster = cluster;
  r.nodes[cluster + "-n0"] = "";
  return r;
}

class LiveQueueBackendsTest : public ::testing::Test {
 protected:
  // A step and what it gave the outboxes carried out.
  void Step(Time now) {
    queue_->Step(now);
    queue_->WaitForDispatch();
  }
  void SetUp() override {
    store_ = std::move(JobStore::Open(dir_.path()).value());
    ClusterSpec spec;
    for (const char* c : {"east", "west"}) {
      PoolSpec pool;
      pool.name = c;
      if (std::string(c) == "east") pool.kind = east_kind_;
      pool.backend = "slurm";
      pool.slurm.conf = "/nonexistent/slurm.conf";  // never run: the executor is a fake
      spec.pools.push_back(pool);
      NodeSpec node;
      node.name = std::string(c) + "-n0";
      node.pool = c;
      node.gpus = 4;
      spec.nodes.push_back(node);
    }
    auto cluster = BuildLocalCluster(GpuInventory{"none", {}, {}}, spec, "host");
    ASSERT_TRUE(cluster.ok()) << cluster.status().message();
    Policy policy = NamedPolicy("sliced").value();
    policy.min_runtime = 0;
    policy.preempt_by_order = preempt_by_order_;
    auto queue = LiveQueue::Create(*cluster, policy, *store_, unused_, LiveQueueOptions{});
    ASSERT_TRUE(queue.ok()) << queue.status().message();
    queue_ = std::move(*queue);
    queue_->SetPoolExecutor(0, east_);
    queue_->SetPoolExecutor(1, west_);
    east_.report = Healthy("east");
    west_.report = Healthy("west");
    ASSERT_TRUE(queue_->Recover(now_).ok());
  }

  JobId Submit(int gpus, bool preemptible = false) {
    JobRequest r;
    r.command = {"true"};
    r.spec.gpus = gpus;
    r.spec.name = "t";
    r.spec.checkpointable = true;
    r.spec.preemptible = preemptible;
    const JobId id = store_->Submit(r, "alice", now_).value();
    queue_->Add(store_->Get(id).value());
    return id;
  }

  PoolKind east_kind_ = PoolKind::kOwned;
  bool preempt_by_order_ = true;
  testing::TempDir dir_;
  std::unique_ptr<JobStore> store_;
  FakeBackend east_, west_, unused_;
  std::unique_ptr<LiveQueue> queue_;
  Time now_ = Seconds(1000);
};

TEST_F(LiveQueueBackendsTest, NodeThatSlurmReportsDownTakesNoNewJobs) {
  east_.report->nodes["east-n0"] = "down, NOT_RESPONDING: Not responding";
  Step(now_);
  const JobId a = Submit(4);
  Step(now_ += kSecond);
  EXPECT_TRUE(west_.IsRunning(a));
  EXPECT_FALSE(east_.IsRunning(a));
  const nlohmann::json nodes = queue_->NodesJson()["nodes"];
  EXPECT_FALSE(nodes[0]["available"]);
  EXPECT_EQ(nodes[0]["unavailable"], "Slurm says down, NOT_RESPONDING: Not responding");
  EXPECT_TRUE(nodes[1]["available"]);
  // West is full now: the next job waits rather than go to the node that is down.
  const JobId b = Submit(1);
  Step(now_ += kSecond);
  EXPECT_FALSE(east_.IsRunning(b));
  const std::string why = queue_->WhyJson(b, now_)->dump();
  EXPECT_NE(why.find("node east-n0 (pool east) takes no new jobs: Slurm says down"),
            std::string::npos) << why;
  east_.report = Healthy("east");  // back
  Step(now_ += kSecond);
  Step(now_ += kSecond);
  EXPECT_TRUE(east_.IsRunning(b));
}

// Slices alone make room (no preemption by order), as in e2e.serve_slurm.slices.
class LiveQueueLaunchTest : public LiveQueueBackendsTest {
 protected:
  LiveQueueLaunchTest() { preempt_by_order_ = false; }
};

// A backend whose runs start some time after squeeze hands them over (a Slurm batch launch):
// a run's slice counts from its script's start, and a long wait for it is in its history.
TEST_F(LiveQueueLaunchTest, ASliceCountsFromTheLaunchTheBackendReports) {
  east_.launches = west_.launches = true;
  const Time slice = NamedPolicy("sliced").value().slice;
  const JobId a = Submit(4, true);
  const JobId b = Submit(4, true);
  Step(now_);
  FakeBackend& ran_a = east_.IsRunning(a) ? east_ : west_;
  ASSERT_TRUE(ran_a.IsRunning(a));
  const JobId c = Submit(4, true);  // waits; ranks ahead of both at a slice end (LAS)
  const Time start = now_;
  Step(start + slice);
  EXPECT_EQ(store_->Get(a).value().state, JobState::kRunning);  // neither script runs yet
  EXPECT_EQ(store_->Get(b).value().state, JobState::kRunning);
  ran_a.Launch(a);
  Step(start + slice + 10 * kSecond);
  const std::vector<JobEvent> events = store_->Events(a).value();
  bool noted = false;
  for (const JobEvent& e : events) {
    noted |= e.kind == "launched" &&
             e.text.find("its script started " +
                         std::to_string(WholeSeconds(slice + 10 * kSecond)) + " s after") == 0;
  }
  std::string history;
  for (const JobEvent& e : events) history += e.kind + ": " + e.text + "\n";
  EXPECT_TRUE(noted) << "job " << a << "'s history notes the wait for its launch:\n" << history;
  Step(start + 2 * slice + 9 * kSecond);
  EXPECT_EQ(store_->Get(a).value().state, JobState::kRunning);
  Step(start + 2 * slice + 10 * kSecond);
  const StoredJob yielded = store_->Get(a).value();
  EXPECT_EQ(yielded.state, JobState::kCheckpointing);
  EXPECT_NE(yielded.reason.find("slice ended; yields to " + std::to_string(c)), std::string::npos)
      << yielded.reason;
  EXPECT_EQ(store_->Get(b).value().state, JobState::kRunning);  // still not launched
}

TEST_F(LiveQueueBackendsTest, UnreachableControllerTakesItsPoolOutAndSaysSince) {
  const JobId a = Submit(4);
  Step(now_);
  FakeBackend& away = east_.IsRunning(a) ? east_ : west_;
  FakeBackend& other = &away == &east_ ? west_ : east_;
  away.report->reachable = false;
  away.report->error = "squeue --json: no answer within 8 s";
  away.report->unreachable_since = now_;
  const JobId b = Submit(1);
  Step(now_ += kSecond);
  EXPECT_TRUE(other.IsRunning(b));
  EXPECT_TRUE(away.IsRunning(a));  // left as it is
  const nlohmann::json pools = queue_->PoolsJson()["pools"];
  const nlohmann::json& pool = pools[&away == &east_ ? 0 : 1];
  EXPECT_FALSE(pool["controller"]["reachable"]);
  EXPECT_EQ(pool["controller"]["error"], "squeue --json: no answer within 8 s");
  EXPECT_TRUE(pool["controller"].contains("unreachable_since"));
  const LiveQueue::Gauges g = queue_->Snapshot();
  ASSERT_EQ(g.backends.size(), 2u);
  EXPECT_EQ(g.backends[&away == &east_ ? 0 : 1].reachable, false);
  EXPECT_EQ(g.backends[&away == &east_ ? 0 : 1].nodes_unavailable, 1);
}

TEST_F(LiveQueueBackendsTest, LostRunWaitsAgainFromItsCheckpointWithoutAFailure) {
  const JobId a = Submit(4);
  Step(now_);
  FakeBackend& ran = east_.IsRunning(a) ? east_ : west_;
  ExecEvent checkpoint;
  checkpoint.kind = ExecEvent::Kind::kCheckpoint;
  checkpoint.id = a;
  checkpoint.attempt = 1;
  checkpoint.checkpoint = "20";
  ran.events.push_back(checkpoint);
  ExitStatus lost;
  lost.code = -1;
  lost.lost = true;
  lost.error = "Slurm lost it: node east-n0 failed (down)";
  ran.End(a, lost);
  ran.report->nodes[ran.report->cluster + "-n0"] = "down";
  Step(now_ += kSecond);
  const StoredJob j = store_->Get(a).value();
  EXPECT_EQ(j.failures, 0);
  EXPECT_EQ(j.attempts, 2);  // started again at once, on the other cluster
  FakeBackend& other = &ran == &east_ ? west_ : east_;
  ASSERT_TRUE(other.IsRunning(a));
  EXPECT_TRUE(other.starts.back().second);  // resumes from the checkpoint
  EXPECT_EQ(queue_->Snapshot().counters.lost, 1);
  EXPECT_EQ(queue_->Snapshot().counters.failures, 0);
}

TEST_F(LiveQueueBackendsTest, UnknownJobsAreReportedAndLeftAlone) {
  east_.report->unknown_jobs = {"Slurm job 12 'squeeze-999999.1' RUNNING on east-n0"};
  Step(now_);
  const nlohmann::json pools = queue_->PoolsJson()["pools"];
  EXPECT_EQ(pools[0]["unknown_jobs"][0], "Slurm job 12 'squeeze-999999.1' RUNNING on east-n0");
  EXPECT_EQ(queue_->Snapshot().backends[0].unknown_jobs, 1);
  EXPECT_TRUE(east_.stops.empty());
}

// East is a spot pool on Slurm: a node Slurm takes away is a reclaim the scheduler learns from.
class LiveQueueSpotBackendTest : public LiveQueueBackendsTest {
 protected:
  LiveQueueSpotBackendTest() { east_kind_ = PoolKind::kSpot; }
};

TEST_F(LiveQueueSpotBackendTest, ANodeSlurmTakesAwayCountsAsAReclaim) {
  Step(now_);
  EXPECT_EQ(queue_->Snapshot().reclaims, 0);
  east_.report->nodes["east-n0"] = "down";
  Step(now_ += kSecond);
  EXPECT_EQ(queue_->Snapshot().reclaims, 1);
  EXPECT_FALSE(queue_->NodesJson()["nodes"][0]["available"]);
  Step(now_ += kSecond);  // still down: not counted again
  EXPECT_EQ(queue_->Snapshot().reclaims, 1);
  east_.report = Healthy("east");
  Step(now_ += kSecond);
  EXPECT_TRUE(queue_->NodesJson()["nodes"][0]["available"]);
  // A controller that does not answer is no reclaim.
  east_.report->reachable = false;
  east_.report->unreachable_since = now_;
  Step(now_ += kSecond);
  EXPECT_FALSE(queue_->NodesJson()["nodes"][0]["available"]);
  EXPECT_EQ(queue_->Snapshot().reclaims, 1);
}

// The backend is told the nodes and GPUs the core chose; where it runs the job on other GPUs
// (Slurm picks the indices on a node), the core, the store and the job's history follow it,
// and the GPUs it left take the next job.
TEST_F(LiveQueueBackendsTest, RunsTakeThePlacementTheBackendReports) {
  east_.report->nodes["east-n0"] = "";
  west_.report->nodes["west-n0"] = "down";  // all on east
  Step(now_);
  const JobId a = Submit(2);
  Step(now_ += kSecond);
  ASSERT_TRUE(east_.IsRunning(a));
  ASSERT_EQ(east_.places[a].nodes.size(), 1u);
  EXPECT_EQ(east_.places[a].nodes[0].name, "east-n0");
  EXPECT_EQ(east_.places[a].nodes[0].gpus, (std::vector<int>{0, 1}));
  east_.report->placed[a] = {{"east-n0", {2, 3}}};
  Step(now_ += kSecond);
  const StoredJob stored = store_->Get(a).value();
  EXPECT_EQ(queue_->cluster().NodeNamesOf(stored.gpus), std::vector<std::string>{"east-n0"});
  const nlohmann::json gpus = queue_->NodesJson()["nodes"][0]["gpu_detail"];
  EXPECT_EQ(gpus[0]["free_milli"], 1000);
  EXPECT_EQ(gpus[2]["free_milli"], 0);
  bool moved = false;
  const std::vector<JobEvent> events = store_->Events(a).value();
  for (const JobEvent& e : events) {
    moved |= e.kind == "moved" &&
             e.text == "Slurm gave it other GPUs: east-n0:2,3, not where squeeze placed it "
                       "(east-n0:0,1); squeeze follows Slurm";
  }
  EXPECT_TRUE(moved);
  const JobId b = Submit(2);
  Step(now_ += kSecond);
  ASSERT_TRUE(east_.IsRunning(b));
  EXPECT_EQ(east_.places[b].nodes[0].gpus, (std::vector<int>{0, 1}));
}

// GPUs that jobs squeeze did not submit hold are not free in its view until those jobs end;
// its own job there keeps running.
TEST_F(LiveQueueBackendsTest, GpusOthersHoldAreNotFreeUntilGivenBack) {
  west_.report->nodes["west-n0"] = "down";
  east_.report->foreign_gpus["east-n0"] = {0, 1, 2};
  east_.report->foreign_jobs = {"Slurm job 4 'train' RUNNING on east-n0"};
  Step(now_);
  const nlohmann::json node = queue_->NodesJson()["nodes"][0];
  EXPECT_EQ(node["gpus_held_by_others"], 3);
  EXPECT_EQ(node["free_gpus"], 1);
  EXPECT_TRUE(node["gpu_detail"][0]["held_by_others"]);
  const JobId two = Submit(2);
  Step(now_ += kSecond);
  EXPECT_FALSE(east_.IsRunning(two));
  east_.report->foreign_gpus.clear();
  east_.report->foreign_jobs.clear();
  Step(now_ += kSecond);
  Step(now_ += kSecond);
  EXPECT_TRUE(east_.IsRunning(two));
  EXPECT_FALSE(queue_->NodesJson()["nodes"][0].contains("gpus_held_by_others"));
}

}  // namespace
}  // namespace squeeze
