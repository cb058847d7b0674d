// The API's reads of the live queue (nodes, pools, held-but-idle jobs, the gauges of
// /metrics) are answered from the view the last step published: a step that hangs in its
// backend (an sbatch or squeue taking its full timeout) holds the scheduling lock, and the
// reads do not wait for it. The real local executor and store; the backend's hang is made by
// holding the executor's Poll (the one fault here that cannot be caused on this machine
// without a Slurm cluster).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "core/testing/temp_dir.h"
#include "exec/local_executor.h"
#include "serve/live_queue.h"

namespace squeeze {
namespace {

// Forwards to a real executor; Poll can be held until Release.
class HeldPollExecutor : public Executor {
 public:
  explicit HeldPollExecutor(Executor& inner) : inner_(inner) {}
  void Hold() {
    std::lock_guard l(m_);
    held_ = true;
  }
  void Release() {
    {
      std::lock_guard l(m_);
      held_ = false;
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
                        const std::vector<int>& gpus, bool resume) override {
    return inner_.Start(id, attempt, request, gpus, resume);
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
  bool held_ = false;
  std::atomic<bool> in_poll_{false};
};

TEST(LiveQueueReadsTest, ReadsDoNotWaitForAStepHeldInItsBackend) {
  testing::TempDir dir;
  auto store = std::move(JobStore::Open(dir.path()).value());
  LocalExecutor local(ExecutorOptions{dir.path(), "", 5000});
  HeldPollExecutor held(local);
  GpuInventory found{"virtual", VirtualGpus("2").value(), {}};
  LocalCluster cluster = BuildLocalCluster(found, std::nullopt, "testhost").value();
  auto q = LiveQueue::Create(cluster, NamedPolicy("fifo").value(), *store, held,
                             LiveQueueOptions{})
               .value();
  Time now = 1'800'000'000;
  JobRequest r;
  r.command = {"sleep", "30"};
  r.spec.gpus = 1;
  r.spec.name = "holds-a-gpu";
  const JobId id = store->Submit(r, "alice", now).value();
  q->Add(store->Get(id).value());
  for (int i = 0; i < 100 && store->Get(id).value().state != JobState::kRunning; ++i) {
    q->Step(now++);
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
    q->Step(now++);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(store->Get(id).value().state, JobState::kCancelled);
}

}  // namespace
}  // namespace squeeze
