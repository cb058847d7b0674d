// LiveQueue and held-but-idle runs: a real store and a real run (sleep) on virtual GPUs, with
// utilization telemetry given at chosen times.
#include <signal.h>

#include <chrono>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/temp_dir.h"
#include "exec/local_executor.h"
#include "serve/live_queue.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

class LiveQueueHeldIdleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::move(JobStore::Open(dir_.path()).value());
    executor_ = std::make_unique<LocalExecutor>(ExecutorOptions{dir_.path(), "", 5000});
    GpuInventory found{"virtual", VirtualGpus("3").value(), {}};
    LocalCluster cluster = BuildLocalCluster(found, std::nullopt, "testhost").value();
    LiveQueueOptions options;
    options.held_idle = {0.10, 10 * kMinute};
    queue_ = LiveQueue::Create(cluster, NamedPolicy("sliced").value(), *store_, *executor_,
                               options).value();
  }
  void TearDown() override {
    queue_->Cancel(Principal{"root", "admin", true}, job_, now_);
    queue_->Step(now_);
    if (auto runs = executor_->Reattach(); runs.ok()) {
      for (const RunInfo& r : *runs) {
        if (!r.exit) kill(-r.pgid, SIGKILL);
      }
    }
  }

  JobId StartSleeper(int gpus) {
    JobRequest r;
    r.command = {"sleep", "60"};
    r.spec.gpus = gpus;
    r.spec.name = "sleeper";
    r.spec.team = "vision";
    job_ = store_->Submit(r, "alice", now_).value();
    queue_->Add(store_->Get(job_).value());
    for (int i = 0; i < 100 && store_->Get(job_).value().state != JobState::kRunning; ++i) {
      queue_->Step(now_);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return job_;
  }

  // Every GPU of the node reported at `at`: GPUs 0 and 1 at `low`, GPU 2 at 0.8.
  void Report(Time at, double low) {
    std::vector<GpuTelemetry> gpus = {{"testhost", 0, std::nullopt, low, std::nullopt},
                                      {"testhost", 1, std::nullopt, low, 512.0},
                                      {"testhost", 2, std::nullopt, 0.8, std::nullopt}};
    ASSERT_FALSE(queue_->ApplyTelemetry(gpus, at, now_).error);
  }

  ::squeeze::testing::TempDir dir_{"squeeze-held-idle"};
  std::unique_ptr<JobStore> store_;
  std::unique_ptr<LocalExecutor> executor_;
  std::unique_ptr<LiveQueue> queue_;
  JobId job_ = 0;
  Time now_ = Seconds(1'800'000'000);
};

TEST_F(LiveQueueHeldIdleTest, ARunOnIdleGpusIsReportedOncePerSpell) {
  const JobId id = StartSleeper(2);
  ASSERT_EQ(store_->Get(id).value().state, JobState::kRunning);
  const Time start = now_;
  for (Time t = 0; t <= 5 * kMinute; t += kMinute) Report(start + t, 0.02);
  EXPECT_TRUE(queue_->HeldIdleJson()["jobs"].empty());  // not long enough yet
  now_ = start + 700 * kSecond;
  for (Time t = 6 * kMinute; t <= 700 * kSecond; t += kMinute) Report(start + t, 0.04);
  const nlohmann::json held = queue_->HeldIdleJson();
  ASSERT_EQ(held["jobs"].size(), 1u) << held.dump();
  const nlohmann::json& j = held["jobs"][0];
  EXPECT_EQ(j["id"], id);
  EXPECT_EQ(j["name"], "sleeper");
  EXPECT_EQ(j["user"], "alice");
  EXPECT_EQ(j["team"], "vision");
  EXPECT_EQ(j["gpus"].size(), 2u);
  EXPECT_NEAR(j["mean_utilization"].get<double>(), 0.03, 0.011);
  EXPECT_EQ(queue_->Snapshot().held_idle_jobs, 1);
  queue_->Step(now_);
  Report(start + 760 * kSecond, 0.01);  // the same spell: no second event
  int events = 0;
  const std::vector<JobEvent> history = store_->Events(id).value();
  for (const JobEvent& e : history) {
    if (e.kind != "held-idle") continue;
    ++events;
    EXPECT_THAT(e.text, HasSubstr("held but idle: its GPUs averaged 3% since "));
  }
  EXPECT_EQ(events, 1);
  Report(start + 820 * kSecond, 0.5);  // busy again
  EXPECT_TRUE(queue_->HeldIdleJson()["jobs"].empty());
  EXPECT_EQ(queue_->Snapshot().held_idle_jobs, 0);
}

TEST_F(LiveQueueHeldIdleTest, UtilizationIsAcceptedForAnyNodeButChecked) {
  std::vector<GpuTelemetry> bad = {{"testhost", 0, std::nullopt, 0.1, std::nullopt},
                                   {"testhost", 7, std::nullopt, 0.1, std::nullopt}};
  ApiResult r = queue_->ApplyTelemetry(bad, now_, now_);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "gpus[1].gpu: node testhost has no GPU 7 (it has 3)");
  bad = {{"testhost", 0, 0.5, std::nullopt, std::nullopt}};
  r = queue_->ApplyTelemetry(bad, now_, now_);
  ASSERT_TRUE(r.error);
  EXPECT_THAT(r.error->message, HasSubstr("inference_load is only for colocated GPUs"));
}

}  // namespace
}  // namespace squeeze
