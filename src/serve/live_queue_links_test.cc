// Job arrays and dependencies in the live queue, through the API's submission (QueueService)
// with its real parts: a SQLite store, the local executor running real processes on virtual
// GPUs. Scheduling time is the test's; processes run in real time.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/job_values.h"
#include "core/testing/temp_dir.h"
#include "exec/local_executor.h"
#include "exec/run_files.h"
#include "serve/live_queue.h"
#include "serve/queue_service.h"
#include "serve/testing/run_sweeper.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class LiveQueueLinksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::move(JobStore::Open(dir_.path()).value());
    executor_ = std::make_unique<LocalExecutor>(ExecutorOptions{dir_.path(), "", 5000});
    GpuInventory found{"virtual", VirtualGpus("4").value(), {}};
    LocalCluster cluster = BuildLocalCluster(found, std::nullopt, "testhost").value();
    LiveQueueOptions options;
    options.retry_backoff = kSecond;
    options.max_retries = 0;
    queue_ = LiveQueue::Create(cluster, NamedPolicy("backfill").value(), *store_, *executor_,
                               options)
                 .value();
    service_ = std::make_unique<QueueService>(dir_.path(), *store_, *queue_,
                                              [this] { return now_; }, [] {});
    std::filesystem::create_directories(work_);
  }
  void TearDown() override {
    service_.reset();
    queue_.reset();
    ::squeeze::testing::KillRunsLeftIn(dir_.path());
  }

  // Submits a job's JSON (the workdir is the test's); returns the answer's value.
  nlohmann::json Submit(const std::string& fields) {
    ApiResult r = service_->Submit(
        alice_, R"({"workdir": ")" + work_ + R"(", )" + fields + "}");
    EXPECT_FALSE(r.error) << (r.error ? r.error->message : "");
    return r.error ? nlohmann::json() : r.value;
  }
  ApiError SubmitFails(const std::string& fields) {
    ApiResult r = service_->Submit(alice_, "{" + fields + "}");
    EXPECT_TRUE(r.error) << fields;
    return r.error.value_or(ApiError{});
  }

  bool StepUntil(const std::function<bool()>& done, int max_steps = 600) {
    for (int i = 0; i < max_steps; ++i) {
      queue_->Step(now_);
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      now_ += kSecond;
    }
    return false;
  }
  JobState StateOf(JobId id) { return store_->Get(id).value().state; }
  std::string File(const std::string& name) {
    std::ifstream in(work_ + "/" + name);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // Lines of `name`, a file the jobs append to.
  std::vector<std::string> Lines(const std::string& name) {
    std::vector<std::string> out;
    std::ifstream in(work_ + "/" + name);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

  ::squeeze::testing::TempDir dir_{"squeeze-live-links"};
  const std::string work_ = dir_.path() + "/work";
  std::unique_ptr<JobStore> store_;
  std::unique_ptr<LocalExecutor> executor_;
  std::unique_ptr<LiveQueue> queue_;
  std::unique_ptr<QueueService> service_;
  const Principal alice_{"alice", "ml", false};
  Time now_ = Seconds(1'800'000'000);
};

// An array of 6 tasks limited to 2 on 4 GPUs: consecutive ids, each task sees its index as
// Slurm's and squeeze's variables say it, never more than 2 run at once (each task records
// how many run beside it), the waiting ones show ArrayLimit, and show has its progress.
TEST_F(LiveQueueLinksTest, AnArrayRunsEveryTaskWithItsIndexAndNoMoreAtOnceThanItsLimit) {
  const nlohmann::json answer = Submit(
      R"("name": "sweep", "array": "0-10:2%2", "command": ["bash", "-c",
      "mkdir running.$SLURM_ARRAY_TASK_ID; echo \"$SLURM_ARRAY_JOB_ID $SQUEEZE_ARRAY_TASK_ID $SLURM_ARRAY_TASK_COUNT $SLURM_ARRAY_TASK_MAX $SLURM_ARRAY_TASK_STEP $(ls -d running.* | wc -l)\" >> tasks.txt; sleep 0.6; rmdir running.$SLURM_ARRAY_TASK_ID"])");
  ASSERT_EQ(answer["tasks"], 6);
  const JobId array = answer["id"].get<JobId>();
  queue_->Step(now_);
  int limited = 0;
  for (int i = 0; i < 6; ++i) {
    const StoredJob task = store_->Get(array + i).value();
    EXPECT_EQ(task.request.spec.array_id, array);
    EXPECT_EQ(task.request.spec.array_task, 2 * i);
    limited += queue_->ReasonCode(array + i) == "ArrayLimit";
  }
  EXPECT_EQ(limited, 4);
  const nlohmann::json shown = service_->Get(alice_, array + 3).Body();
  EXPECT_EQ(shown["array_id"], array);
  EXPECT_EQ(shown["array_task"], 6);
  EXPECT_EQ(shown["array_progress"]["tasks"], 6);
  EXPECT_EQ(shown["array_progress"]["limit"], 2);
  ASSERT_TRUE(StepUntil([&] {
    for (int i = 0; i < 6; ++i) {
      if (StateOf(array + i) != JobState::kDone) return false;
    }
    return true;
  }));
  const std::vector<std::string> lines = Lines("tasks.txt");
  ASSERT_EQ(lines.size(), 6u);
  std::vector<std::string> tasks;
  for (const std::string& line : lines) {
    std::istringstream in(line);
    std::string job, task, count, max, step;
    int beside = 0;
    in >> job >> task >> count >> max >> step >> beside;
    EXPECT_EQ(job, std::to_string(array));
    EXPECT_EQ(count, "6");
    EXPECT_EQ(max, "10");
    EXPECT_EQ(step, "2");
    EXPECT_LE(beside, 2) << line;
    tasks.push_back(task);
  }
  std::sort(tasks.begin(), tasks.end());
  EXPECT_THAT(tasks, ElementsAre("0", "10", "2", "4", "6", "8"));
  EXPECT_EQ(service_->Get(alice_, array).Body()["array_progress"]["ended"], 6);
}

// Cancelling an array's id cancels every task; ID_TASK names one.
TEST_F(LiveQueueLinksTest, CancellingTheArraysIdCancelsEveryTaskAndATaskAlone) {
  const JobId array =
      Submit(R"("array": "1-5", "command": ["sleep", "30"], "gpus": 2)")["id"].get<JobId>();
  ASSERT_TRUE(StepUntil([&] { return StateOf(array) == JobState::kRunning; }));
  auto task3 = service_->ArrayTaskId(array, 3);
  ASSERT_TRUE(task3.ok());
  EXPECT_EQ(*task3, array + 2);
  EXPECT_FALSE(service_->ArrayTaskId(array, 9).ok());
  ASSERT_FALSE(service_->CancelTask(alice_, *task3).error);
  EXPECT_EQ(StateOf(*task3), JobState::kCancelled);
  EXPECT_EQ(StateOf(array + 3), JobState::kPending);
  ApiResult all = service_->Cancel(alice_, array);
  ASSERT_FALSE(all.error) << all.error->message;
  EXPECT_EQ(all.value["jobs"].size(), 5u);
  ASSERT_TRUE(StepUntil([&] {
    for (int i = 0; i < 5; ++i) {
      if (StateOf(array + i) != JobState::kCancelled) return false;
    }
    return true;
  }));
}

// A pipeline: preprocess, then an array of train tasks after it (afterok), then eval after the
// whole array: they run in that order, each waiting with reason Dependency meanwhile.
TEST_F(LiveQueueLinksTest, APipelineRunsInTheOrderItsDependenciesSay) {
  const JobId pre = Submit(R"("name": "preprocess", "command": ["bash", "-c",
      "sleep 0.5; echo preprocess >> order.txt"])")["id"].get<JobId>();
  const JobId train = Submit(R"("name": "train", "array": "0-3%2", "dependency": "afterok:)" +
                             std::to_string(pre) + R"(", "command": ["bash", "-c",
      "sleep 0.3; echo train $SLURM_ARRAY_TASK_ID >> order.txt"])")["id"].get<JobId>();
  const JobId eval = Submit(R"("name": "eval", "dependency": "afterok:)" + std::to_string(train) +
                            R"(", "command": ["bash", "-c", "echo eval >> order.txt"])")["id"]
                         .get<JobId>();
  queue_->Step(now_);
  EXPECT_EQ(queue_->ReasonCode(train), "Dependency");
  EXPECT_EQ(queue_->ReasonCode(eval), "Dependency");
  auto why = queue_->WhyJson(eval, now_);
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT((*why)["explanation"][0].get<std::string>(), HasSubstr("afterok:" + std::to_string(train)));
  ASSERT_TRUE(StepUntil([&] { return StateOf(eval) == JobState::kDone; }));
  const std::vector<std::string> order = Lines("order.txt");
  ASSERT_EQ(order.size(), 6u);
  EXPECT_EQ(order.front(), "preprocess");
  for (int i = 1; i <= 4; ++i) EXPECT_THAT(order[i], HasSubstr("train")) << order[i];
  EXPECT_EQ(order.back(), "eval");
}

// afterok on a job that fails: the job is cancelled (DependencyNeverSatisfied), and so is one
// waiting on it; afternotok runs. A dependency on a job that does not exist is refused.
TEST_F(LiveQueueLinksTest, AFailureCancelsWhatWaitsOnItsSuccessAndStartsWhatWaitsOnItsFailure) {
  EXPECT_THAT(SubmitFails(R"("command": ["true"], "dependency": "afterok:999")").message,
              HasSubstr("dependency: there is no job 999"));
  EXPECT_THAT(SubmitFails(R"("command": ["true"], "dependency": "afterok:x")").message,
              HasSubstr("dependency 'afterok:x'"));
  // An array after an array: every task names every task of the other, within a bound.
  const JobId wide = Submit(R"("command": ["true"], "array": "0-1000", "hold": true)")["id"].get<JobId>();
  EXPECT_THAT(SubmitFails(R"("command": ["true"], "array": "0-999", "dependency": "afterok:)" +
                          std::to_string(wide) + "\"").message,
              HasSubstr("1000 tasks each naming 1001 jobs is more than 1000000 links"));
  ASSERT_FALSE(service_->Cancel(alice_, wide).error);
  const JobId bad = Submit(R"("command": ["bash", "-c", "sleep 0.3; exit 2"])")["id"].get<JobId>();
  const std::string after = std::to_string(bad);
  const JobId ok_job = Submit(R"("command": ["true"], "dependency": "afterok:)" + after + "\"")["id"].get<JobId>();
  const JobId chained = Submit(R"("command": ["true"], "dependency": "afterany:)" +
                               std::to_string(ok_job) + ",afterok:" + std::to_string(ok_job) + "\"")["id"].get<JobId>();
  const JobId rescue = Submit(R"("command": ["true"], "dependency": "afternotok:)" + after + "\"")["id"].get<JobId>();
  ASSERT_TRUE(StepUntil([&] { return StateOf(rescue) == JobState::kDone; }));
  EXPECT_EQ(StateOf(bad), JobState::kFailed);
  EXPECT_EQ(StateOf(ok_job), JobState::kCancelled);
  EXPECT_THAT(store_->Get(ok_job)->reason, HasSubstr("DependencyNeverSatisfied"));
  EXPECT_EQ(StateOf(chained), JobState::kCancelled);
  // Submitted after its dependency failed: cancelled at once.
  const JobId late = Submit(R"("command": ["true"], "dependency": "afterok:)" + after + "\"")["id"].get<JobId>();
  queue_->Step(now_);
  EXPECT_EQ(StateOf(late), JobState::kCancelled);
}

// A restart takes back a job that waits on its dependency: it still waits, and runs once the
// job it waits for is done.
TEST_F(LiveQueueLinksTest, ARestartKeepsWaitingOnADependency) {
  const JobId first = Submit(R"("command": ["sleep", "0.8"])")["id"].get<JobId>();
  const JobId second = Submit(R"("command": ["true"], "dependency": "afterok:)" +
                              std::to_string(first) + "\"")["id"].get<JobId>();
  ASSERT_TRUE(StepUntil([&] { return StateOf(first) == JobState::kRunning; }));
  queue_->StopDispatch();
  service_.reset();
  queue_.reset();
  executor_ = std::make_unique<LocalExecutor>(ExecutorOptions{dir_.path(), "", 5000});
  GpuInventory found{"virtual", VirtualGpus("4").value(), {}};
  LiveQueueOptions options;
  queue_ = LiveQueue::Create(BuildLocalCluster(found, std::nullopt, "testhost").value(),
                             NamedPolicy("backfill").value(), *store_, *executor_, options)
               .value();
  ASSERT_TRUE(queue_->Recover(now_).ok());
  queue_->Step(now_);
  EXPECT_EQ(queue_->ReasonCode(second), "Dependency");
  ASSERT_TRUE(StepUntil([&] { return StateOf(second) == JobState::kDone; }));
  EXPECT_EQ(StateOf(first), JobState::kDone);
}

// squeue --start: a job waiting behind a run with an estimate is expected to start at that
// run's end (the why forecast); a job waiting on its dependency has no expected start.
TEST_F(LiveQueueLinksTest, TheListingGivesEachWaitingJobsExpectedStart) {
  const JobId blocker =
      Submit(R"("command": ["sleep", "30"], "gpus": 4, "estimate": "10m")")["id"].get<JobId>();
  ASSERT_TRUE(StepUntil([&] { return StateOf(blocker) == JobState::kRunning; }));
  const JobId waiting = Submit(R"("command": ["true"], "gpus": 4)")["id"].get<JobId>();
  const JobId after = Submit(R"("command": ["true"], "dependency": "afterok:)" +
                             std::to_string(waiting) + "\"")["id"].get<JobId>();
  queue_->Step(now_);
  const std::optional<Time> at = queue_->ExpectedStart(waiting, now_);
  ASSERT_TRUE(at.has_value());
  const Time started = store_->Get(blocker)->started_at.value();
  EXPECT_NEAR(ToSeconds(*at), ToSeconds(started + 10 * kMinute), 2.0);
  EXPECT_FALSE(queue_->ExpectedStart(after, now_).has_value());
  const nlohmann::json list =
      service_->List(alice_, {{"state", "pending"}, {"start", "true"}}).Body();
  ASSERT_EQ(list["jobs"].size(), 2u);
  EXPECT_EQ(list["jobs"][0]["expected_start_at"], FormatDateTime(*at));
  EXPECT_TRUE(list["jobs"][1]["expected_start_at"].is_null());
  EXPECT_TRUE(service_->List(alice_, {{"start", "maybe"}}).error.has_value());
  ASSERT_FALSE(service_->Cancel(alice_, blocker).error);
}

}  // namespace
}  // namespace squeeze
