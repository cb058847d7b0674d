// LiveQueue with its real parts: a SQLite store in a temporary directory, the local executor
// and squeeze-supervisor running real processes on virtual GPUs. Scheduling time (`now`) is
// given by the test; the processes run in real time, and each test steps the queue until
// what it waits for has happened.
#include "serve/live_queue.h"

#include <sys/stat.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/cluster_file.h"
#include "config/job_file.h"
#include "core/spot_math.h"
#include "core/testing/temp_dir.h"
#include "exec/local_executor.h"
#include "exec/run_files.h"
#include "exec/unix_account.h"
#include "serve/queue_service.h"
#include "serve/testing/run_sweeper.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

class LiveQueueTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = std::move(JobStore::Open(dir_.path()).value()); }
  void TearDown() override {
    // Kill whatever a failed test left running.
    ::squeeze::testing::KillRunsLeftIn(dir_.path());
  }

  // Scheduling seconds pass 20 times as fast as real ones (StepUntil): a stop grace of 5 s is
  // 250 ms of real time.
  std::unique_ptr<LiveQueue> MakeQueue(int gpus, const std::string& policy_name = "sliced",
                                       Time stop_grace = 5 * kSecond, Time min_runtime = 0) {
    executor_ = std::make_unique<LocalExecutor>(ExecutorOptions{dir_.path(), "", 5000});
    GpuInventory found{"virtual", VirtualGpus(std::to_string(gpus)).value(), {}};
    LocalCluster cluster = BuildLocalCluster(found, std::nullopt, "testhost").value();
    Policy policy = NamedPolicy(policy_name).value();
    policy.min_runtime = min_runtime;
    LiveQueueOptions options;
    options.retry_backoff = kSecond;
    options.checkpoint_grace = 20 * kSecond;
    options.stop_grace = stop_grace;
    return LiveQueue::Create(cluster, policy, *store_, *executor_, options).value();
  }

  // A queue on a cluster file's pools, over virtual GPUs.
  std::unique_ptr<LiveQueue> MakeQueueOn(std::string_view yaml, int gpus) {
    executor_ = std::make_unique<LocalExecutor>(ExecutorOptions{dir_.path(), "", 5000});
    GpuInventory found{"virtual", VirtualGpus(std::to_string(gpus)).value(), {}};
    LocalCluster cluster =
        BuildLocalCluster(found, ParseClusterYaml(yaml, "test.yaml").value(), "testhost").value();
    Policy policy = NamedPolicy("sliced").value();
    policy.min_runtime = 0;
    LiveQueueOptions options;
    options.checkpoint_grace = 20 * kSecond;
    options.stop_grace = 5 * kSecond;
    return LiveQueue::Create(cluster, policy, *store_, *executor_, options).value();
  }

  JobId Submit(LiveQueue& q, JobRequest r, const std::string& owner = "alice") {
    const JobId id = store_->Submit(r, owner, now_).value();
    StoredJob s = store_->Get(id).value();
    q.Add(s);
    return id;
  }

  // Steps the queue (1 scheduling second per real 50 ms) until `done` holds; false on timeout.
  bool StepUntil(LiveQueue& q, const std::function<bool()>& done, int max_steps = 600) {
    for (int i = 0; i < max_steps; ++i) {
      q.Step(now_);
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      now_ += kSecond;
    }
    return false;
  }

  JobState StateOf(JobId id) { return store_->Get(id).value().state; }

  // A job as the API's JSON body gives it (the parser of `squeeze submit` and POST /v1/jobs).
  JobRequest FromJson(const std::string& body) {
    Result<JobRequest> r = ParseJobJson(body, now_);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : JobRequest{};
  }

  static JobRequest Command(std::vector<std::string> argv, int gpus = 1) {
    JobRequest r;
    r.command = std::move(argv);
    r.spec.gpus = gpus;
    r.spec.name = "t";
    return r;
  }

  JobRequest TrainLike(int steps, Urgency urgency, const std::string& extra_env = "") {
    JobRequest r = Command({"bash", std::string(SQUEEZE_SOURCE_DIR) + "/examples/jobs/train-like.sh"});
    r.env = {{"STEPS", std::to_string(steps)}, {"STEP_SECONDS", "0.05"}, {"CHECKPOINT_EVERY", "1000"}};
    r.spec.urgency = urgency;
    r.spec.preemptible = true;
    r.spec.checkpointable = true;
    r.spec.estimate = (steps / 10 + 1) * kSecond;
    return r;
  }

  std::string Log(JobId id, int attempt) {
    std::ifstream in(PathsOf(dir_.path(), id, attempt).log);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  ::squeeze::testing::TempDir dir_{"squeeze-live-queue"};
  std::unique_ptr<JobStore> store_;
  std::unique_ptr<LocalExecutor> executor_;
  Time now_ = Seconds(1'800'000'000);
};

TEST_F(LiveQueueTest, RunsAJobToDoneWithItsExitCode) {
  auto q = MakeQueue(2);
  const JobId id = Submit(*q, Command({"bash", "-c", "echo gpus=$CUDA_VISIBLE_DEVICES"}, 2));
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(id) == JobState::kDone; }));
  StoredJob j = store_->Get(id).value();
  EXPECT_EQ(j.exit_code, 0);
  EXPECT_EQ(j.attempts, 1);
  EXPECT_EQ(j.gpus, (std::vector<int>{0, 1}));
  EXPECT_THAT(Log(id, 1), HasSubstr("gpus=0,1"));
  EXPECT_EQ(q->Snapshot().counters.finished_done, 1);
}

// The daemon's clock reads milliseconds and its step takes them as they are: two steps within
// one second see two times, and a start and the wait before it are kept to the millisecond.
TEST_F(LiveQueueTest, StepsWithinOneSecondSeeTheirOwnTimes) {
  if (kSecond < 1000) GTEST_SKIP() << "a build whose tick is longer than a millisecond";
  auto q = MakeQueue(2);
  const Time second = now_;
  now_ = second + kSecond / 10;
  const JobId a = Submit(*q, Command({"true"}));
  now_ = second + 4 * kSecond / 10;
  ASSERT_TRUE(StepUntil(*q, [&] { return store_->Get(a)->started_at.has_value(); }));
  const Time b_submitted = now_ + kSecond / 4;
  now_ = b_submitted;
  const JobId b = Submit(*q, Command({"true"}));
  now_ += kSecond / 5;
  ASSERT_TRUE(StepUntil(*q, [&] { return store_->Get(b)->started_at.has_value(); }));
  const StoredJob ja = store_->Get(a).value();
  const StoredJob jb = store_->Get(b).value();
  EXPECT_EQ(*ja.started_at, second + 4 * kSecond / 10);
  EXPECT_EQ(ja.waited, 3 * kSecond / 10);
  EXPECT_EQ(*jb.started_at, b_submitted + kSecond / 5);
  EXPECT_EQ(jb.waited, kSecond / 5);
  EXPECT_EQ(WholeSeconds(*ja.started_at), WholeSeconds(*jb.started_at))
      << "both started within the second " << WholeSeconds(second);
  const std::vector<JobEvent> events = store_->Events(b).value();
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events[0].at, b_submitted);
  EXPECT_EQ(events[1].kind, "start");
  EXPECT_EQ(events[1].at, *jb.started_at);
}

TEST_F(LiveQueueTest, RetriesAFailedJobWithBackOffThenFailsKeepingTheReason) {
  auto q = MakeQueue(1);
  JobRequest r = Command({"bash", "-c", "echo attempt $SQUEEZE_ATTEMPT; exit 3"});
  r.max_retries = 2;
  const JobId id = Submit(*q, r);
  ASSERT_TRUE(StepUntil(*q, [&] { return store_->Get(id)->failures == 1; }));
  StoredJob after_first = store_->Get(id).value();
  EXPECT_EQ(after_first.state, JobState::kPending);
  ASSERT_TRUE(after_first.not_before.has_value());
  EXPECT_THAT(after_first.reason, HasSubstr("retry 1 of 2"));
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(id) == JobState::kFailed; }));
  StoredJob j = store_->Get(id).value();
  EXPECT_EQ(j.attempts, 3);
  EXPECT_EQ(j.failures, 3);
  EXPECT_EQ(j.exit_code, 3);
  EXPECT_THAT(j.reason, HasSubstr("exit 3"));
  EXPECT_THAT(j.reason, HasSubstr("no retry left after 2"));
  // Back-off: the second retry waited twice as long as the first (1 s, then 2 s).
  auto events = store_->Events(id).value();
  std::vector<Time> starts;
  for (const auto& e : events) {
    if (e.kind == "start") starts.push_back(e.at);
  }
  ASSERT_EQ(starts.size(), 3u);
  EXPECT_GE(starts[2] - starts[1], 2 * kSecond);
  EXPECT_THAT(Log(id, 3), HasSubstr("attempt 3"));
}

TEST_F(LiveQueueTest, AnUrgentJobPreemptsWithACheckpointAndTheVictimResumes) {
  auto q = MakeQueue(1);
  const JobId low = Submit(*q, TrainLike(60, Urgency::kLow));
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(low) == JobState::kRunning; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // some steps of work
  const JobId high = Submit(*q, Command({"sleep", "0.2"}));
  ASSERT_TRUE(StepUntil(*q, [&] { return store_->Get(low)->preemptions == 1; }));
  StoredJob victim = store_->Get(low).value();
  EXPECT_TRUE(victim.last_checkpoint.has_value());
  EXPECT_THAT(victim.reason, HasSubstr("resumes from its checkpoint"));
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(high) == JobState::kDone; }));
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(low) == JobState::kDone; }));
  StoredJob j = store_->Get(low).value();
  EXPECT_EQ(j.attempts, 2);
  EXPECT_EQ(j.exit_code, 0);
  EXPECT_THAT(Log(low, 2), HasSubstr("resuming from step"));
  EXPECT_THAT(Log(low, 2), HasSubstr("step 60/60"));
  EXPECT_EQ(q->Snapshot().counters.preemptions, 1);
}

TEST_F(LiveQueueTest, ARestartTakesBackARunningJobAndStartsItNoSecondTime) {
  JobId running = 0, ended = 0, waiting = 0;
  {
    auto q = MakeQueue(2);
    running = Submit(*q, Command({"bash", "-c", "echo ran >> ../../runs-of-a; sleep 2"}));
    ended = Submit(*q, Command({"bash", "-c", "sleep 0.4; exit 4"}));
    ASSERT_TRUE(StepUntil(*q, [&] {
      return StateOf(running) == JobState::kRunning && StateOf(ended) == JobState::kRunning;
    }));
    // The store says running once the starts are recorded; the runs exist once the outbox has
    // carried them out (a loaded machine may take a while).
    q->WaitForDispatch();
    waiting = Submit(*q, Command({"true"}, 2));
    q->Step(now_);
  }  // the "daemon" goes away without a word; its jobs run on under their supervisors
  std::this_thread::sleep_for(std::chrono::milliseconds(900));  // `ended` ends meanwhile
  auto q = MakeQueue(2);
  auto summary = q->Recover(now_);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->adopted, 1);
  EXPECT_EQ(summary->ended_offline, 1);
  EXPECT_EQ(summary->pending, 1);
  // The one that ended while nobody watched is recorded, with a retry as for any failure.
  StoredJob e = store_->Get(ended).value();
  EXPECT_EQ(e.exit_code, 4);
  EXPECT_EQ(e.failures, 1);
  ASSERT_TRUE(StepUntil(*q, [&] {
    return StateOf(running) == JobState::kDone && StateOf(waiting) == JobState::kDone;
  }));
  EXPECT_EQ(store_->Get(running)->attempts, 1);
  std::ifstream runs(dir_.path() + "/runs-of-a");
  std::string all((std::istreambuf_iterator<char>(runs)), {});
  EXPECT_EQ(all, "ran\n");
}

// The learned order's run times come back with a restart: the store's jobs that ended are
// learned again (the latest first in the window, in the order they ended), so a job with no
// estimate is forecast from them, not "no expected start".
TEST_F(LiveQueueTest, TheLearnedRunTimesSurviveARestart) {
  for (int restart = 0; restart < 2; ++restart) {
    const bool history = restart == 1;
    if (history) {
      for (int i = 0; i < 25; ++i) {  // what an earlier daemon recorded: 25 jobs of 600 s
        const JobId id = store_->Submit(Command({"true"}), "alice", now_).value();
        ASSERT_TRUE(store_->RecordStart(id, 1, {0}, now_ + i * kSecond).ok());
        ASSERT_TRUE(store_->RecordRunEnd(id, RunEnd{}, now_ + (600 + i) * kSecond).ok());
      }
      now_ += 700 * kSecond;
    }
    auto q = MakeQueue(1);
    auto summary = q->Recover(now_);
    ASSERT_TRUE(summary.ok()) << summary.status().message();
    EXPECT_EQ(summary->learned, history ? 25 : 0);
    const JobId holder = Submit(*q, Command({"sleep", "30"}));
    ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(holder) == JobState::kRunning; }));
    const JobId waiter = Submit(*q, Command({"true"}), "bob");
    q->Step(now_);
    auto why = q->WhyJson(waiter, now_ + 100 * kSecond);
    ASSERT_TRUE(why.has_value());
    if (history) {
      // The holder has run about 100 s of the 600 s its like ran.
      ASSERT_TRUE((*why)["expected_start_in_s"].is_number()) << why->dump();
      EXPECT_NEAR((*why)["expected_start_in_s"].get<double>(), 500, 10);
    } else {
      EXPECT_TRUE((*why)["expected_start_in_s"].is_null()) << why->dump();
    }
    q->Cancel(Principal{"root", "admin", true}, holder, now_);
    q->Cancel(Principal{"root", "admin", true}, waiter, now_);
    ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(holder) == JobState::kCancelled; }));
  }
}

TEST_F(LiveQueueTest, AJobSubmittedWhileTheQueueRecoversIsQueuedOnce) {
  // The API answers during Recover: a job it accepted may reach the queue both from the store
  // (read by Recover) and from the inbox.
  auto q = MakeQueue(1);
  const JobId id = Submit(*q, Command({"true"}));  // in the store and in the inbox
  ASSERT_TRUE(q->Recover(now_).ok());
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(id) == JobState::kDone; }));
  EXPECT_EQ(store_->Get(id)->attempts, 1);
  EXPECT_EQ(store_->Get(id)->failures, 0);
}

TEST_F(LiveQueueTest, OnlyTheOwnerOrAnAdminCancelsAndARunningJobEndsCancelled) {
  // SIGTERM ends it, never SIGKILL.
  auto q = MakeQueue(1, "sliced", /*stop_grace=*/20 * kMinute);
  const JobId id = Submit(*q, Command({"sleep", "30"}), "alice");
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(id) == JobState::kRunning; }));
  ApiResult refused = q->Cancel(Principal{"bob", "ml", false}, id, now_);
  ASSERT_TRUE(refused.error.has_value());
  EXPECT_EQ(refused.error->http_status, 403);
  EXPECT_THAT(refused.error->message, HasSubstr("belongs to alice"));
  EXPECT_EQ(StateOf(id), JobState::kRunning);
  EXPECT_EQ(q->Cancel(Principal{"bob", "ml", false}, 999, now_).error->http_status, 404);
  ApiResult ok = q->Cancel(Principal{"alice", "ml", false}, id, now_);
  ASSERT_FALSE(ok.error.has_value());
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(id) == JobState::kCancelled; }));
  EXPECT_EQ(store_->Get(id)->exit_code, 128 + SIGTERM);
  EXPECT_EQ(q->Cancel(Principal{"root", "admin", true}, id, now_).error->http_status, 409);
}

TEST_F(LiveQueueTest, ACancelledJobKeepsItsGpusUntilItsProcessHasExited) {
  auto q = MakeQueue(1);
  // Ignores SIGTERM: only the SIGKILL after the stop grace (5 scheduling seconds) ends it.
  const JobId stubborn = Submit(
      *q, Command({"bash", "-c", "trap '' TERM; touch ../../stubborn-ready; sleep 30 & wait; sleep 30"}));
  // Cancelled only once its trap is set, so that SIGTERM is ignored for sure.
  ASSERT_TRUE(StepUntil(*q, [&] { return std::filesystem::exists(dir_.path() + "/stubborn-ready"); }));
  const JobId behind = Submit(*q, Command({"true"}));
  ASSERT_FALSE(q->Cancel(Principal{"alice", "ml", false}, stubborn, now_).error.has_value());
  bool started_early = false;
  ASSERT_TRUE(StepUntil(*q, [&] {
    const JobState s = StateOf(stubborn);
    started_early |= s != JobState::kCancelled && StateOf(behind) != JobState::kPending;
    return s == JobState::kCancelled;
  }));
  EXPECT_FALSE(started_early);
  EXPECT_EQ(store_->Get(stubborn)->exit_code, 128 + SIGKILL);
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(behind) == JobState::kDone; }));
}

TEST_F(LiveQueueTest, WhyNamesTheReservationThatKeepsAJobFromAFreeGpu) {
  auto q = MakeQueue(2, "backfill");  // EASY backfilling: the blocked head reserves at once
  JobRequest holder = Command({"sleep", "30"});
  holder.spec.estimate = 600 * kSecond;
  const JobId first = Submit(*q, holder);
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(first) == JobState::kRunning; }));
  JobRequest wide = Command({"true"}, 2);
  wide.spec.estimate = 60 * kSecond;
  const JobId blocked = Submit(*q, wide);
  JobRequest longer = Command({"true"});
  longer.spec.estimate = 5000 * kSecond;  // would still run when `blocked` is due: not backfilled
  const JobId late = Submit(*q, longer);
  q->Step(now_);
  ASSERT_EQ(StateOf(late), JobState::kPending);
  auto why = q->WhyJson(late, now_);
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(why->dump(), HasSubstr("free now: 1 of the 2"));
  EXPECT_THAT(why->dump(), HasSubstr("job " + std::to_string(blocked) +
                                     " holds a reservation on testhost"));
  q->Cancel(Principal{"root", "admin", true}, first, now_);
}

TEST_F(LiveQueueTest, WhySaysWhatIsInTheWayAndWhenTheJobShouldStart) {
  auto q = MakeQueue(2);
  JobRequest holder = Command({"sleep", "30"}, 2);
  holder.spec.estimate = 600 * kSecond;
  const JobId first = Submit(*q, holder);
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(first) == JobState::kRunning; }));
  JobRequest waiter = Command({"true"}, 2);
  waiter.spec.estimate = 60 * kSecond;
  const JobId second = Submit(*q, waiter, "bob");
  q->Step(now_);
  auto why = q->WhyJson(second, now_ + 100 * kSecond);
  ASSERT_TRUE(why.has_value());
  const std::string text = why->dump();
  EXPECT_THAT(text, HasSubstr("needs 2 GPUs"));
  EXPECT_THAT(text, HasSubstr("free now: 0 of the 2"));
  EXPECT_THAT(text, HasSubstr("job " + std::to_string(first) + " (alice"));
  // The holder has run ~100 s of its 600 s estimate: about 500 s to go.
  ASSERT_TRUE((*why)["expected_start_in_s"].is_number());
  EXPECT_NEAR((*why)["expected_start_in_s"].get<double>(), 500, 5);
  EXPECT_FALSE(q->WhyJson(first + 100, now_).has_value());
  q->Cancel(Principal{"root", "admin", true}, first, now_);
}

// A holder past its estimate is said to be so (it used to be "ends in about 0s").
TEST_F(LiveQueueTest, WhySaysWhenTheJobInTheWayHasOverrunItsEstimate) {
  auto q = MakeQueue(2);
  JobRequest holder = Command({"sleep", "30"}, 2);
  holder.spec.estimate = 60 * kSecond;
  const JobId first = Submit(*q, holder);
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(first) == JobState::kRunning; }));
  const Time started = *store_->Get(first).value().started_at;
  const JobId second = Submit(*q, Command({"true"}, 2), "bob");
  q->Step(now_);
  auto why = q->WhyJson(second, started + (60 + 125) * kSecond);
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(why->dump(), HasSubstr("job " + std::to_string(first) +
                                     " (alice, 2 GPUs, normal) has run 2m5s past its estimate"));
  q->Cancel(Principal{"root", "admin", true}, first, now_);
}

constexpr std::string_view kSharedAndSpot = R"(
pools:
  - name: inference
    kind: colocated
    colocation: {cap: 0.6, evict_within: 10s}
    nodes:
      - {name: inf-0, gpus: 2, gpu_model: L40S, gpu_memory_mib: 1000}
  - name: spot
    kind: spot
    spot: {warning: 8s}
    nodes:
      - {name: spot-0, gpus: 1, gpu_model: L40S}
)";

// A firm pool of 1 GPU and a spot pool of 2: a 2-GPU job of no pool fits the cluster's
// capacity, but the core places a job of no pool on firm pools only, so the submit check
// refuses it (it used to be accepted and failed by the first cycle); named to the spot pool,
// it is accepted.
constexpr std::string_view kFirmAndSpot = R"(
pools:
  - name: home
    nodes:
      - {name: home-0, gpus: 1, gpu_model: L40S}
  - name: spot
    kind: spot
    spot: {warning: 8s}
    nodes:
      - {name: spot-0, gpus: 2, gpu_model: L40S}
)";

// The forecast counts what the policy will do: a preemptible blocker is stopped once its
// minimum runtime is over, so the urgent job is told it starts then (not when the blocker's
// hour-long estimate ends), and it does, within the live queue's cycle interval (a second)
// and the blocker's checkpoint.
TEST_F(LiveQueueTest, WhyForecastsAPreemptionAfterTheMinimumRuntime) {
  auto q = MakeQueue(1, "squeeze", 5 * kSecond, /*min_runtime=*/30 * kSecond);
  JobRequest low = TrainLike(100000, Urgency::kLow);
  low.spec.estimate = kHour;
  const JobId blocker = Submit(*q, low);
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(blocker) == JobState::kRunning; }));
  const Time blocker_start = store_->Get(blocker).value().started_at.value();
  JobRequest high = Command({"sleep", "1"});
  high.spec.urgency = Urgency::kHigh;
  high.spec.estimate = 10 * kSecond;
  const JobId urgent = Submit(*q, high);
  q->Step(now_);
  auto why = q->WhyJson(urgent, now_);
  ASSERT_TRUE(why.has_value());
  ASSERT_TRUE((*why)["expected_start_in_s"].is_number()) << why->dump(2);
  const Time forecast = now_ + Seconds((*why)["expected_start_in_s"].get<int64_t>());
  EXPECT_GE(forecast, blocker_start + 30 * kSecond) << why->dump(2);
  EXPECT_THAT(why->dump(), HasSubstr("after the policy stops 1 running job")) << why->dump(2);
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(urgent) != JobState::kPending; }));
  const Time started = store_->Get(urgent).value().started_at.value();
  // Within a few seconds of the forecast: the blocker's checkpoint takes real time, each
  // second of it 20 scheduling seconds (more on a loaded machine), and nowhere near the
  // blocker's hour-long estimate.
  EXPECT_GE(started, forecast - 2 * kSecond) << why->dump(2);
  EXPECT_LE(started, forecast + 40 * kSecond)
      << "forecast " << WholeSeconds(forecast - blocker_start)
      << " s after the blocker's start, started " << WholeSeconds(started - blocker_start)
      << " s after it: " << why->dump(2);
}

TEST_F(LiveQueueTest, TheSubmitCheckIsTheCoresRule) {
  auto q = MakeQueueOn(kFirmAndSpot, 3);
  JobRequest r = Command({"true"}, 2);
  ApiResult refused = q->CheckSubmission("alice", r);
  ASSERT_TRUE(refused.error);
  EXPECT_EQ(refused.error->http_status, 400);
  EXPECT_EQ(refused.error->message,
            "asks for 2 GPUs; the largest possible request is 1 GPU (pool home: 1 node x 1 "
            "L40S); spot and colocated pools count only for a job that names one as its pool");
  r.spec.pool = "spot";
  ApiResult named = q->CheckSubmission("alice", r);
  EXPECT_TRUE(!named.error || named.error->http_status != 400)
      << named.error->message;
}

// A local pool of two nodes with 2 GPUs each.
constexpr const char* kTwoLabNodes = R"(
pools:
  - name: lab
    nodes:
      - {count: 2, gpus: 2, gpu_model: L40S}
)";

// This machine's executor runs a job on one node: a local pool of two 2-GPU nodes refuses a
// 4-GPU job at submit, naming the limit (a Slurm pool would run it over both nodes).
TEST_F(LiveQueueTest, ALocalPoolRefusesAJobBiggerThanItsLargestNode) {
  auto q = MakeQueueOn(kTwoLabNodes, 4);
  ApiResult refused = q->CheckSubmission("alice", Command({"true"}, 4));
  ASSERT_TRUE(refused.error);
  EXPECT_EQ(refused.error->http_status, 400);
  EXPECT_EQ(refused.error->message,
            "asks for 4 GPUs; the largest possible request is 2 GPUs (pool lab: 2 nodes x 2 "
            "L40S); pool 'lab' runs a job on one node (a job bigger than a node needs a Slurm "
            "pool)");
  EXPECT_FALSE(q->CheckSubmission("alice", Command({"true"}, 2)).error);
}

// Submit and update ask the one rule (the core's): a waiting job updated to more GPUs than
// the cluster could ever give is refused with the words a submission of it gets, and keeps
// what it asked before.
TEST_F(LiveQueueTest, UpdateIsCheckedByTheRuleSubmitIs) {
  auto q = MakeQueueOn(kTwoLabNodes, 4);
  const std::string submitted = q->CheckSubmission("alice", Command({"true"}, 4)).error->message;
  JobRequest r = Command({"sleep", "60"}, 2);
  r.spec.time_limit = kMinute;
  const JobId hog = Submit(*q, r);
  const JobId other_hog = Submit(*q, r);  // the two take both nodes
  const JobId waiting = Submit(*q, r);
  q->Step(now_);
  ASSERT_EQ(StateOf(hog), JobState::kRunning);
  ASSERT_EQ(StateOf(other_hog), JobState::kRunning);
  ASSERT_EQ(StateOf(waiting), JobState::kPending);
  ApiResult updated = q->Update(Principal{"alice", "ml", false}, waiting, R"({"gpus": 4})", now_);
  ASSERT_TRUE(updated.error);
  EXPECT_EQ(updated.error->http_status, 400);
  EXPECT_EQ(updated.error->message, submitted);
  EXPECT_FALSE(q->Update(Principal{"alice", "ml", false}, waiting, R"({"gpus": 1})", now_).error);
  // Its cards and topology, too: no card here has 40 GiB, and the cluster has no topology.
  JobRequest big_cards = Command({"true"}, 1);
  big_cards.spec.min_gpu_memory_mib = 40960;
  const std::string no_card = q->CheckSubmission("alice", big_cards).error->message;
  updated = q->Update(Principal{"alice", "ml", false}, waiting, R"({"gpu_memory": "40GiB"})", now_);
  ASSERT_TRUE(updated.error);
  EXPECT_EQ(updated.error->message, no_card);
  updated = q->Update(Principal{"alice", "ml", false}, waiting, R"({"topology": "required:rack"})",
                      now_);
  ASSERT_TRUE(updated.error);
  EXPECT_THAT(updated.error->message, HasSubstr("rack"));
  updated = q->Update(Principal{"alice", "ml", false}, waiting, R"({"gpu_models": ["L40S"]})", now_);
  ASSERT_FALSE(updated.error) << updated.error->message;
  EXPECT_EQ(store_->Get(waiting).value().request.spec.gpu_models,
            (std::vector<std::string>{"L40S"}));
  updated = q->Update(Principal{"alice", "ml", false}, hog, R"({"gpu_models": ["L40S"]})", now_);
  ASSERT_TRUE(updated.error);
  EXPECT_EQ(updated.error->http_status, 409);
  for (JobId id : {hog, other_hog, waiting}) {
    ASSERT_FALSE(q->Cancel(Principal{"alice", "ml", false}, id, now_).error);
  }
}

TEST_F(LiveQueueTest, ARunOnSharedGpusIsToldItsShare) {
  auto q = MakeQueueOn(kSharedAndSpot, 3);
  ASSERT_FALSE(q->Reclaim("spot-0", 0, now_).error);  // only the shared GPUs are left
  std::vector<GpuTelemetry> loads = {{"inf-0", 0, 0.1, std::nullopt, std::nullopt},
                                      {"inf-0", 1, 0.2, std::nullopt, std::nullopt}};
  ASSERT_FALSE(q->ApplyTelemetry(loads, now_, now_).error);
  JobRequest r = Command({"bash", "-c", "env | grep -E '^(CUDA_MPS|SQUEEZE_GPU_SHARE)' | sort"}, 2);
  r.spec.preemptible = true;
  r.spec.checkpointable = true;
  r.spec.estimate = 10 * kSecond;
  const JobId id = Submit(*q, r);
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(id) == JobState::kDone; }));
  const std::string log = Log(id, 1);
  EXPECT_THAT(log, HasSubstr("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=60\n"));
  EXPECT_THAT(log, HasSubstr("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=600M,1=600M\n"));
  EXPECT_THAT(log, HasSubstr("SQUEEZE_GPU_SHARE=0.6\n"));
}

TEST_F(LiveQueueTest, CapacityCallsCheckEverythingBeforeApplyingAnything) {
  auto q = MakeQueueOn(kSharedAndSpot, 3);
  EXPECT_EQ(q->Reclaim("nowhere", 5 * kSecond, now_).error->http_status, 404);
  ApiResult wrong = q->Reclaim("inf-0", 5 * kSecond, now_);
  EXPECT_EQ(wrong.error->http_status, 400);
  EXPECT_THAT(wrong.error->message, HasSubstr("only nodes of spot pools"));
  EXPECT_EQ(q->Return("spot-0", now_).error->http_status, 409);
  std::vector<GpuTelemetry> loads = {{"inf-0", 0, 0.1, std::nullopt, std::nullopt},
                                      {"inf-0", 2, 0.1, std::nullopt, std::nullopt}};
  ApiResult bad = q->ApplyTelemetry(loads, now_, now_);
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error->message, "gpus[1].gpu: node inf-0 has no GPU 2 (it has 2)");
  loads = {{"inf-0", 0, 0.1, std::nullopt, std::nullopt},
           {"spot-0", 0, 0.1, std::nullopt, std::nullopt}};
  bad = q->ApplyTelemetry(loads, now_, now_);
  ASSERT_TRUE(bad.error);
  EXPECT_THAT(bad.error->message, HasSubstr("gpus[1].node: node spot-0 is in pool spot"));
  const nlohmann::json nodes = q->NodesJson();
  EXPECT_TRUE(nodes["nodes"][0]["gpu_detail"][0]["inference_load"].is_null());
  ApiResult reclaimed = q->Reclaim("spot-0", std::nullopt, now_);
  ASSERT_FALSE(reclaimed.error);
  EXPECT_EQ(reclaimed.value["warning_s"], 8);  // the pool's
  EXPECT_EQ(q->Reclaim("spot-0", 5 * kSecond, now_).error->http_status, 409);
  EXPECT_THAT(q->NodesJson()["nodes"][1]["unavailable"].get<std::string>(),
              HasSubstr("reclaimed"));
  EXPECT_FALSE(q->Return("spot-0", now_).error);
}

// A restarted daemon's API answers before Recover: a call on the queue (here its nodes) waits
// for the recovery instead of showing the state before the restart (a reclaimed node as free).
TEST_F(LiveQueueTest, CallsOnTheQueueWaitForTheRecoveryOfARestart) {
  auto q = MakeQueueOn(kSharedAndSpot, 3);
  ASSERT_FALSE(q->Reclaim("spot-0", 5 * kSecond, now_).error);
  q.reset();
  now_ += kMinute;
  q = MakeQueueOn(kSharedAndSpot, 3);
  q->HoldCallsUntilRecovered();
  std::atomic<bool> answered{false};
  nlohmann::json nodes;
  std::thread call([&] {
    nodes = q->NodesJson();
    answered = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(answered.load()) << "the nodes were shown before the recovery: " << nodes.dump();
  ASSERT_TRUE(q->Recover(now_).ok());
  call.join();
  EXPECT_FALSE(nodes["nodes"][1]["available"].get<bool>()) << nodes.dump();
  EXPECT_TRUE(nodes["nodes"][1].contains("reclaimed")) << nodes.dump();
  EXPECT_FALSE(q->Return("spot-0", now_).error);  // decisions go on after it
}

TEST_F(LiveQueueTest, AJobThatDoesNotLeaveAReclaimedNodeIsKilledWhenItIsTaken) {
  auto q = MakeQueueOn(kSharedAndSpot, 3);
  JobRequest r = Command(
      {"bash", "-c", "trap '' USR1 TERM; echo ready; while true; do sleep 0.05; done"});
  r.spec.preemptible = true;
  r.spec.checkpointable = true;
  r.spec.fault_tolerant = true;
  r.spec.estimate = kMinute;
  const JobId id = Submit(*q, r);
  // Its traps are set before it is asked to leave.
  ASSERT_TRUE(StepUntil(*q, [&] { return Log(id, 1).find("ready") != std::string::npos; }));
  const Time notice = now_;
  ASSERT_FALSE(q->Reclaim("spot-0", 8 * kSecond, now_).error);
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(id) == JobState::kPending; }));
  // Killed when the node is taken (8 s), not after the checkpoint grace (20 s).
  EXPECT_GE(now_, notice + 8 * kSecond);
  EXPECT_LE(now_, notice + 14 * kSecond);
  StoredJob j = store_->Get(id).value();
  EXPECT_THAT(j.reason, HasSubstr("spot reclaim: node spot-0 is taken back in 8s"));
}

// A time limit (Slurm's --time): a checkpointable job is asked to checkpoint ahead of it (by
// the checkpoint grace, 20 s here, at most half the limit), then stopped; it ends timeout with
// its checkpoint kept. One that cannot checkpoint is stopped at the limit.
TEST_F(LiveQueueTest, AJobIsCheckpointedAndStoppedAtItsTimeLimitAndEndsTimeout) {
  auto q = MakeQueue(2);
  JobRequest trainer = TrainLike(600, Urgency::kNormal);  // 600 s of work
  trainer.spec.time_limit = kMinute;
  const JobId limited = Submit(*q, trainer);
  JobRequest sleeper = Command({"sleep", "100"});
  sleeper.spec.time_limit = 10 * kSecond;
  const JobId plain = Submit(*q, sleeper);
  const JobId quick = Submit(*q, FromJson(R"({"command": ["true"], "time_limit": "1:00"})"));
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(limited) == JobState::kRunning; }));
  const Time started = now_;
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(plain) == JobState::kTimeout; }));
  StoredJob p = store_->Get(plain).value();
  EXPECT_EQ(p.reason, "time limit 10s reached; no checkpoint");
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(limited) == JobState::kCheckpointing; }));
  const Time asked = now_;
  EXPECT_GE(asked - started, 38 * kSecond);  // 60 s less the 20-s lead, from about its start
  EXPECT_LE(asked - started, 42 * kSecond);
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(limited) == JobState::kTimeout; }));
  EXPECT_LT(now_ - started, kMinute);  // it saved well before the limit and was stopped then
  StoredJob j = store_->Get(limited).value();
  EXPECT_TRUE(j.last_checkpoint.has_value());
  EXPECT_EQ(j.reason, "time limit 1m reached; its last checkpoint is kept");
  EXPECT_EQ(j.attempts, 1);
  EXPECT_THAT(Log(limited, 1), HasSubstr("checkpoint at step"));
  EXPECT_EQ(StateOf(quick), JobState::kDone);
  EXPECT_EQ(store_->Get(quick)->request.spec.time_limit, kMinute);
  EXPECT_EQ(q->Snapshot().counters.timed_out, 2);
}

// A checkpoint_cost longer than the checkpoint grace (20 s here) is how long a stop waits for
// the checkpoint before SIGTERM: a job submitted with checkpoint_cost 40s that never saves is
// sent SIGTERM 40 s after it was asked to checkpoint, not 20 s.
TEST_F(LiveQueueTest, AStopWaitsForTheJobsCheckpointCostBeforeSigterm) {
  auto q = MakeQueue(1);
  const JobId victim = Submit(*q, FromJson(R"({
      "command": ["bash", "-c", "trap '' USR1; echo ready; while true; do sleep 0.05; done"],
      "urgency": "low", "preemptible": true, "checkpointable": true,
      "checkpoint_cost": "40s", "estimate": "10m"})"));
  ASSERT_EQ(store_->Get(victim)->request.spec.checkpoint_cost, 40 * kSecond);
  // Its trap is set before it is asked to checkpoint.
  ASSERT_TRUE(StepUntil(*q, [&] { return Log(victim, 1).find("ready") != std::string::npos; }));
  Submit(*q, Command({"true"}));
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(victim) == JobState::kCheckpointing; }));
  const Time asked = now_;
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(victim) == JobState::kPending; }));
  std::optional<Time> sigterm;
  const auto events = store_->Events(victim).value();
  for (const auto& e : events) {
    if (e.kind == "stop" && e.text == "no checkpoint within the grace period; SIGTERM") {
      sigterm = e.at;
    }
  }
  ASSERT_TRUE(sigterm.has_value());
  EXPECT_EQ(*sigterm - asked, 40 * kSecond);
}

// On capacity that may be taken back, the spot action asks a run for periodic checkpoints at
// Daly's interval for the pause each one costs it (core/spot_math.h), unless it saves within
// the warning: with no checkpoint_cost (free) it is asked for none; with checkpoint_cost 30s
// (longer than the pool's 8 s warning) it is asked every Daly(30 s); with checkpoint_stall 2s
// (asynchronous) every Daly(2 s), shorter. The run is told by SQUEEZE_CHECKPOINT_INTERVAL.
TEST_F(LiveQueueTest, TheCheckpointIntervalOnSpotFollowsTheJobsCheckpointCostAndStall) {
  auto q = MakeQueueOn(kSharedAndSpot, 3);
  const auto interval_of = [&](const std::string& checkpoint) {
    const JobId id = Submit(*q, FromJson(R"({"command": ["bash", "-c",
        "echo interval=${SQUEEZE_CHECKPOINT_INTERVAL:-none}"],
        "preemptible": true, "checkpointable": true, "fault_tolerant": true,
        "estimate": "1m")" + checkpoint + "}"));
    EXPECT_TRUE(StepUntil(*q, [&] { return StateOf(id) == JobState::kDone; }));
    std::string placed;
    const auto events = store_->Events(id).value();
    for (const auto& e : events) placed += e.kind == "placed" ? e.text : "";
    EXPECT_THAT(placed, HasSubstr("on spot pool spot")) << checkpoint;
    const std::string log = Log(id, 1);
    const size_t at = log.find("interval=");
    if (at == std::string::npos) return std::string("?");
    return log.substr(at + 9, log.find('\n', at) - at - 9);
  };
  JobSpec sync, async;
  sync.checkpoint_cost = async.checkpoint_cost = 30 * kSecond;
  async.checkpoint_stall = 2 * kSecond;
  // The spot pool's prior: 6 h (the mean time between interruptions, in seconds).
  const Time daly_sync = DalyIntervalOf(sync, 6 * 3600.0);
  const Time daly_async = DalyIntervalOf(async, 6 * 3600.0);
  ASSERT_LT(daly_async, daly_sync);
  EXPECT_EQ(interval_of(""), "none");
  EXPECT_EQ(interval_of(R"(, "checkpoint_cost": "5s")"), "none");  // saves within the warning
  const std::string s = interval_of(R"(, "checkpoint_cost": "30s")");
  EXPECT_NEAR(std::atof(s.c_str()), ToSeconds(daly_sync), 2) << s;
  const std::string a = interval_of(R"(, "checkpoint_cost": "30s", "checkpoint_stall": "2s")");
  EXPECT_NEAR(std::atof(a.c_str()), ToSeconds(daly_async), 2) << a;
}

// sbatch -o/-e through the API: the job JSON takes and shows `output` and `error`, the run
// writes there, and the log route reads the output file (a regular file of the job's account
// only) or says where the output is.
TEST_F(LiveQueueTest, TheApiTakesOutputFilesAndTheLogRouteReadsThem) {
  auto q = MakeQueue(1);
  QueueService service(dir_.path(), *store_, *q, [this] { return now_; }, [] {});
  const Principal alice{"alice", "ml", false};
  const std::string work = dir_.path() + "/work";
  std::filesystem::create_directories(work);
  ApiResult bad = service.Submit(alice, R"({"command": ["true"], "output": "out_%Q"})");
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error->http_status, 400);
  EXPECT_THAT(bad.error->message, HasSubstr("output: 'out_%Q': '%Q' is not a pattern"));

  ApiResult submitted = service.Submit(
      alice, R"({"command": ["bash", "-c", "echo out; echo err >&2"], "workdir": ")" + work +
                 R"(", "output": "out_%j.txt", "error": "err_%x.txt", "name": "w"})");
  ASSERT_FALSE(submitted.error) << submitted.error->message;
  const JobId id = submitted.value["id"].get<JobId>();
  ASSERT_TRUE(StepUntil(*q, [&] { return StateOf(id) == JobState::kDone; }));
  const nlohmann::json shown = service.Get(alice, id).Body();
  EXPECT_EQ(shown["output"], "out_%j.txt");
  EXPECT_EQ(shown["error"], "err_%x.txt");
  EXPECT_TRUE(service.Get({"bob", "ml", false}, id).Body()["output"].is_null());

  const std::string out = work + "/out_" + std::to_string(id) + ".txt";
  ApiResult log = service.Log(alice, id, {{"tail_bytes", "100"}});
  ASSERT_FALSE(log.error) << log.error->message;
  EXPECT_EQ(log.value["text"], "out\n");
  EXPECT_EQ(log.value["path"], out);
  EXPECT_EQ(log.value["error_path"], work + "/err_w.txt");
  EXPECT_EQ(log.value["all_runs"], true);
  ApiResult from = service.Log(alice, id, {{"from_byte", "2"}});
  ASSERT_FALSE(from.error);
  EXPECT_EQ(from.value["text"], "t\n");
  EXPECT_THAT(Log(id, 1), HasSubstr("stdout goes to " + out + ", stderr to " + work + "/err_w.txt"));

  // The file is read as the account the job runs as (squeeze-supervisor --read): a link is
  // followed as that account would follow it, never by the daemon itself.
  std::filesystem::remove(out);
  std::filesystem::create_symlink(work + "/err_w.txt", out);
  ApiResult linked = service.Log(alice, id, {});
  ASSERT_FALSE(linked.error) << linked.error->message;
  EXPECT_EQ(linked.value["text"], "err\n");
  std::filesystem::remove(out);
  EXPECT_EQ(service.Log(alice, id, {}).error->message,
            "job " + std::to_string(id) + " writes its output to " + out + " (as user '" +
                CurrentAccount()->name + "'), not to its log; it cannot be shown: no file that "
                "this account can read at " + out);
  mkfifo(out.c_str(), 0600);  // not a file: refused at once, nothing waits on it
  EXPECT_THAT(service.Log(alice, id, {}).error->message,
              HasSubstr("it cannot be shown: " + out + " is not a regular file"));
}

}  // namespace
}  // namespace squeeze
