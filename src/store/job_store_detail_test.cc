// JobStore's private details: a reason and an event as the job's owner and the admins see
// them, kept beside what every user sees; and rows an older squeeze (or a hand) left with
// text that is not UTF-8.
#include <gtest/gtest.h>

#include "core/testing/temp_dir.h"
#include "store/job_store.h"
#include "store/request_json.h"

namespace squeeze {
namespace {

std::unique_ptr<JobStore> Open(const std::string& dir) {
  auto store = JobStore::Open(dir);
  EXPECT_TRUE(store.ok()) << store.status().message();
  return store.ok() ? std::move(store).value() : nullptr;
}

JobId SubmitOne(JobStore& store) {
  JobRequest r;
  r.spec.name = "train";
  r.command = {"/home/bob/secret/train.sh"};
  auto id = store.Submit(r, "bob", 10);
  EXPECT_TRUE(id.ok());
  return id.ok() ? *id : 0;
}

TEST(JobStoreDetailTest, ARunEndKeepsItsDetailApartFromItsReason) {
  testing::TempDir dir;
  auto store = Open(dir.path());
  const JobId id = SubmitOne(*store);
  ASSERT_TRUE(store->RecordStart(id, 1, {0}, 20).ok());
  RunEnd end{127, JobState::kFailed, "the command could not be run (exit 127)", false, 1,
             std::nullopt, "cannot run '/home/bob/secret/train.sh' as user 'bob': No such file"};
  ASSERT_TRUE(store->RecordRunEnd(id, end, 30).ok());
  auto job = store->Get(id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->reason, "the command could not be run (exit 127)");
  EXPECT_EQ(job->reason_detail,
            "cannot run '/home/bob/secret/train.sh' as user 'bob': No such file");
  const JobEvent last = store->Events(id)->back();
  EXPECT_EQ(last.text, "exit code 127 -> failed: the command could not be run (exit 127)");
  EXPECT_EQ(last.detail,
            "exit code 127 -> failed: cannot run '/home/bob/secret/train.sh' as user 'bob': No "
            "such file");
  // The run events history views read carry it too.
  EXPECT_EQ(store->RunEvents(0, 100)->back().detail, last.detail);
}

TEST(JobStoreDetailTest, AStartAHoldOrAPlainStateClearsTheDetail) {
  testing::TempDir dir;
  auto store = Open(dir.path());
  const JobId id = SubmitOne(*store);
  ASSERT_TRUE(store->SetState(id, JobState::kPending, "the run could not be started", 5,
                              "cannot start: sbatch: /home/bob/job.sh: no such file")
                  .ok());
  EXPECT_EQ(store->Get(id)->reason_detail, "cannot start: sbatch: /home/bob/job.sh: no such file");
  EXPECT_EQ(store->Events(id)->back().detail,
            "pending: cannot start: sbatch: /home/bob/job.sh: no such file");
  ASSERT_TRUE(store->SetHeld(id, true, "held by bob", 6).ok());
  EXPECT_EQ(store->Get(id)->reason_detail, "");
  ASSERT_TRUE(store->SetState(id, JobState::kPending, "x", 7, "y").ok());
  ASSERT_TRUE(store->RecordStart(id, 1, {0}, 8).ok());
  EXPECT_EQ(store->Get(id)->reason_detail, "");
  ASSERT_TRUE(store->SetState(id, JobState::kDone, "", 9).ok());
  EXPECT_EQ(store->Get(id)->reason_detail, "");
  EXPECT_EQ(store->Events(id)->back().detail, "");
}

TEST(JobStoreDetailTest, ACheckpointsMarkerTextIsItsDetail) {
  testing::TempDir dir;
  auto store = Open(dir.path());
  const JobId id = SubmitOne(*store);
  ASSERT_TRUE(store->RecordCheckpoint(id, 5, "3f9a1c2e admin token").ok());
  ASSERT_TRUE(store->RecordCheckpoint(id, 6).ok());
  auto events = *store->Events(id);
  EXPECT_EQ(events[events.size() - 2].text, "checkpoint saved");
  EXPECT_EQ(events[events.size() - 2].detail, "checkpoint saved: 3f9a1c2e admin token");
  EXPECT_EQ(events.back().detail, "");
  ASSERT_TRUE(store->AppendEvent(id, 7, "note", "public", "private").ok());
  EXPECT_EQ(store->Events(id)->back().detail, "private");
}

TEST(JobStoreDetailTest, AStoreWithoutTheDetailColumnsGetsThemAndKeepsItsRows) {
  testing::TempDir dir;
  JobId id = 0;
  {
    auto store = Open(dir.path());
    id = SubmitOne(*store);
    ASSERT_TRUE(store->SetState(id, JobState::kFailed, "old reason", 5).ok());
  }
  {
    // As a squeeze from before the details left it.
    auto db = SqliteDb::Open(dir.path() + "/squeeze.db");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("ALTER TABLE jobs DROP COLUMN reason_detail").ok());
    ASSERT_TRUE((*db)->Exec("ALTER TABLE events DROP COLUMN detail").ok());
  }
  auto store = Open(dir.path());
  auto job = store->Get(id);
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->reason, "old reason");
  EXPECT_EQ(job->reason_detail, "");
  ASSERT_TRUE(store->SetState(id, JobState::kFailed, "new", 6, "new, in detail").ok());
  EXPECT_EQ(store->Get(id)->reason_detail, "new, in detail");
  // Opening again changes nothing.
  store.reset();
  EXPECT_EQ(Open(dir.path())->Get(id)->reason_detail, "new, in detail");
}

TEST(JobStoreDetailTest, ARowThatIsNotUtf8IsReadWithReplacementCharacters) {
  testing::TempDir dir;
  JobId id = 0;
  {
    auto store = Open(dir.path());
    id = SubmitOne(*store);
  }
  {
    auto db = SqliteDb::Open(dir.path() + "/squeeze.db");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)
                    ->Exec("UPDATE jobs SET request = CAST(X'7B2273706563223A7B226E616D65223A22"
                           "61FF62227D2C22636F6D6D616E64223A5B2274727565225D7D' AS TEXT), "
                           "reason = CAST(X'1B5B324A6FFF' AS TEXT); "
                           "UPDATE events SET text = CAST(X'7374657020FE' AS TEXT)")
                    .ok());  // {"spec":{"name":"a\xffb"},"command":["true"]}, "\x1b[2Jo\xff"
  }
  auto store = Open(dir.path());
  auto job = store->Get(id);
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->request.spec.name, "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(job->reason, "\x1b[2Jo\xEF\xBF\xBD");  // the controls are the printers' to escape
  EXPECT_EQ(store->Events(id)->front().text, "step \xEF\xBF\xBD");
  EXPECT_EQ(RequestFromJson("{\"spec\": {\"name\": \"x\xc0\xaf\"}}")->spec.name,
            "x\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_FALSE(RequestFromJson("{\"command\": [").ok());
}

}  // namespace
}  // namespace squeeze
