#include "serve/intake.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/policy.h"
#include "core/testing/temp_dir.h"
#include "exec/local_executor.h"
#include "serve/local_cluster.h"

namespace squeeze {
namespace {

struct Fixture {
  testing::TempDir dir{"squeeze-intake"};
  LocalExecutor local{ExecutorOptions{dir.path(), "", 5000}};
  LocalCluster cluster =
      BuildLocalCluster(GpuInventory{"virtual", VirtualGpus("2").value(), {}}, std::nullopt,
                        "testhost")
          .value();
  RunAsPolicy run_as;  // every job as the daemon's own account
  std::string workdir = dir.path() + "/work";

  std::unique_ptr<Intake> Make(std::chrono::milliseconds ttl) {
    return std::make_unique<Intake>(
        Scheduler::Create(cluster.spec, NamedPolicy("fifo").value()).value(), cluster.spec.pools,
        run_as, local, ttl);
  }
  JobRequest Job(std::string command) const {
    JobRequest r;
    r.command = {std::move(command)};
    r.workdir = workdir;
    r.spec.gpus = 1;
    return r;
  }
};

TEST(IntakeTest, ARunnableJobIsCheckedOnceWithinTheTtl) {
  Fixture f;
  std::filesystem::create_directories(f.workdir);
  auto intake = f.Make(std::chrono::hours(1));
  ASSERT_FALSE(intake->CheckSubmission("alice", f.Job("true")).error);
  std::filesystem::remove_all(f.workdir);
  // The same account, workdir and command: the check made a moment ago answers (the start
  // checks again as the account).
  EXPECT_FALSE(intake->CheckSubmission("alice", f.Job("true")).error)
      << "the check was made again: nothing was kept";
  // Another command is another check, made now.
  const ApiResult other = intake->CheckSubmission("alice", f.Job("sleep"));
  ASSERT_TRUE(other.error);
  EXPECT_EQ(other.error->http_status, 400);
  EXPECT_NE(other.error->message.find("workdir '" + f.workdir + "'"), std::string::npos)
      << other.error->message;
}

TEST(IntakeTest, AfterTheTtlAndAfterARefusalTheCheckIsMadeAgain) {
  Fixture f;
  std::filesystem::create_directories(f.workdir);
  auto expiring = f.Make(std::chrono::milliseconds(0));
  ASSERT_FALSE(expiring->CheckSubmission("alice", f.Job("true")).error);
  std::filesystem::remove_all(f.workdir);
  EXPECT_TRUE(expiring->CheckSubmission("alice", f.Job("true")).error) << "a stale check answered";

  auto keeping = f.Make(std::chrono::hours(1));
  EXPECT_TRUE(keeping->CheckSubmission("alice", f.Job("true")).error);
  std::filesystem::create_directories(f.workdir);
  EXPECT_FALSE(keeping->CheckSubmission("alice", f.Job("true")).error)
      << "a refusal was kept: the fixed workdir is still refused";
}

TEST(IntakeTest, AJobNoClusterCouldRunIsRefusedBeforeAnyCheck) {
  Fixture f;
  auto intake = f.Make(std::chrono::hours(1));
  JobRequest big = f.Job("true");
  big.spec.gpus = 64;
  const ApiResult r = intake->CheckSubmission("alice", big);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("the largest possible request is"), std::string::npos)
      << r.error->message;
}

TEST(IntakeTest, TheInboxGivesBackWhatWasAddedInOrderAndCountsItByUrgency) {
  Fixture f;
  auto intake = f.Make(std::chrono::hours(1));
  for (JobId id : {3, 1, 2}) {
    StoredJob job;
    job.id = id;
    job.request.spec.urgency = id == 1 ? Urgency::kHigh : Urgency::kNormal;
    intake->Add(job);
  }
  const auto waiting = intake->WaitingByUrgency();
  EXPECT_EQ(waiting.at("high"), 1);
  EXPECT_EQ(waiting.at("normal"), 2);
  const std::deque<StoredJob> taken = intake->TakeAll();
  ASSERT_EQ(taken.size(), 3u);
  EXPECT_EQ(taken[0].id, 3);
  EXPECT_EQ(taken[2].id, 2);
  EXPECT_TRUE(intake->TakeAll().empty());
  EXPECT_TRUE(intake->WaitingByUrgency().empty());
}

}  // namespace
}  // namespace squeeze
