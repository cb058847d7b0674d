#include "cli/store_history.h"

#include <gtest/gtest.h>

#include "core/testing/temp_dir.h"
#include "store/job_store.h"

namespace squeeze {
namespace {

JobRequest Request(int gpus, const std::string& team) {
  JobRequest r;
  r.spec.gpus = gpus;
  r.spec.team = team;
  r.spec.checkpointable = true;
  r.command = {"true"};
  return r;
}

// Three jobs: one done (submitted 1,000, ran 1,010-4,610), one failed (ran 2,000-2,100), one
// still pending: the history holds the two that ran, with their recorded times.
TEST(StoreHistoryTest, FinishedJobsWithTheirRecordedTimes) {
  testing::TempDir dir;
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto a = (*store)->Submit(Request(2, "vision"), "alice", Seconds(1000));
    auto b = (*store)->Submit(Request(1, ""), "bob", Seconds(1500));
    auto c = (*store)->Submit(Request(1, ""), "bob", Seconds(1600));
    ASSERT_TRUE(a.ok() && b.ok() && c.ok());
    ASSERT_TRUE((*store)->RecordStart(*a, 1, {0, 1}, Seconds(1010)).ok());
    ASSERT_TRUE((*store)->SetState(*a, JobState::kDone, "", Seconds(4610)).ok());
    ASSERT_TRUE((*store)->RecordStart(*b, 1, {2}, Seconds(2000)).ok());
    ASSERT_TRUE((*store)->SetState(*b, JobState::kFailed, "exit 1", Seconds(2100)).ok());
  }
  auto h = ReadStoreHistory(dir.path() + "/squeeze.db");
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->history.jobs.size(), 2u);
  EXPECT_TRUE(h->history.has_start_times);
  EXPECT_TRUE(h->history.has_teams);
  const HistoryJob& a = h->history.jobs[0];
  EXPECT_EQ(a.gpus, 2);
  EXPECT_EQ(a.team, "vision");
  EXPECT_EQ(a.submit, Seconds(1000));
  EXPECT_EQ(a.start, Seconds(1010));
  EXPECT_EQ(a.end, Seconds(4610));
  EXPECT_TRUE(a.checkpointable);
  ASSERT_EQ(h->trace.jobs.size(), 2u);
  EXPECT_EQ(h->trace.jobs[0].spec.submit_time, 0);  // from the first submit
  EXPECT_EQ(h->trace.jobs[1].spec.submit_time, 500 * kSecond);
  EXPECT_EQ(h->trace.jobs[0].duration, kHour);
}

// An elastic job that ran an hour on 8 GPUs and an hour on 4 (linear): one and a half hours
// of work at 8, the width it ran at longest (the widest of equals).
TEST(StoreHistoryTest, AnElasticJobsWorkAtTheWidthItRanAtLongest) {
  testing::TempDir dir;
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok()) << store.status().message();
    JobRequest r = Request(2, "");
    r.spec.elastic.min = 2;
    r.spec.elastic.max = 8;
    auto a = (*store)->Submit(r, "alice", Seconds(1000));
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE((*store)->RecordStart(*a, 1, {0, 1, 2, 3, 4, 5, 6, 7}, Seconds(1000)).ok());
    RunEnd shrunk;
    shrunk.next = JobState::kPending;
    ASSERT_TRUE((*store)->RecordRunEnd(*a, shrunk, Seconds(4600)).ok());
    ASSERT_TRUE((*store)->RecordStart(*a, 2, {0, 1, 2, 3}, Seconds(4600)).ok());
    ASSERT_TRUE((*store)->SetState(*a, JobState::kDone, "", Seconds(8200)).ok());
  }
  auto h = ReadStoreHistory(dir.path() + "/squeeze.db");
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->trace.jobs.size(), 1u);
  EXPECT_EQ(h->trace.jobs[0].spec.elastic.Reference(), 8);
  EXPECT_EQ(h->trace.jobs[0].duration, 90 * kMinute);
}

// Times are whole seconds: a run that ended in the second it started is a run of one second,
// not one that never ran (a `true` the daemon starts and sees end within 200 ms).
TEST(StoreHistoryTest, ARunShorterThanASecondLastsOne) {
  testing::TempDir dir;
  {
    auto store = JobStore::Open(dir.path());
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto a = (*store)->Submit(Request(1, ""), "alice", Seconds(1000));
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE((*store)->RecordStart(*a, 1, {0}, Seconds(1000)).ok());
    ASSERT_TRUE((*store)->SetState(*a, JobState::kDone, "", Seconds(1000)).ok());
  }
  auto h = ReadStoreHistory(dir.path() + "/squeeze.db");
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->trace.jobs.size(), 1u);
  EXPECT_EQ(h->trace.jobs[0].duration, kSecond);
  EXPECT_EQ(h->history.jobs[0].end, Seconds(1001));
}

TEST(StoreHistoryTest, NoStoreThereIsAnErrorAndCreatesNothing) {
  testing::TempDir dir;
  auto h = ReadStoreHistory(dir.path() + "/nothing");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("no squeeze.db there"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/nothing"));
}

}  // namespace
}  // namespace squeeze
