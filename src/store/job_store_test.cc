#include "store/job_store.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "store/request_json.h"

namespace squeeze {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/squeeze_store_test_XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

JobRequest FullRequest() {
  JobRequest r;
  JobSpec& s = r.spec;
  s.name = "train-llm";
  s.team = "vision";
  s.pool = "spot-a";
  s.urgency = Urgency::kHigh;
  s.gpus = 4;
  s.gpu_milli = 500;
  s.gpu_models = {"A100", "H100"};
  s.min_gpu_memory_mib = 40960;
  s.gpu_speeds = {{"V100", 1}, {"K80", 0.24}};
  s.topology = {TopologyMode::kRequired, "rack"};
  s.cpu_milli = 16000;
  s.memory_mib = 65536;
  s.preemptible = true;
  s.checkpointable = true;
  s.checkpoint_interval = 1800;
  s.checkpoint_cost = 45;
  s.checkpoint_stall = 5;
  s.fault_tolerant = true;
  s.restart_overhead = 33;
  s.estimate = 7200;
  s.deadline = 99999;
  s.regions = {"eu-west", "us-east"};
  s.data_gb = 250.5;
  r.command = {"bash", "-c", "echo \"hi\" && exit 3"};
  r.workdir = "/work/jobs/1";
  r.env = {{"A", "1"}, {"QUOTE", "x\"y\n"}};
  r.max_retries = 5;
  r.tasks = 8;
  s.time_limit = 3600;
  r.output_path = "out_%j.txt";
  r.error_path = "err_%x.txt";
  r.dependency = "afterok:3:4?singleton";
  s.dependencies = {{DependencyKind::kAfterOk, {3, 4}}, {DependencyKind::kSingleton, {}}};
  s.dependency_any = true;
  r.array = "0-9%2";
  r.array_size = 10;
  s.array_id = 7;
  s.array_task = 3;
  s.array_limit = 2;
  return r;
}

JobRequest Simple(const std::string& team = "t") {
  JobRequest r;
  r.spec.name = "j";
  r.spec.team = team;
  r.command = {"true"};
  return r;
}

void ExpectSameRequest(const JobRequest& a, const JobRequest& b) {
  EXPECT_EQ(a.spec.name, b.spec.name);
  EXPECT_EQ(a.spec.team, b.spec.team);
  EXPECT_EQ(a.spec.pool, b.spec.pool);
  EXPECT_EQ(a.spec.urgency, b.spec.urgency);
  EXPECT_EQ(a.spec.gpus, b.spec.gpus);
  EXPECT_EQ(a.spec.gpu_milli, b.spec.gpu_milli);
  EXPECT_EQ(a.spec.elastic.min, b.spec.elastic.min);
  EXPECT_EQ(a.spec.elastic.max, b.spec.elastic.max);
  EXPECT_EQ(a.spec.elastic.step, b.spec.elastic.step);
  EXPECT_EQ(a.spec.elastic.reference, b.spec.elastic.reference);
  EXPECT_EQ(ScalingText(a.spec.elastic.scaling), ScalingText(b.spec.elastic.scaling));
  EXPECT_EQ(a.spec.gpu_models, b.spec.gpu_models);
  EXPECT_EQ(a.spec.min_gpu_memory_mib, b.spec.min_gpu_memory_mib);
  EXPECT_EQ(a.spec.gpu_speeds, b.spec.gpu_speeds);
  EXPECT_EQ(TopologyRequestText(a.spec.topology), TopologyRequestText(b.spec.topology));
  EXPECT_EQ(a.spec.cpu_milli, b.spec.cpu_milli);
  EXPECT_EQ(a.spec.memory_mib, b.spec.memory_mib);
  EXPECT_EQ(a.spec.preemptible, b.spec.preemptible);
  EXPECT_EQ(a.spec.checkpointable, b.spec.checkpointable);
  EXPECT_EQ(a.spec.checkpoint_interval, b.spec.checkpoint_interval);
  EXPECT_EQ(a.spec.checkpoint_cost, b.spec.checkpoint_cost);
  EXPECT_EQ(a.spec.checkpoint_stall, b.spec.checkpoint_stall);
  EXPECT_EQ(a.spec.fault_tolerant, b.spec.fault_tolerant);
  EXPECT_EQ(a.spec.restart_overhead, b.spec.restart_overhead);
  EXPECT_EQ(a.spec.estimate, b.spec.estimate);
  EXPECT_EQ(a.spec.deadline, b.spec.deadline);
  EXPECT_EQ(a.spec.regions, b.spec.regions);
  EXPECT_EQ(a.spec.data_gb, b.spec.data_gb);
  EXPECT_EQ(a.command, b.command);
  EXPECT_EQ(a.workdir, b.workdir);
  EXPECT_EQ(a.env, b.env);
  EXPECT_EQ(a.max_retries, b.max_retries);
  EXPECT_EQ(a.tasks, b.tasks);
  EXPECT_EQ(a.spec.time_limit, b.spec.time_limit);
  EXPECT_EQ(a.output_path, b.output_path);
  EXPECT_EQ(a.error_path, b.error_path);
  EXPECT_EQ(a.dependency, b.dependency);
  EXPECT_EQ(a.array, b.array);
  EXPECT_EQ(a.array_size, b.array_size);
  EXPECT_EQ(a.spec.array_id, b.spec.array_id);
  EXPECT_EQ(a.spec.array_task, b.spec.array_task);
  EXPECT_EQ(a.spec.array_limit, b.spec.array_limit);
  EXPECT_EQ(a.spec.dependency_any, b.spec.dependency_any);
  ASSERT_EQ(a.spec.dependencies.size(), b.spec.dependencies.size());
  for (size_t i = 0; i < a.spec.dependencies.size(); ++i) {
    EXPECT_EQ(a.spec.dependencies[i].kind, b.spec.dependencies[i].kind);
    EXPECT_EQ(a.spec.dependencies[i].jobs, b.spec.dependencies[i].jobs);
  }
}

ListFilter Filter(std::vector<JobState> states, std::optional<std::string> owner,
                  std::optional<std::string> team, JobId after_id, int limit) {
  ListFilter f;
  f.states = std::move(states);
  f.owner = std::move(owner);
  f.team = std::move(team);
  f.after_id = after_id;
  f.limit = limit;
  return f;
}

std::unique_ptr<JobStore> MustOpen(const std::string& dir) {
  auto store = JobStore::Open(dir);
  EXPECT_TRUE(store.ok()) << store.status().message();
  return std::move(store).value();
}

TEST(JobStoreTest, EveryRequestFieldRoundTrips) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  const JobRequest full = FullRequest();
  auto id = store->Submit(full, "alice", 1000);
  ASSERT_TRUE(id.ok()) << id.status().message();
  auto defaults_id = store->Submit(JobRequest{}, "bob", 1001);
  ASSERT_TRUE(defaults_id.ok());

  auto got = store->Get(*id);
  ASSERT_TRUE(got.ok()) << got.status().message();
  ExpectSameRequest(got->request, full);
  EXPECT_EQ(got->id, *id);
  EXPECT_EQ(got->request.spec.id, *id);
  EXPECT_EQ(got->request.spec.submit_time, 1000);
  EXPECT_EQ(got->owner, "alice");
  EXPECT_EQ(got->state, JobState::kPending);
  EXPECT_EQ(got->submitted_at, 1000);
  EXPECT_FALSE(got->started_at || got->ended_at || got->exit_code || got->last_checkpoint);
  EXPECT_EQ(got->attempts, 0);
  EXPECT_TRUE(got->gpus.empty());

  auto defaults = store->Get(*defaults_id);
  ASSERT_TRUE(defaults.ok());
  ExpectSameRequest(defaults->request, JobRequest{});
}

// An array's tasks: one transaction, consecutive ids from the next id (the array's), each
// task's request as the caller makes it from that id; CountStates counts them by state.
TEST(JobStoreTest, AnArraysTasksAreStoredTogetherWithConsecutiveIds) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  ASSERT_TRUE(store->Submit(Simple(), "alice", 1).ok());
  auto first = store->SubmitArray(
      1000,
      [](JobId array, size_t i) {
        JobRequest r = Simple();
        r.spec.array_id = array;
        r.spec.array_task = static_cast<int>(2 * i);
        return r;
      },
      "alice", 2);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(*first, 2);
  for (JobId id : {JobId{2}, JobId{500}, JobId{1001}}) {
    auto task = store->Get(id);
    ASSERT_TRUE(task.ok());
    EXPECT_EQ(task->request.spec.array_id, 2);
    EXPECT_EQ(task->request.spec.array_task, 2 * (id - 2));
  }
  EXPECT_FALSE(store->Get(1002).ok());
  EXPECT_EQ(store->Submit(Simple(), "alice", 3).value(), 1002);
  ASSERT_TRUE(store->SetState(5, JobState::kCancelled, "x", 4).ok());
  auto counts = store->CountStates(2, 1001);
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ((*counts)[JobState::kPending], 999);
  EXPECT_EQ((*counts)[JobState::kCancelled], 1);
  EXPECT_FALSE(store->SubmitArray(0, [](JobId, size_t) { return JobRequest{}; }, "a", 5).ok());
}

TEST(JobStoreTest, RequestJsonKeepsAnElasticJobsRange) {
  JobRequest r = Simple();
  r.spec.elastic.min = r.spec.gpus = 2;
  r.spec.elastic.max = 16;
  r.spec.elastic.step = 2;
  r.spec.elastic.scaling = ParseScaling("1:10,4:35").value();
  Result<JobRequest> back = RequestFromJson(RequestToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectSameRequest(*back, r);
  EXPECT_TRUE(back->spec.elastic.enabled());
  // A stored range whose scaling is broken is an error, not a job of another shape.
  back = RequestFromJson(R"({"spec": {"name": "j", "elastic": {"min": 2, "max": 4,
      "scaling": "fast"}}, "command": ["true"]})");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("scaling 'fast'"), std::string::npos);
}

TEST(JobStoreTest, RequestJsonKeepsPoolRegionsAndDataGb) {
  JobRequest r = Simple();
  r.spec.pool = "a100";
  r.spec.regions = {"us-east"};
  r.spec.data_gb = 0.1 + 0.2;
  Result<JobRequest> back = RequestFromJson(RequestToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectSameRequest(*back, r);
  // A row stored before data_gb existed reads as no data to copy.
  back = RequestFromJson(
      R"({"spec": {"name": "j", "pool": "a100", "regions": ["us-east"]}, "command": ["true"]})");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->spec.data_gb, 0);
  EXPECT_EQ(back->spec.pool, "a100");
  EXPECT_EQ(back->spec.regions, (std::vector<std::string>{"us-east"}));
}

TEST(JobStoreTest, LifecycleFieldsAndEvents) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  const JobId id = *store->Submit(Simple(), "alice", 10);
  ASSERT_TRUE(store->RecordStart(id, 1, {2, 5}, 20).ok());
  ASSERT_TRUE(store->RecordCheckpoint(id, 30).ok());
  ASSERT_TRUE(store->RecordPreemption(id, 35).ok());
  ASSERT_TRUE(store->SetState(id, JobState::kCheckpointing, "preempted by 9", 35).ok());
  ASSERT_TRUE(store->RecordExit(id, 128 + 15, 40).ok());
  ASSERT_TRUE(store->SetState(id, JobState::kPending, "preempted by 9", 40).ok());
  ASSERT_TRUE(store->RecordStart(id, 2, {7}, 50).ok());
  ASSERT_TRUE(store->RecordExit(id, 0, 60).ok());
  ASSERT_TRUE(store->SetState(id, JobState::kDone, "", 60).ok());
  ASSERT_TRUE(store->AppendEvent(id, 61, "note", "hello").ok());

  auto r = *store->Get(id);
  EXPECT_EQ(r.state, JobState::kDone);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.preemptions, 1);
  EXPECT_EQ(r.gpus, (std::vector<int>{7}));
  EXPECT_EQ(r.started_at, 50);
  EXPECT_EQ(r.ended_at, 60);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.last_checkpoint, 30);
  EXPECT_EQ(r.waited, (20 - 10) + (50 - 40));  // both waits, summed
  EXPECT_EQ(r.ran, (40 - 20) + (60 - 50));     // both runs, summed
  EXPECT_EQ(r.gpu_ran, (40 - 20) * 2 + (60 - 50) * 1);  // each run times its GPUs
  EXPECT_EQ(r.ran_by_width, (std::map<int, Time>{{2, 40 - 20}, {1, 60 - 50}}));  // by width

  auto events = *store->Events(id);
  std::vector<std::string> kinds;
  for (const auto& e : events) kinds.push_back(e.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"submit", "start", "checkpoint", "preempt", "state",
                                             "exit", "state", "start", "exit", "state", "note"}));
  EXPECT_EQ(events[5].text, "killed by signal 15");
  EXPECT_EQ(events.back().at, 61);
  for (size_t i = 1; i < events.size(); ++i) EXPECT_LT(events[i - 1].seq, events[i].seq);
}

TEST(JobStoreTest, ACyclesStartsAreRecordedTogetherOrNotAtAll) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  const JobId a = *store->Submit(Simple(), "alice", 10);
  const JobId b = *store->Submit(Simple(), "bob", 10);
  ASSERT_TRUE(store->RecordStarts({{a, 1, {0}, "east"}, {b, 3, {1, 2}, ""}}, 20).ok());
  EXPECT_EQ(store->Get(a)->state, JobState::kRunning);
  EXPECT_EQ(store->Get(b)->attempts, 3);
  EXPECT_EQ(store->Get(b)->gpus, (std::vector<int>{1, 2}));
  EXPECT_EQ(store->Events(a)->back().text, "attempt 1 on GPUs [0] in pool east");

  const JobId c = *store->Submit(Simple(), "carol", 30);
  Status s = store->RecordStarts({{c, 1, {3}, ""}, {9999, 1, {4}, ""}}, 40);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("job 9999 not found"), std::string::npos) << s.message();
  EXPECT_EQ(store->Get(c)->state, JobState::kPending) << "a start of a failed batch was kept";
  EXPECT_EQ(store->Events(c)->size(), 1u);
}

// A scheduling step's writes go into one WriteBatch: unseen by readers until its commit, all
// stored by it, in order; another thread's write waits for the commit.
TEST(JobStoreTest, AWriteBatchCommitsTheStepsWritesTogether) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  const JobId a = *store->Submit(Simple(), "alice", 10);
  const JobId b = *store->Submit(Simple(), "bob", 10);
  auto batch = store->BeginWrites();
  ASSERT_TRUE(store->RecordCheckpoint(a, 20, "step 5").ok());
  ASSERT_TRUE(store->RecordRunEnd(a, RunEnd{0, JobState::kDone, "", false, 0, std::nullopt}, 21).ok());
  ASSERT_TRUE(store->AppendNodeEvent(22, "n0", "down", "controller away").ok());
  EXPECT_EQ(store->Get(a)->state, JobState::kPending) << "a reader saw an uncommitted write";
  std::atomic<bool> other_done{false};
  std::thread other([&] {
    (void)store->AppendEvent(b, 23, "note", "from another thread");
    other_done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(other_done) << "another thread wrote into the open batch";
  ASSERT_TRUE(batch.Commit().ok());
  other.join();
  EXPECT_EQ(store->Get(a)->state, JobState::kDone);
  EXPECT_EQ(*store->Get(a)->last_checkpoint, 20);
  EXPECT_EQ(store->Events(b)->back().text, "from another thread");
  EXPECT_EQ(store->NodeEvents(10)->back().node, "n0");
  // After the commit writes go the usual way, each durable when it returns.
  ASSERT_TRUE(store->AppendEvent(b, 30, "note", "after").ok());
  auto reopened = MustOpen(dir.path());
  EXPECT_EQ(reopened->Events(b)->back().text, "after");
  EXPECT_EQ(reopened->Get(a)->state, JobState::kDone);
}

// A caller that keeps what it shows of some jobs lists them without decoding their requests.
TEST(JobStoreTest, ListLeavesOutTheRequestsItIsToldToNotWant) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  const JobId a = *store->Submit(FullRequest(), "alice", 10);
  const JobId b = *store->Submit(FullRequest(), "bob", 10);
  ASSERT_TRUE(store->SetState(a, JobState::kDone, "", 20).ok());
  ListFilter filter;
  std::vector<std::pair<JobId, std::string>> asked;
  filter.wants_request = [&](const StoredJob& row) {
    asked.emplace_back(row.id, row.owner);
    return !IsFinished(row.state);
  };
  auto jobs = store->List(filter);
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ(asked, (std::vector<std::pair<JobId, std::string>>{{a, "alice"}, {b, "bob"}}));
  EXPECT_TRUE((*jobs)[0].request.command.empty()) << "a declined request was decoded";
  EXPECT_EQ((*jobs)[0].state, JobState::kDone);
  EXPECT_EQ((*jobs)[0].request.spec.id, a);
  EXPECT_EQ((*jobs)[1].request.spec.name, "train-llm");
}

// The dashboard's ended jobs: the latest end first, whatever their ids, in one short query.
TEST(JobStoreTest, ListsEndedJobsTheLatestEndFirst) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  std::vector<JobId> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(*store->Submit(Simple(), "alice", 10));
  ASSERT_TRUE(store->SetState(ids[0], JobState::kDone, "", 500).ok());  // a long one, lowest id
  ASSERT_TRUE(store->SetState(ids[1], JobState::kFailed, "exit 1", 100).ok());
  ASSERT_TRUE(store->SetState(ids[2], JobState::kCancelled, "", 300).ok());
  ASSERT_TRUE(store->SetState(ids[3], JobState::kDone, "", 300).ok());  // the same end as 2
  ListFilter filter = Filter({JobState::kDone, JobState::kFailed, JobState::kCancelled}, {}, {},
                             0, 3);
  filter.latest_end_first = true;
  auto jobs = store->List(filter);
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  std::vector<JobId> listed;
  for (const StoredJob& j : *jobs) listed.push_back(j.id);
  EXPECT_EQ(listed, (std::vector<JobId>{ids[0], ids[3], ids[2]}));
  filter.states.clear();  // every state: still only the ended ones (ids[4] waits)
  filter.limit = 0;
  jobs = store->List(filter);
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 4u);
  EXPECT_EQ(jobs->back().id, ids[1]);
}

TEST(JobStoreTest, RunEventsOfTheJobsActiveInARange) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  const JobId before = *store->Submit(Simple(), "alice", 10);  // ran and ended before 100
  ASSERT_TRUE(store->RecordStart(before, 1, {0}, 20, "owned").ok());
  ASSERT_TRUE(store->RecordExit(before, 0, 30).ok());
  ASSERT_TRUE(store->SetState(before, JobState::kDone, "", 30).ok());
  const JobId through = *store->Submit(Simple(), "bob", 40);  // runs through [100, 200)
  ASSERT_TRUE(store->RecordStart(through, 1, {1, 2}, 50, "spot").ok());
  ASSERT_TRUE(store->AppendEvent(through, 60, "note", "not a run event").ok());
  const JobId inside = *store->Submit(Simple(), "carol", 90);  // starts in the range
  ASSERT_TRUE(store->RecordStart(inside, 1, {3}, 150).ok());
  ASSERT_TRUE(store->RecordExit(inside, 0, 250).ok());  // after the range: not returned

  auto events = store->RunEvents(100, 200);
  ASSERT_TRUE(events.ok()) << events.status().message();
  std::vector<std::string> got;
  for (const JobEvent& e : *events) got.push_back(std::to_string(e.job) + " " + e.kind);
  EXPECT_EQ(got, (std::vector<std::string>{std::to_string(through) + " submit",
                                           std::to_string(through) + " start",
                                           std::to_string(inside) + " submit",
                                           std::to_string(inside) + " start"}));
  EXPECT_EQ((*events)[1].text, "attempt 1 on GPUs [1,2] in pool spot");
  EXPECT_EQ((*events)[3].text, "attempt 1 on GPUs [3]");
}

TEST(JobStoreTest, NodeEventsKeepTheirOrderAndSurviveAReopen) {
  TempDir dir;
  {
    auto store = MustOpen(dir.path());
    ASSERT_TRUE(store->AppendNodeEvent(100, "spot-0", "reclaim", "130").ok());
    ASSERT_TRUE(store->AppendNodeEvent(200, "spot-0", "return", "").ok());
    ASSERT_TRUE(store->AppendNodeEvent(300, "spot-1", "reclaim", "330").ok());
  }
  auto store = MustOpen(dir.path());
  auto all = store->NodeEvents(10);
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0], (NodeEvent{1, 100, "spot-0", "reclaim", "130"}));
  EXPECT_EQ((*all)[2].node, "spot-1");
  auto last = store->NodeEvents(2);  // the last two, oldest first
  ASSERT_TRUE(last.ok());
  ASSERT_EQ(last->size(), 2u);
  EXPECT_EQ((*last)[0].kind, "return");
  EXPECT_EQ((*last)[1].at, 300);
}

TEST(JobStoreTest, UpdatesOfUnknownJobFail) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  Status s = store->SetState(42, JobState::kDone, "", 1);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("job 42 not found"), std::string::npos) << s.message();
  EXPECT_FALSE(store->AppendEvent(42, 1, "note", "x").ok());
  EXPECT_FALSE(store->Get(42).ok());
}

TEST(JobStoreTest, IdsAreMonotonic) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  JobId last = 0;
  for (int i = 0; i < 50; ++i) {
    const JobId id = *store->Submit(Simple(), "a", i);
    EXPECT_GT(id, last);
    last = id;
  }
}

TEST(JobStoreTest, ConcurrentSubmitsAreAllStoredWithDistinctIds) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  constexpr int kThreads = 8, kEach = 500;
  std::vector<std::vector<JobId>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto id = store->Submit(Simple("team" + std::to_string(t)), "u", i);
        ASSERT_TRUE(id.ok()) << id.status().message();
        ids[t].push_back(*id);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<JobId> all;
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_TRUE(std::is_sorted(ids[t].begin(), ids[t].end()));
    for (JobId id : ids[t]) {
      all.insert(id);
      auto r = store->Get(id);
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r->request.spec.team, "team" + std::to_string(t));
    }
  }
  EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kEach));
  auto counts = *store->CountByState();
  EXPECT_EQ(counts[JobState::kPending], kThreads * kEach);
}

TEST(JobStoreTest, ReopenSeesEverything) {
  TempDir dir;
  std::vector<JobId> ids;
  {
    auto store = MustOpen(dir.path());
    for (int i = 0; i < 20; ++i) ids.push_back(*store->Submit(Simple(), "a", i));
    ASSERT_TRUE(store->SetState(ids[3], JobState::kFailed, "exit 1", 30).ok());
    ASSERT_TRUE(store->RecordStart(ids[4], 1, {0}, 31).ok());
  }
  auto store = MustOpen(dir.path());
  EXPECT_EQ(store->List(Filter({}, {}, {}, 0, 0))->size(), 20u);
  auto unfinished = *store->LoadUnfinished();
  EXPECT_EQ(unfinished.size(), 19u);
  EXPECT_EQ(store->Get(ids[4])->state, JobState::kRunning);
  EXPECT_EQ(store->Get(ids[3])->reason, "exit 1");
  EXPECT_GT(*store->Submit(Simple(), "a", 99), ids.back());
}

TEST(JobStoreTest, ListFiltersAndPages) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  std::vector<JobId> ids;
  for (int i = 0; i < 30; ++i) {
    ids.push_back(*store->Submit(Simple(i % 2 ? "odd" : "even"), i % 3 ? "bob" : "alice", i));
  }
  ASSERT_TRUE(store->SetState(ids[0], JobState::kCancelled, "", 40).ok());
  ASSERT_TRUE(store->RecordStart(ids[1], 1, {0}, 40).ok());

  auto alice = *store->List(Filter({}, "alice", {}, 0, 0));
  EXPECT_EQ(alice.size(), 10u);
  for (const auto& r : alice) EXPECT_EQ(r.owner, "alice");
  auto odd_bob = *store->List(Filter({}, "bob", "odd", 0, 0));
  EXPECT_EQ(odd_bob.size(), 10u);
  auto active = *store->List(Filter({JobState::kCancelled, JobState::kRunning}, {}, {}, 0, 100));
  ASSERT_EQ(active.size(), 2u);
  EXPECT_EQ(active[0].id, ids[0]);
  EXPECT_EQ(active[1].id, ids[1]);

  std::vector<JobId> paged;
  JobId after = 0;
  while (true) {
    auto page = *store->List(Filter({}, {}, {}, after, 7));
    if (page.empty()) break;
    EXPECT_LE(page.size(), 7u);
    for (const auto& r : page) paged.push_back(r.id);
    after = page.back().id;
  }
  EXPECT_EQ(paged, ids);
}

TEST(JobStoreTest, NonDatabaseFileIsAClearError) {
  TempDir dir;
  std::ofstream(dir.path() + "/squeeze.db") << std::string(8192, 'x');
  auto store = JobStore::Open(dir.path());
  ASSERT_FALSE(store.ok());
  const std::string m = store.status().message();
  EXPECT_NE(m.find(dir.path() + "/squeeze.db"), std::string::npos) << m;
  EXPECT_NE(m.find("not a database"), std::string::npos) << m;
}

TEST(JobStoreTest, UncreatableDataDirIsAClearError) {
  TempDir dir;
  std::ofstream(dir.path() + "/file") << "x";
  const std::string bad = dir.path() + "/file/data";
  auto store = JobStore::Open(bad);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("cannot create data directory " + bad),
            std::string::npos)
      << store.status().message();
}

// The child submits from 4 threads and writes each acknowledged id to a pipe; it is killed
// with SIGKILL mid-burst, and every id it acknowledged must be in the reopened store.
void CheckAcknowledgedSubmitsSurviveKill9(bool fsync_each_commit) {
  TempDir dir;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    auto store = JobStore::Open(dir.path(), {.fsync_each_commit = fsync_each_commit});
    if (!store.ok()) _exit(2);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        for (int i = 0;; ++i) {
          auto id = (*store)->Submit(Simple(), "crash", i);
          if (!id.ok()) _exit(3);
          const JobId v = *id;
          if (write(fds[1], &v, sizeof v) != sizeof v) _exit(4);
        }
      });
    }
    for (auto& th : threads) th.join();
    _exit(0);
  }
  close(fds[1]);
  std::vector<JobId> acked;
  JobId v;
  while (acked.size() < 600 && read(fds[0], &v, sizeof v) == sizeof v) acked.push_back(v);
  ASSERT_EQ(kill(child, SIGKILL), 0);
  while (read(fds[0], &v, sizeof v) == sizeof v) acked.push_back(v);
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;
  ASSERT_GE(acked.size(), 600u);

  auto store = MustOpen(dir.path());
  for (JobId id : acked) {
    auto r = store->Get(id);
    ASSERT_TRUE(r.ok()) << "acknowledged job " << id << " lost: " << r.status().message();
    EXPECT_EQ(r->owner, "crash");
  }
}

TEST(JobStoreTest, AcknowledgedSubmitsSurviveKill9) { CheckAcknowledgedSubmitsSurviveKill9(true); }

// synchronous=NORMAL: the WAL is not fsynced per commit, yet a process crash loses nothing.
TEST(JobStoreTest, AcknowledgedSubmitsSurviveKill9WithoutFsync) {
  CheckAcknowledgedSubmitsSurviveKill9(false);
}

}  // namespace
}  // namespace squeeze

namespace squeeze {
namespace {

TEST(JobStoreTest, RunEndRecordsExitStateAndCountsInOneStep) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  const JobId id = *store->Submit(Simple(), "alice", 10);
  ASSERT_TRUE(store->RecordStart(id, 1, {0}, 20).ok());
  ASSERT_TRUE(store->RecordCheckpoint(id, 25, "step 40").ok());
  RunEnd preempted{128 + 15, JobState::kPending, "preempted for 9", true, 0, std::nullopt};
  ASSERT_TRUE(store->RecordRunEnd(id, preempted, 30).ok());
  ASSERT_TRUE(store->RecordStart(id, 2, {1}, 40).ok());
  RunEnd failed{3, JobState::kPending, "exit 3; retry 1 of 2", false, 1, Time{70}};
  ASSERT_TRUE(store->RecordRunEnd(id, failed, 50).ok());

  auto r = *store->Get(id);
  EXPECT_EQ(r.state, JobState::kPending);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.preemptions, 1);
  EXPECT_EQ(r.failures, 1);
  EXPECT_EQ(r.not_before, 70);
  EXPECT_EQ(r.reason, "exit 3; retry 1 of 2");
  auto events = *store->Events(id);
  bool saw_label = false;
  for (const auto& e : events) {
    saw_label |= e.text == "checkpoint saved" && e.detail == "checkpoint saved: step 40";
  }
  EXPECT_TRUE(saw_label);
  EXPECT_EQ(events.back().kind, "end");
  EXPECT_EQ(events.back().text, "exit code 3 -> pending: exit 3; retry 1 of 2");
  EXPECT_FALSE(store->RecordRunEnd(id + 100, failed, 60).ok());
}

TEST(JobStoreTest, OpensAVersionOneStoreAndAddsTheRetryColumns) {
  TempDir dir;
  {
    auto opened = SqliteDb::Open(dir.path() + "/squeeze.db");
    ASSERT_TRUE(opened.ok());
    auto db = std::move(opened).value();
    ASSERT_TRUE(db->Exec(R"sql(
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (1);
CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL, team TEXT NOT NULL,
  name TEXT NOT NULL, urgency INTEGER NOT NULL, gpus INTEGER NOT NULL, state TEXT NOT NULL,
  submitted_at INTEGER NOT NULL, started_at INTEGER, ended_at INTEGER, exit_code INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0, preemptions INTEGER NOT NULL DEFAULT 0,
  last_checkpoint INTEGER, reason TEXT NOT NULL DEFAULT '', run_gpus TEXT NOT NULL DEFAULT '[]',
  request TEXT NOT NULL);
CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, job_id INTEGER NOT NULL,
  at INTEGER NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL);
INSERT INTO jobs(owner, team, name, urgency, gpus, state, submitted_at, request)
  VALUES ('bob', 'ml', 'old', 1, 1, 'pending', 5, '{"command":["true"]}');
INSERT INTO jobs(owner, team, name, urgency, gpus, state, submitted_at, started_at, attempts,
  request) VALUES ('bob', 'ml', 'ran', 1, 1, 'running', 5, 12, 1, '{"command":["true"]}');
)sql").ok());
  }
  auto store = MustOpen(dir.path());
  auto old = store->Get(1);
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->owner, "bob");
  EXPECT_EQ(old->waited, 0);
  EXPECT_EQ(store->Get(2)->waited, Seconds(12 - 5));  // the wait before its one run, from 3
  EXPECT_EQ(old->submitted_at, Seconds(5));  // seconds in version 4 and before
  EXPECT_EQ(store->Get(2)->started_at, Seconds(12));
  EXPECT_EQ(old->failures, 0);
  EXPECT_FALSE(old->not_before.has_value());
  RunEnd failed{1, JobState::kFailed, "exit 1", false, 1, std::nullopt};
  ASSERT_TRUE(store->RecordRunEnd(1, failed, 9).ok());
  EXPECT_EQ(store->Get(1)->failures, 1);
}

}  // namespace
}  // namespace squeeze

namespace squeeze {
namespace {

// Version 4 kept seconds; 5 keeps milliseconds: every time and duration is converted once.
TEST(JobStoreTest, OpensAVersionFourStoreAndKeepsItsTimes) {
  TempDir dir;
  {
    auto store = MustOpen(dir.path());  // a store of today's schema, made a version 4 below
  }
  {
    auto db = std::move(SqliteDb::Open(dir.path() + "/squeeze.db")).value();
    ASSERT_TRUE(db->Exec(R"sql(
DELETE FROM schema_version; INSERT INTO schema_version VALUES (4);
INSERT INTO jobs(owner, team, name, urgency, gpus, state, submitted_at, started_at, ended_at,
  last_checkpoint, not_before, waited, ran, request)
  VALUES ('bob', 'ml', 'old', 1, 1, 'pending', 100, 130, 190, 170, 250, 30, 60,
          '{"spec": {"checkpoint_interval": 600, "time_limit": 3600}, "command": ["true"]}');
INSERT INTO events(job_id, at, kind, text) VALUES (1, 100, 'submit', 'submitted by bob');
INSERT INTO node_events(at, node, kind, text) VALUES (140, 'n0', 'down', 'away');
)sql").ok());
  }
  auto store = MustOpen(dir.path());
  auto job = store->Get(1);
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->submitted_at, Seconds(100));
  EXPECT_EQ(job->started_at, Seconds(130));
  EXPECT_EQ(job->ended_at, Seconds(190));
  EXPECT_EQ(job->last_checkpoint, Seconds(170));
  EXPECT_EQ(job->not_before, Seconds(250));
  EXPECT_EQ(job->waited, Seconds(30));
  EXPECT_EQ(job->ran, Seconds(60));
  EXPECT_EQ(job->request.spec.checkpoint_interval, 10 * kMinute);  // the request keeps seconds
  EXPECT_EQ(job->request.spec.time_limit, kHour);
  EXPECT_EQ(store->Events(1)->at(0).at, Seconds(100));
  EXPECT_EQ(store->NodeEvents(10)->at(0).at, Seconds(140));
  // Opened again, it is not converted twice.
  store.reset();
  store = MustOpen(dir.path());
  EXPECT_EQ(store->Get(1)->submitted_at, Seconds(100));
}

// The daemon's times are finer than a second: a moment between two seconds is kept as it is,
// and so is a request's duration that is not a whole number of seconds.
TEST(JobStoreTest, KeepsTimesBetweenSeconds) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  const Time submit = Seconds(1'790'000'000) + kSecond / 4;
  const Time start = submit + 3 * kSecond / 2;
  JobRequest r = Simple();
  r.spec.checkpoint_cost = 5 * kSecond / 2;
  r.spec.time_limit = kHour + kSecond / 8;
  const JobId id = *store->Submit(r, "alice", submit);
  ASSERT_TRUE(store->RecordStart(id, 1, {0}, start).ok());
  auto job = store->Get(id);
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->submitted_at, submit);
  EXPECT_EQ(job->started_at, start);
  EXPECT_EQ(job->waited, start - submit);
  EXPECT_EQ(job->request.spec.checkpoint_cost, 5 * kSecond / 2);
  EXPECT_EQ(job->request.spec.time_limit, kHour + kSecond / 8);
  EXPECT_EQ(store->Events(id)->back().at, start);
}

TEST(JobStoreTest, ForEachUnfinishedStreamsInIdOrderAndStopsAtAnError) {
  TempDir dir;
  auto store = MustOpen(dir.path());
  std::vector<JobId> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(*store->Submit(Simple(), "alice", 10 + i));
  ASSERT_TRUE(store->SetState(ids[1], JobState::kDone, "", 20).ok());
  std::vector<JobId> seen;
  ASSERT_TRUE(store->ForEachUnfinished([&](StoredJob&& j) {
    seen.push_back(j.id);
    return Status::Ok();
  }).ok());
  EXPECT_EQ(seen, (std::vector<JobId>{ids[0], ids[2], ids[3], ids[4]}));
  seen.clear();
  Status s = store->ForEachUnfinished([&](StoredJob&& j) {
    seen.push_back(j.id);
    return seen.size() == 2 ? Status::Error("enough") : Status::Ok();
  });
  EXPECT_EQ(s.message(), "enough");
  EXPECT_EQ(seen.size(), 2u);
}

}  // namespace
}  // namespace squeeze
