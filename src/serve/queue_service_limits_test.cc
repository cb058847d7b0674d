// Who may ask for what, through the API's submission and update (QueueService) with its real
// parts: a SQLite store, the live queue, the local executor on virtual GPUs. A refusal stores
// nothing; the waiting caps free up as jobs start.
#include <signal.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/temp_dir.h"
#include "exec/local_executor.h"
#include "serve/live_queue.h"
#include "serve/queue_service.h"
#include "serve/testing/run_sweeper.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

class QueueServiceLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::move(JobStore::Open(dir_.path()).value());
    executor_ = std::make_unique<LocalExecutor>(ExecutorOptions{dir_.path(), "", 5000});
    GpuInventory found{"virtual", VirtualGpus("1").value(), {}};
    LocalCluster cluster = BuildLocalCluster(found, std::nullopt, "testhost").value();
    queue_ = LiveQueue::Create(cluster, NamedPolicy("backfill").value(), *store_, *executor_,
                               LiveQueueOptions())
                 .value();
    JobLimits limits;
    limits.source = "limits.yaml";
    limits.everyone.max_waiting_jobs_per_user = 3;
    limits.everyone.max_tasks_per_submission = 50;
    limits.teams["vision"].max_urgency = Urgency::kCritical;
    service_ = std::make_unique<QueueService>(dir_.path(), *store_, *queue_,
                                              [this] { return now_; }, [] {}, nullptr, limits);
  }
  void TearDown() override {
    service_.reset();
    queue_.reset();
    ::squeeze::testing::KillRunsLeftIn(dir_.path());
  }

  ApiResult Submit(const Principal& who, const std::string& fields) {
    return service_->Submit(who, R"({"command": ["sleep", "30"], )" + fields + "}");
  }
  int64_t Stored() {
    int64_t n = 0;
    const auto counts = store_->CountByState();
    for (const auto& [state, count] : counts.value()) n += count;
    return n;
  }

  ::squeeze::testing::TempDir dir_{"squeeze-limits"};
  std::unique_ptr<JobStore> store_;
  std::unique_ptr<LocalExecutor> executor_;
  std::unique_ptr<LiveQueue> queue_;
  std::unique_ptr<QueueService> service_;
  const Principal bob_{"bob", "ml", false};
  const Principal alice_{"alice", "vision", false};
  const Principal admin_{"root", "admin", true};
  Time now_ = Seconds(1'800'000'000);
};

TEST_F(QueueServiceLimitsTest, UrgencyAboveTheCeilingIsRefusedAndNothingStored) {
  ApiResult r = Submit(bob_, R"("urgency": "critical")");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->http_status, 403);
  EXPECT_THAT(r.error->message, HasSubstr("urgency: 'critical' is above the ceiling 'normal' for "
                                          "user bob of team ml"));
  // An array asking the same is refused whole.
  r = Submit(bob_, R"("urgency": "high", "array": "0-9")");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->http_status, 403);
  EXPECT_EQ(Stored(), 0);
  // A team the admin allowed, and an admin.
  EXPECT_FALSE(Submit(alice_, R"("urgency": "critical", "gpus": 0)").error);
  EXPECT_FALSE(Submit(admin_, R"("urgency": "critical", "gpus": 0, "team": "ml")").error);
  EXPECT_EQ(Stored(), 2);
}

TEST_F(QueueServiceLimitsTest, AnArrayOverACapStoresNoTaskOfIt) {
  ApiResult r = Submit(bob_, R"("array": "0-99999")");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->http_status, 403);
  EXPECT_THAT(r.error->message, HasSubstr("max_tasks_per_submission: the array '0-99999' has "
                                          "100000 tasks, the cap is 50"));
  r = Submit(bob_, R"("array": "0-3")");  // 4 tasks, within 50, but over 3 waiting
  ASSERT_TRUE(r.error);
  EXPECT_THAT(r.error->message, HasSubstr("max_waiting_jobs_per_user: bob has 0 waiting jobs, the "
                                          "cap is 3; this submission adds 4"));
  EXPECT_EQ(Stored(), 0);
  EXPECT_FALSE(Submit(bob_, R"("array": "0-2")").error);
  EXPECT_EQ(Stored(), 3);
}

// One by one: the fourth waiting job is refused while another user still submits; once one of
// them starts, a place is free again.
TEST_F(QueueServiceLimitsTest, OneByOneTheCapHoldsAndFreesAsJobsStart) {
  for (int i = 0; i < 3; ++i) ASSERT_FALSE(Submit(bob_, R"("gpus": 1)").error) << i;
  ApiResult r = Submit(bob_, R"("gpus": 1)");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->http_status, 403);
  EXPECT_THAT(r.error->message,
              HasSubstr("max_waiting_jobs_per_user: bob has 3 waiting jobs, the cap is 3; this "
                        "submission adds 1 (set by an admin as limits.max_waiting_jobs_per_user "
                        "in limits.yaml)"));
  EXPECT_FALSE(Submit(alice_, R"("gpus": 1)").error);
  EXPECT_EQ(Stored(), 4);
  queue_->Step(now_);  // bob's first job takes the one GPU
  EXPECT_EQ(store_->Get(1)->state, JobState::kRunning);
  EXPECT_EQ(service_->Nodes(bob_).value["limits"]["yours"]["waiting_jobs"], 2);
  EXPECT_FALSE(Submit(bob_, R"("gpus": 1)").error);
  EXPECT_TRUE(Submit(bob_, R"("gpus": 1)").error);
}

// A restarted daemon answers while it takes its queue back: the store's waiting jobs count
// from the start, not from the end of the recovery.
TEST_F(QueueServiceLimitsTest, TheCapHoldsWhileTheQueueIsTakenBack) {
  JobRequest r;
  r.command = {"sleep", "30"};
  r.spec.team = "ml";
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(store_->Submit(r, "bob", now_).ok());
  ASSERT_TRUE(queue_->CountWaitingInStore().ok());
  EXPECT_EQ(service_->Nodes(bob_).value["limits"]["yours"]["waiting_jobs"], 3);  // publishes
  ApiResult refused = Submit(bob_, R"("gpus": 1)");
  ASSERT_TRUE(refused.error);
  EXPECT_THAT(refused.error->message, HasSubstr("bob has 3 waiting jobs, the cap is 3"));
  ASSERT_TRUE(queue_->Recover(now_).ok());
  EXPECT_TRUE(Submit(bob_, R"("gpus": 1)").error);
  queue_->Step(now_);  // one of them takes the GPU
  EXPECT_FALSE(Submit(bob_, R"("gpus": 1)").error);
}

TEST_F(QueueServiceLimitsTest, AnUpdateAboveTheCeilingIsRefusedButALowerOneIsNot) {
  const JobId id = Submit(bob_, R"("gpus": 1)").value["id"].get<JobId>();
  const JobId second = Submit(bob_, R"("gpus": 1)").value["id"].get<JobId>();
  queue_->Step(now_);  // the first runs, the second waits
  ApiResult r = service_->Control(bob_, second, "update", R"({"urgency": "critical"})");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->http_status, 403);
  EXPECT_THAT(r.error->message, HasSubstr("job " + std::to_string(second) +
                                          ": urgency: 'critical' is above the ceiling 'normal'"));
  EXPECT_EQ(store_->Get(second)->request.spec.urgency, Urgency::kNormal);
  EXPECT_FALSE(service_->Control(bob_, second, "update", R"({"urgency": "low"})").error);
  // An admin raises it; bob may then keep it or lower it, not raise it again past his ceiling.
  ASSERT_FALSE(service_->Control(admin_, second, "update", R"({"urgency": "critical"})").error);
  EXPECT_EQ(store_->Get(second)->request.spec.urgency, Urgency::kCritical);
  EXPECT_FALSE(service_->Control(bob_, second, "update", R"({"urgency": "high"})").error);
  // Someone else's job: the owner's rule answers, not the ceiling.
  r = service_->Control(alice_, id, "update", R"({"urgency": "critical"})");
  ASSERT_TRUE(r.error);
  EXPECT_THAT(r.error->message, HasSubstr("belongs to bob"));
}

}  // namespace
}  // namespace squeeze
