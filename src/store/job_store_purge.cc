// JobStore's bound on its own growth: finished jobs' details purged after the retention an
// admin sets (config/job_limits.h), and the pages they took given back to the file system
// (incremental auto_vacuum). Called from the daemon's purger thread (serve/store_purger.h),
// in small transactions so that the scheduling step's writes never wait long.
#include <chrono>
#include <iterator>
#include <string>
#include <vector>

#include "store/job_store.h"
#include "store/store_time.h"

namespace squeeze {
namespace {

// A purge rewrites each row rather than updating it in place: SQLite leaves a page that an
// update shrank where it is, a row of 2 KiB to 0.5 KiB still filling its page alone, while a
// delete merges the pages it empties, whose space then goes back (ReclaimFreePages). The
// batch's rows are copied to a temporary table, slimmed there, deleted and inserted back with
// their ids.
constexpr const char* kSelectBatch[] = {
    // Made again each time: its columns are those of the jobs now.
    "DROP TABLE IF EXISTS temp.purging",
    "CREATE TEMP TABLE purging AS SELECT * FROM main.jobs WHERE 0",
    // Through the partial index of the finished jobs not purged yet, by end (without INDEXED
    // BY the planner takes jobs_by_state, a walk over every finished job, purged or not); its
    // terms match the index's, as SQLite requires to use it.
    "INSERT INTO temp.purging SELECT * FROM main.jobs WHERE id IN (SELECT id FROM main.jobs "
    "INDEXED BY jobs_to_purge WHERE purged_at IS NULL AND "
    "state IN ('done', 'failed', 'cancelled', 'timeout') AND ended_at < ?1 "
    "ORDER BY ended_at LIMIT ?2)",
    // What only a run needed goes; the profile (spec) stays for advise's replays, bar its
    // dependencies (a list of job ids that may be long).
    "UPDATE temp.purging SET request=json_remove(json_set(request, '$.command', json('[]'), "
    "'$.env', json('{}'), '$.workdir', ''), '$.output_path', '$.error_path', '$.dependency', "
    "'$.checkpoint_store', '$.spec.dependencies', '$.spec.dependency_any'), purged_at=?3",
};
constexpr const char* kRewriteRows[] = {
    "DELETE FROM main.jobs WHERE id IN (SELECT id FROM temp.purging)",
    "INSERT INTO main.jobs SELECT * FROM temp.purging ORDER BY id",
    // Every event but the accounting ones (serve/history_views.h reads these).
    "DELETE FROM main.events WHERE job_id IN (SELECT id FROM temp.purging) AND "
    "kind NOT IN ('submit', 'start', 'exit', 'end')",
};
constexpr const char* kMarkPurged =
    "INSERT INTO main.events(job_id, at, kind, text) "
    "SELECT id, ?3, 'purge', ?4 FROM temp.purging ORDER BY id";

// The private detail a reason or an event carries beside its public text where the store has
// such columns (a path, the command, a marker's text): cleared with the rest, the reason's
// before the rows go back, the kept events' after.
struct DetailColumn {
  const char* table;
  const char* column;
  const char* clear;
};
constexpr DetailColumn kDetailColumns[] = {
    {"jobs", "reason_detail", "UPDATE temp.purging SET reason_detail=''"},
    {"events", "detail",
     "UPDATE main.events SET detail='' WHERE job_id IN (SELECT id FROM temp.purging)"},
};

// The statements of one batch, in order, for the columns this store has.
Result<std::vector<std::string>> PurgeSteps(SqliteDb& db) {
  std::vector<std::string> clear_reason, clear_events;
  for (const DetailColumn& d : kDetailColumns) {
    auto has = db.QueryInt(std::string("SELECT COUNT(*) FROM pragma_table_info('") + d.table +
                           "') WHERE name='" + d.column + "'");
    if (!has.ok()) return has.status();
    if (*has == 0) continue;
    (std::string(d.table) == "jobs" ? clear_reason : clear_events).push_back(d.clear);
  }
  std::vector<std::string> steps(std::begin(kSelectBatch), std::end(kSelectBatch));
  steps.insert(steps.end(), clear_reason.begin(), clear_reason.end());
  steps.insert(steps.end(), std::begin(kRewriteRows), std::end(kRewriteRows));
  steps.insert(steps.end(), clear_events.begin(), clear_events.end());
  steps.push_back(kMarkPurged);
  return steps;
}

Result<int64_t> PragmaInt(SqliteDb& db, const std::string& pragma) {
  return db.QueryInt("PRAGMA " + pragma);
}

}  // namespace

Result<int> JobStore::PurgeDetails(Time before, int limit, Time now, const std::string& why) {
  std::lock_guard lock(write_mu_);
  int64_t purged = 0;
  Status status = [&]() -> Status {
    if (Status s = writer_->Run("BEGIN IMMEDIATE"); !s.ok()) return s;
    auto steps = PurgeSteps(*writer_);
    if (!steps.ok()) return steps.status();
    for (const std::string& sql : *steps) {
      auto stmt = writer_->Prepare(sql);
      if (!stmt.ok()) return stmt.status();
      // Each step takes the parameters it names (SQLite leaves out those it has not).
      stmt->Bind(1, ToStoreMillis(before));
      stmt->Bind(2, static_cast<int64_t>(limit));
      stmt->Bind(3, ToStoreMillis(now));
      stmt->Bind(4, why);
      if (Status s = stmt->Run(); !s.ok()) return s;
    }
    auto count = writer_->QueryInt("SELECT COUNT(*) FROM temp.purging");
    if (!count.ok()) return count.status();
    purged = *count;
    return writer_->Run("COMMIT");
  }();
  if (!status.ok()) {
    (void)writer_->Run("ROLLBACK");
    return status;
  }
  return static_cast<int>(purged);
}

Result<int64_t> JobStore::ReclaimFreePages(int64_t pages) {
  std::lock_guard lock(write_mu_);
  auto mode = PragmaInt(*writer_, "auto_vacuum");
  if (!mode.ok()) return mode.status();
  if (*mode != 2) return PragmaInt(*writer_, "freelist_count");
  if (Status s = writer_->Exec("PRAGMA incremental_vacuum(" + std::to_string(pages) + ")");
      !s.ok()) {
    return s;
  }
  auto left = PragmaInt(*writer_, "freelist_count");
  // The file shrinks when the WAL is checkpointed: now, as far as readers allow (no wait).
  if (left.ok() && *left == 0) (void)writer_->Exec("PRAGMA wal_checkpoint(PASSIVE)");
  return left;
}

Result<JobStore::Space> JobStore::SpaceUsed() {
  std::lock_guard lock(write_mu_);
  Space out;
  for (auto [pragma, target] : {std::pair<const char*, int64_t*>{"page_size", &out.page_size},
                                {"page_count", &out.pages},
                                {"freelist_count", &out.free_pages}}) {
    auto v = PragmaInt(*writer_, pragma);
    if (!v.ok()) return v.status();
    *target = *v;
  }
  auto mode = PragmaInt(*writer_, "auto_vacuum");
  if (!mode.ok()) return mode.status();
  out.incremental_vacuum = *mode == 2;
  return out;
}

std::string JobStore::ConvertToIncrementalVacuum(SqliteDb& db) {
  auto mode = PragmaInt(db, "auto_vacuum");
  if (!mode.ok()) return "auto_vacuum not read: " + mode.status().message();
  if (*mode == 2) return "";
  const auto began = std::chrono::steady_clock::now();
  Status s = db.Exec("PRAGMA auto_vacuum=INCREMENTAL");
  if (s.ok()) s = db.Exec("VACUUM");
  if (!s.ok()) {
    return "the store keeps the space of purged jobs for reuse (its one-time conversion to "
           "incremental auto_vacuum failed: " + s.message() + "; it is tried at each start)";
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return "converted the store to incremental auto_vacuum (a one-time VACUUM, " +
         std::to_string(static_cast<int64_t>(seconds * 1000)) + " ms), so that the space of "
         "purged jobs goes back to the file system";
}

}  // namespace squeeze
