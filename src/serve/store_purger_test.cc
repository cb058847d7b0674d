#include "serve/store_purger.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/testing/temp_dir.h"

namespace squeeze {
namespace {

constexpr Time kNow = Seconds(1'800'000'000);

JobId Finished(JobStore& store, Time ended) {
  JobRequest r;
  r.spec.name = "j";
  r.command = {"true"};
  r.env = {{"KEY", std::string(2048, 'k')}};
  const JobId id = *store.Submit(r, "bob", ended - 10 * kSecond);
  EXPECT_TRUE(store.RecordStart(id, 1, {0}, ended - 5 * kSecond).ok());
  EXPECT_TRUE(store.RecordExit(id, 0, ended).ok());
  EXPECT_TRUE(store.SetState(id, JobState::kDone, "", ended).ok());
  return id;
}

TEST(StorePurgerTest, ARoundPurgesWhatEndedBeforeTheRetentionInBatches) {
  testing::TempDir dir("squeeze-purger");
  auto store = std::move(JobStore::Open(dir.path(), {.fsync_each_commit = false}).value());
  std::vector<JobId> old;
  for (int i = 0; i < 7; ++i) old.push_back(Finished(*store, kNow - 2 * kDay));
  const JobId recent = Finished(*store, kNow - kHour);
  StorePurgerOptions o;
  o.retention = kDay;
  o.batch = 3;  // three transactions: 3, 3, 1
  o.pause = std::chrono::milliseconds(1);
  StorePurger purger(*store, o, [] { return kNow; }, nullptr, nullptr);
  auto round = purger.RunOnce();
  ASSERT_TRUE(round.ok()) << round.status().message();
  EXPECT_EQ(round->purged, 7);
  EXPECT_EQ(round->before, kNow - kDay);
  EXPECT_GT(round->bytes_before, 0);
  EXPECT_LE(round->bytes_after, round->bytes_before);
  for (JobId id : old) EXPECT_TRUE(store->Get(id)->details_purged_at.has_value());
  EXPECT_FALSE(store->Get(recent)->details_purged_at.has_value());
  EXPECT_NE(store->Events(old[0])->back().text.find("after the retention of 1d"),
            std::string::npos);
  EXPECT_EQ(purger.RunOnce()->purged, 0);
}

TEST(StorePurgerTest, ItsThreadPurgesEveryIntervalAndStopsAtOnce) {
  testing::TempDir dir("squeeze-purger");
  auto store = std::move(JobStore::Open(dir.path(), {.fsync_each_commit = false}).value());
  Finished(*store, kNow - 100 * kSecond);
  StorePurgerOptions o;
  o.retention = 10 * kSecond;
  o.interval = kSecond;
  std::atomic<int64_t> told{0};
  StorePurger purger(*store, o, [] { return kNow; },
                     [&](const StorePurger::Round& r) { told += r.purged; }, nullptr);
  purger.Start();
  for (int i = 0; i < 100 && told.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(told.load(), 1);
  const auto began = std::chrono::steady_clock::now();
  purger.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::milliseconds(900));
}

TEST(StorePurgerTest, ARetentionOfZeroKeepsEverything) {
  EXPECT_EQ(PurgeInterval(30 * kDay), kHour);
  EXPECT_EQ(PurgeInterval(2 * kSecond), kSecond);
  EXPECT_EQ(PurgeInterval(kMinute), 15 * kSecond);
  testing::TempDir dir("squeeze-purger");
  auto store = std::move(JobStore::Open(dir.path(), {.fsync_each_commit = false}).value());
  const JobId id = Finished(*store, kNow - 100 * kDay);
  StorePurger purger(*store, StorePurgerOptions(), [] { return kNow; }, nullptr, nullptr);
  purger.Start();  // starts nothing
  purger.Stop();
  EXPECT_FALSE(store->Get(id)->details_purged_at.has_value());
}

}  // namespace
}  // namespace squeeze
