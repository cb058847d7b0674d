// The retention of finished jobs' details on a real SQLite store: what a purge drops and what
// it keeps, and the file's space given back.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/testing/temp_dir.h"
#include "store/job_store.h"

namespace squeeze {
namespace {

JobRequest Detailed(const std::string& name, size_t env_bytes = 64) {
  JobRequest r;
  r.spec.name = name;
  r.spec.team = "ml";
  r.spec.urgency = Urgency::kHigh;
  r.spec.gpus = 2;
  r.spec.checkpointable = true;
  r.spec.checkpoint_interval = 600;
  r.spec.estimate = 3600;
  r.spec.dependencies = {{DependencyKind::kAfterOk, {1, 2, 3}}};
  r.command = {"bash", "-c", "echo a long script"};
  r.workdir = "/home/bob/project";
  r.env = {{"API_KEY", "s3cr3t"}, {"PADDING", std::string(env_bytes, 'x')}};
  r.output_path = "out_%j.txt";
  r.error_path = "err_%j.txt";
  r.dependency = "afterok:1:2:3";
  r.checkpoint_store.url = "s3://bucket/ckpt";
  return r;
}

// A job that ran on GPUs [0,1] from `start` to `end` and ended `state`, with the events a run
// leaves (and a few that are not accounting ones).
JobId Ran(JobStore& store, const JobRequest& r, Time submit, Time start, Time end,
          JobState state = JobState::kDone) {
  const JobId id = *store.Submit(r, "bob", submit);
  EXPECT_TRUE(store.RecordStart(id, 1, {0, 1}, start, "owned").ok());
  EXPECT_TRUE(store.RecordCheckpoint(id, start + 1, "step 9").ok());
  EXPECT_TRUE(store.AppendEvent(id, start + 2, "placed", "a note of the run").ok());
  EXPECT_TRUE(store.RecordExit(id, state == JobState::kDone ? 0 : 1, end).ok());
  EXPECT_TRUE(store.SetState(id, state, "", end).ok());
  return id;
}

std::vector<std::string> Kinds(JobStore& store, JobId id) {
  std::vector<std::string> out;
  for (const JobEvent& e : store.Events(id).value()) out.push_back(e.kind);
  return out;
}

TEST(JobStorePurgeTest, APurgeDropsTheDetailsAndKeepsTheAccountingRow) {
  testing::TempDir dir("squeeze-purge");
  auto store = std::move(JobStore::Open(dir.path()).value());
  const JobId old = Ran(*store, Detailed("old"), 100, 160, 1000);
  const JobId recent = Ran(*store, Detailed("recent"), 100, 160, 5000);
  const JobId waiting = *store->Submit(Detailed("waiting"), "bob", 100);
  const StoredJob before = store->Get(old).value();
  const auto run_events = store->RunEvents(0, 10000).value();

  auto purged = store->PurgeDetails(/*before=*/2000, 100, /*now=*/9000, "after 30d");
  ASSERT_TRUE(purged.ok()) << purged.status().message();
  EXPECT_EQ(*purged, 1);

  const StoredJob after = store->Get(old).value();
  // Gone: what only a run needed, and the private fields.
  EXPECT_TRUE(after.request.command.empty());
  EXPECT_TRUE(after.request.env.empty());
  EXPECT_TRUE(after.request.workdir.empty());
  EXPECT_TRUE(after.request.output_path.empty() && after.request.error_path.empty());
  EXPECT_TRUE(after.request.dependency.empty() && after.request.spec.dependencies.empty());
  EXPECT_FALSE(after.request.checkpoint_store.named());
  EXPECT_EQ(after.details_purged_at, 9000);
  EXPECT_EQ(Kinds(*store, old),
            (std::vector<std::string>{"submit", "start", "exit", "purge"}));
  EXPECT_EQ(store->Events(old).value().back().text, "after 30d");
  // Kept: the row's accounting and the scheduling profile advise replays.
  EXPECT_EQ(after.owner, "bob");
  EXPECT_EQ(after.state, JobState::kDone);
  EXPECT_EQ(after.submitted_at, before.submitted_at);
  EXPECT_EQ(after.started_at, before.started_at);
  EXPECT_EQ(after.ended_at, before.ended_at);
  EXPECT_EQ(after.exit_code, before.exit_code);
  EXPECT_EQ(after.waited, before.waited);
  EXPECT_EQ(after.ran, before.ran);
  EXPECT_EQ(after.ran, 1000 - 160);
  EXPECT_EQ(after.gpus, before.gpus);
  EXPECT_EQ(after.attempts, 1);
  EXPECT_EQ(after.request.spec.name, "old");
  EXPECT_EQ(after.request.spec.team, "ml");
  EXPECT_EQ(after.request.spec.gpus, 2);
  EXPECT_EQ(after.request.spec.urgency, Urgency::kHigh);
  EXPECT_EQ(after.request.spec.checkpoint_interval, 600);
  EXPECT_EQ(after.request.spec.estimate, 3600);
  // history, cost and advise read the same run events as before.
  const auto run_events_after = store->RunEvents(0, 10000).value();
  ASSERT_EQ(run_events_after.size(), run_events.size());
  for (size_t i = 0; i < run_events.size(); ++i) {
    EXPECT_EQ(run_events_after[i].kind, run_events[i].kind);
    EXPECT_EQ(run_events_after[i].text, run_events[i].text);
  }
  // Untouched: a job that ended after the cutoff, and one that has not ended.
  EXPECT_EQ(store->Get(recent)->request.env.at("API_KEY"), "s3cr3t");
  EXPECT_FALSE(store->Get(recent)->details_purged_at.has_value());
  EXPECT_EQ(Kinds(*store, recent).size(), 6u);
  EXPECT_EQ(store->Get(waiting)->request.command.size(), 3u);
  // Purged once: a second round finds nothing.
  EXPECT_EQ(store->PurgeDetails(2000, 100, 9500, "again").value(), 0);
  EXPECT_EQ(store->Get(old)->details_purged_at, 9000);
}

// Where the store keeps a reason's and an event's private detail beside its text (columns
// another part of squeeze adds to a store of any version), the purge clears those too.
TEST(JobStorePurgeTest, PrivateDetailColumnsAreClearedToo) {
  testing::TempDir dir("squeeze-purge");
  auto store = std::move(JobStore::Open(dir.path()).value());
  const JobId id = Ran(*store, Detailed("old"), 100, 160, 1000);
  const JobId recent = Ran(*store, Detailed("recent"), 100, 160, 5000);
  {
    auto db = std::move(SqliteDb::Open(dir.path() + "/squeeze.db").value());
    using Column = std::pair<std::string, std::string>;
    const Column kColumns[] = {{"jobs", "reason_detail"}, {"events", "detail"}};
    for (const auto& [table, column] : kColumns) {
      const std::string has = "SELECT COUNT(*) FROM pragma_table_info('" + table +
                              "') WHERE name='" + column + "'";
      if (db->QueryInt(has).value() > 0) continue;  // this store has it already
      ASSERT_TRUE(db->Exec("ALTER TABLE " + table + " ADD COLUMN " + column +
                           " TEXT NOT NULL DEFAULT ''").ok());
    }
    ASSERT_TRUE(db->Exec("UPDATE jobs SET reason_detail='/home/bob/secret.sh failed'; "
                         "UPDATE events SET detail='bash -c echo a long script'")
                    .ok());
  }
  EXPECT_EQ(store->PurgeDetails(2000, 10, 9000, "x").value(), 1);
  auto db = std::move(SqliteDb::Open(dir.path() + "/squeeze.db").value());
  const std::string job = std::to_string(id), other = std::to_string(recent);
  EXPECT_EQ(db->QueryInt("SELECT COUNT(*) FROM jobs WHERE id=" + job + " AND reason_detail=''")
                .value(), 1);
  EXPECT_EQ(db->QueryInt("SELECT COUNT(*) FROM events WHERE job_id=" + job + " AND detail!=''")
                .value(), 0);
  EXPECT_EQ(db->QueryInt("SELECT COUNT(*) FROM events WHERE job_id=" + job).value(), 4);
  EXPECT_EQ(db->QueryInt("SELECT COUNT(*) FROM jobs WHERE id=" + other + " AND reason_detail=''")
                .value(), 0);
  EXPECT_EQ(db->QueryInt("SELECT COUNT(*) FROM events WHERE job_id=" + other + " AND detail=''")
                .value(), 0);
}

TEST(JobStorePurgeTest, EachRoundTakesTheOldestEndsFirstUpToItsLimit) {
  testing::TempDir dir("squeeze-purge");
  auto store = std::move(JobStore::Open(dir.path()).value());
  std::vector<JobId> ids;
  for (Time end : {500, 300, 400, 200}) ids.push_back(Ran(*store, Detailed("j"), 10, 20, end));
  const JobId cancelled = *store->Submit(Detailed("never ran"), "bob", 10);
  ASSERT_TRUE(store->SetState(cancelled, JobState::kCancelled, "by bob", 100).ok());
  EXPECT_EQ(store->PurgeDetails(1000, 2, 2000, "x").value(), 2);
  EXPECT_TRUE(store->Get(cancelled)->details_purged_at.has_value());  // ended at 100
  EXPECT_TRUE(store->Get(ids[3])->details_purged_at.has_value());     // ended at 200
  EXPECT_FALSE(store->Get(ids[1])->details_purged_at.has_value());
  EXPECT_EQ(store->PurgeDetails(1000, 2, 2000, "x").value(), 2);
  EXPECT_EQ(store->PurgeDetails(1000, 2, 2000, "x").value(), 1);
  EXPECT_EQ(store->PurgeDetails(1000, 2, 2000, "x").value(), 0);
}

// 1,000 finished jobs with 4 KiB of environment each: purged and reclaimed, the file is less
// than half its size.
TEST(JobStorePurgeTest, TheFileShrinksAfterAPurge) {
  testing::TempDir dir("squeeze-purge");
  JobStore::Options quick;
  quick.fsync_each_commit = false;
  auto store = std::move(JobStore::Open(dir.path(), quick).value());
  for (int i = 0; i < 1000; ++i) Ran(*store, Detailed("j", 4096), 10, 20, 30);
  const JobStore::Space before = store->SpaceUsed().value();
  EXPECT_TRUE(before.incremental_vacuum);
  EXPECT_EQ(store->PurgeDetails(100, 5000, 200, "x").value(), 1000);
  int64_t left = 1;
  for (int i = 0; i < 1000 && left > 0; ++i) left = store->ReclaimFreePages(256).value();
  EXPECT_EQ(left, 0);
  const JobStore::Space after = store->SpaceUsed().value();
  EXPECT_LT(after.pages * after.page_size * 2, before.pages * before.page_size)
      << "before " << before.pages << " pages, after " << after.pages;
  EXPECT_EQ(after.free_pages, 0);
}

// A store of an older squeeze (no auto_vacuum) is converted once by the daemon's open, and is
// left alone by other readers'.
TEST(JobStorePurgeTest, AnOlderStoreIsConvertedOnceByTheDaemonsOpen) {
  testing::TempDir dir("squeeze-purge");
  {
    auto store = std::move(JobStore::Open(dir.path()).value());
    (void)*store->Submit(Detailed("j"), "bob", 10);
  }
  {
    auto db = std::move(SqliteDb::Open(dir.path() + "/squeeze.db").value());
    ASSERT_TRUE(db->Exec("PRAGMA auto_vacuum=NONE; VACUUM").ok());
  }
  {
    auto reader = std::move(JobStore::Open(dir.path()).value());
    EXPECT_FALSE(reader->SpaceUsed()->incremental_vacuum);
    EXPECT_EQ(reader->open_note(), "");
  }
  JobStore::Options daemon;
  daemon.reclaim_space = true;
  {
    auto store = std::move(JobStore::Open(dir.path(), daemon).value());
    EXPECT_TRUE(store->SpaceUsed()->incremental_vacuum);
    EXPECT_NE(store->open_note().find("converted the store to incremental auto_vacuum"),
              std::string::npos)
        << store->open_note();
    EXPECT_EQ(store->Get(1)->request.spec.name, "j");
  }
  auto again = std::move(JobStore::Open(dir.path(), daemon).value());
  EXPECT_EQ(again->open_note(), "");
}

// A version-3 store (before purges) gains the purge column and its index at open (and its times
// in milliseconds, version 5); the purge's
// query uses the index rather than a scan of every job.
TEST(JobStorePurgeTest, AVersionThreeStoreIsMigratedAndThePurgeUsesItsIndex) {
  testing::TempDir dir("squeeze-purge");
  {
    auto store = std::move(JobStore::Open(dir.path()).value());
    Ran(*store, Detailed("j"), Seconds(10), Seconds(20), Seconds(30));
  }
  {
    auto db = std::move(SqliteDb::Open(dir.path() + "/squeeze.db").value());
    ASSERT_TRUE(db->Exec("DROP INDEX jobs_to_purge; ALTER TABLE jobs DROP COLUMN purged_at; "
                         "DELETE FROM schema_version; INSERT INTO schema_version VALUES (3); "
                         // version 3 kept seconds where 5 keeps milliseconds
                         "UPDATE jobs SET submitted_at=submitted_at/1000, "
                         "started_at=started_at/1000, ended_at=ended_at/1000, ran=ran/1000, "
                         "waited=waited/1000; UPDATE events SET at=at/1000")
                    .ok());
  }
  auto store = std::move(JobStore::Open(dir.path()).value());
  EXPECT_FALSE(store->Get(1)->details_purged_at.has_value());
  EXPECT_EQ(store->Get(1)->ended_at, Seconds(30));
  EXPECT_EQ(store->PurgeDetails(Seconds(100), 10, Seconds(200), "x").value(), 1);
  auto db = std::move(SqliteDb::Open(dir.path() + "/squeeze.db").value());
  auto plan = db->Prepare(
      "EXPLAIN QUERY PLAN SELECT id FROM jobs INDEXED BY jobs_to_purge WHERE purged_at IS NULL "
      "AND state IN ('done', 'failed', 'cancelled', 'timeout') AND ended_at < 5 "
      "ORDER BY ended_at LIMIT 10");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::string text;
  while (*plan->Step()) text += plan->Text(3) + "\n";
  EXPECT_NE(text.find("jobs_to_purge"), std::string::npos) << text;
  auto version = db->Prepare("SELECT MAX(version) FROM schema_version");
  ASSERT_TRUE(*version->Step());
  EXPECT_EQ(version->Int(0), 5);
}

}  // namespace
}  // namespace squeeze
