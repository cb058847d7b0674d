// The API's reads of the live queue (nodes, pools, held-but-idle jobs, the gauges of
// /metrics) are answered from the view the last step published: a step that hangs in its
// backend (an sbatch or squeue taking its full timeout) holds the scheduling lock, and the
// reads do not wait for it. The real local executor and store; the backend's hang is made by
// holding the executor's Poll (the one fault here that cannot be caused on this machine
// without a Slurm cluster).
#include <atomic>
#include <filesystem>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "core/testing/temp_dir.h"
#include "exec/local_executor.h"
#include "serve/live_queue.h"

namespace squeeze {
namespace {

// Forwards to a real executor; Poll (Hold) or Start (HoldStart) can be held until Release.
class HeldPollExecutor : public Executor {
 public:
  explicit HeldPollExecutor(Executor& inner) : inner_(inner) {}
  void Hold() {
    std::lock_guard l(m_);
    held_ = true;
  }
  void HoldStart() {
    std::lock_guard l(m_);
    start_held_ = true;
  }
  bool InStart() const { return in_start_; }
  void Release() {
    {
      std::lock_guard l(m_);
      held_ = start_held_ = false;
    }
    cv_.notify_all();
  }
  bool InPoll() const { return in_poll_; }

  std::vector<ExecEvent> Poll(Time now) override {
    std::unique_lock l(m_);
    in_poll_ = held_;
    cv_.wait(l, [&] { return !held_; });
    in_poll_ = false;
    l.unlock();
    return inner_.Poll(now);
  }
  Result<RunInfo> Start(JobId id, int attempt, const JobRequest& request,
                        const RunPlace& place, bool resume) override {
    std::unique_lock l(m_);
    in_start_ = start_held_;
    cv_.wait(l, [&] { return !start_held_; });
    in_start_ = false;
    l.unlock();
    return inner_.Start(id, attempt, request, place, resume);
  }
  Status RequestCheckpoint(JobId id) override { return inner_.RequestCheckpoint(id); }
  Status Stop(JobId id, Time now, Time grace) override { return inner_.Stop(id, now, grace); }
  Result<std::vector<RunInfo>> Reattach() override { return inner_.Reattach(); }
  Status CheckRunnable(const JobRequest& r) const override { return inner_.CheckRunnable(r); }
  bool IsRunning(JobId id) const override { return inner_.IsRunning(id); }
  size_t RunningCount() const override { return inner_.RunningCount(); }

 private:
  Executor& inner_;
  std::mutex m_;
  std::condition_variable cv_;
  bool held_ = false, start_held_ = false;
  std::atomic<bool> in_poll_{false}, in_start_{false};
};

// A live queue of fifo on 2 virtual GPUs over the real store and local executor, its backend
// held at will.
struct HeldQueue {
  testing::TempDir dir;
  std::unique_ptr<JobStore> store = std::move(JobStore::Open(dir.path()).value());
  LocalExecutor local{ExecutorOptions{dir.path(), "", 5000}};
  HeldPollExecutor held{local};
  std::unique_ptr<LiveQueue> q =
      LiveQueue::Create(BuildLocalCluster(GpuInventory{"virtual", VirtualGpus("2").value(), {}},
                                          std::nullopt, "testhost")
                            .value(),
                        NamedPolicy("fifo").value(), *store, held, LiveQueueOptions{})
          .value();
};

TEST(LiveQueueReadsTest, ReadsDoNotWaitForAStepHeldInItsBackend) {
  HeldQueue setup;
  auto& [dir, store, local, held, q] = setup;
  Time now = Seconds(1'800'000'000);
  JobRequest r;
  r.command = {"sleep", "30"};
  r.spec.gpus = 1;
  r.spec.name = "holds-a-gpu";
  const JobId id = store->Submit(r, "alice", now).value();
  q->Add(store->Get(id).value());
  for (int i = 0; i < 100 && store->Get(id).value().state != JobState::kRunning; ++i) {
    q->Step(now);
    now += kSecond;
  }
  ASSERT_EQ(store->Get(id).value().state, JobState::kRunning);

  held.Hold();
  std::thread step([&] { q->Step(now); });
  for (int i = 0; i < 500 && !held.InPoll(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(held.InPoll()) << "the step never reached the backend";
  // Each read in its own thread, so that one that waited for the step could not hang the test.
  auto reads = std::async(std::launch::async, [&] {
    return std::make_tuple(q->NodesJson(), q->PoolsJson(), q->HeldIdleJson(), q->Snapshot());
  });
  const bool answered = reads.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  const bool step_still_held = held.InPoll();
  held.Release();
  step.join();
  ASSERT_TRUE(answered) << "the reads waited for the step";
  EXPECT_TRUE(step_still_held) << "the step ended before the reads answered: nothing was shown";
  const auto [nodes, pools, idle, gauges] = reads.get();
  EXPECT_EQ(gauges.running_by_urgency.at("normal"), 1);
  EXPECT_EQ(gauges.gpus_idle, 1);
  EXPECT_EQ(nodes["nodes"][0]["gpu_detail"][0]["free_milli"], 0);  // the running job's GPU
  EXPECT_TRUE(pools.is_object() || pools.is_array());
  EXPECT_TRUE(idle["jobs"].empty());
  ASSERT_FALSE(q->Cancel(Principal{"root", "admin", true}, id, now).error);
  for (int i = 0; i < 100 && store->Get(id).value().state != JobState::kCancelled; ++i) {
    q->Step(now);
    now += kSecond;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(store->Get(id).value().state, JobState::kCancelled);
}

// A start that hangs in its backend (an sbatch at its timeout) is carried out by the outbox: the
// step returns, and the reads, `why` and a cancel answer meanwhile. The cancel waits for the
// start and then stops the run, which ends cancelled.
TEST(LiveQueueReadsTest, AStartHeldInItsBackendHoldsUpNeitherTheStepNorTheApi) {
  HeldQueue setup;
  auto& [dir, store, local, held, q] = setup;
  Time now = Seconds(1'800'000'000);
  JobRequest big;
  big.command = {"sleep", "30"};
  big.spec.gpus = 2;
  const JobId first = store->Submit(big, "alice", now).value();
  JobRequest small = big;
  small.spec.gpus = 1;
  const JobId second = store->Submit(small, "alice", now).value();
  q->Add(store->Get(first).value());
  q->Add(store->Get(second).value());

  held.HoldStart();
  auto step = std::async(std::launch::async, [&] { return q->Step(now); });
  const bool stepped = step.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  for (int i = 0; i < 500 && !held.InStart(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const bool start_held = held.InStart();
  auto api = std::async(std::launch::async, [&] {
    return std::make_tuple(q->Snapshot(), q->WhyJson(second, now),
                           q->Cancel(Principal{"alice", "", false}, first, now));
  });
  const bool answered = api.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  const bool still_held = held.InStart();
  held.Release();
  ASSERT_TRUE(stepped) << "the step waited for the start in its backend";
  ASSERT_TRUE(start_held) << "the start never reached the backend";
  ASSERT_TRUE(answered) << "the API waited for the start";
  EXPECT_TRUE(still_held) << "the start was let go before the API answered: nothing was shown";
  const auto [gauges, why, cancel] = api.get();
  EXPECT_EQ(store->Get(first).value().attempts, 1) << "the start was not recorded before it went";
  EXPECT_EQ(gauges.running_by_urgency.at("normal"), 1);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->dump().find("GPU"), std::string::npos) << why->dump();
  ASSERT_FALSE(cancel.error) << cancel.value.dump();
  EXPECT_EQ(cancel.value["state"], "cancelling") << "a job whose start is on its way was taken "
                                                   "for one that never ran";
  for (int i = 0; i < 200 && store->Get(first).value().state != JobState::kCancelled; ++i) {
    q->Step(now += kSecond);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(store->Get(first).value().state, JobState::kCancelled);
  EXPECT_TRUE(std::filesystem::exists(PathsOf(dir.path(), first, 1).run))
      << "the run the cancel waited for never started";
  EXPECT_FALSE(local.IsRunning(first)) << "the cancelled run was not stopped";
}

// A step whose commit waits on the store (its database locked by another process: a backup, a
// slow disk) holds no lock while it waits: it decided under the scheduling lock, published what
// it decided, and waits in the journal. The reads, `why` among them, show the new state; an API
// call that changes nothing answers at once; and the start it decided is not carried out before
// its record is durable.
TEST(LiveQueueReadsTest, AStepWaitingOnTheStoreHoldsNoLockAndStartsNothingUnrecorded) {
  HeldQueue setup;
  auto& [dir, store, local, held, q] = setup;
  Time now = Seconds(1'800'000'000);
  JobRequest r;
  r.command = {"sleep", "1"};
  r.spec.gpus = 2;
  r.spec.estimate = 10 * kMinute;
  const JobId first = store->Submit(r, "alice", now).value();
  r.spec.gpus = 1;
  const JobId second = store->Submit(r, "bob", now).value();
  q->Add(store->Get(first).value());
  q->Add(store->Get(second).value());
  for (int i = 0; i < 100 && store->Get(first).value().state != JobState::kRunning; ++i) {
    q->Step(now);
    now += kSecond;
  }
  ASSERT_EQ(store->Get(first).value().state, JobState::kRunning);
  ASSERT_TRUE(q->WhyJson(second, now).has_value());  // whys asked: publications carry a copy
  q->Step(now);
  ASSERT_EQ(store->Get(first).value().state, JobState::kRunning) << "it ended too soon";
  q->WaitForDispatch();  // its run has started
  const std::string exit_file = PathsOf(dir.path(), first, 1).exit;
  for (int i = 0; i < 300 && !std::filesystem::exists(exit_file); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(std::filesystem::exists(exit_file)) << "the first job never ended";

  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path() + "/squeeze.db").c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  // Records the first job's end and the second one's start, and waits for the store.
  auto step = std::async(std::launch::async, [&] { return q->Step(now + kSecond); });
  const bool step_waits = step.wait_for(std::chrono::milliseconds(500)) == std::future_status::timeout;
  auto reads = std::async(std::launch::async, [&] {
    return std::make_tuple(q->WhyJson(second, now + kSecond), q->Snapshot(),
                           q->Cancel(Principal{"bob", "", false}, 999, now + kSecond));
  });
  const bool answered = reads.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  const bool step_still_waits = step.wait_for(std::chrono::seconds(0)) == std::future_status::timeout;
  const bool started_unrecorded = std::filesystem::exists(PathsOf(dir.path(), second, 1).run);
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  step.get();
  ASSERT_TRUE(step_waits) << "the step did not wait for the store: nothing was shown";
  ASSERT_TRUE(answered) << "why, the reads or a cancel waited for the step's commit";
  EXPECT_TRUE(step_still_waits) << "the step ended before the reads answered";
  EXPECT_FALSE(started_unrecorded) << "a start was carried out before its record was durable";
  const auto [why, gauges, cancel] = reads.get();
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ((*why)["state"], "running") << "the step's decision was not published: " << why->dump();
  EXPECT_EQ(gauges.running_by_urgency.at("normal"), 1);
  ASSERT_TRUE(cancel.error.has_value());
  EXPECT_EQ(cancel.error->http_status, 404);
  EXPECT_EQ(store->Get(first).value().state, JobState::kDone);
  EXPECT_EQ(store->Get(second).value().state, JobState::kRunning);
  q->WaitForDispatch();
  EXPECT_TRUE(std::filesystem::exists(PathsOf(dir.path(), second, 1).run))
      << "the start was not carried out once recorded";
}

}  // namespace
}  // namespace squeeze
