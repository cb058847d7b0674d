#include "store/job_store_schema.h"

#include <string>
#include <utility>

namespace squeeze {
namespace {

constexpr int64_t kSchemaVersion = 5;

constexpr const char* kSchema = R"sql(
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  owner TEXT NOT NULL,
  team TEXT NOT NULL,
  name TEXT NOT NULL,
  urgency INTEGER NOT NULL,
  gpus INTEGER NOT NULL,
  state TEXT NOT NULL,
  submitted_at INTEGER NOT NULL,
  started_at INTEGER,
  ended_at INTEGER,
  exit_code INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  preemptions INTEGER NOT NULL DEFAULT 0,
  last_checkpoint INTEGER,
  reason TEXT NOT NULL DEFAULT '',
  run_gpus TEXT NOT NULL DEFAULT '[]',
  request TEXT NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0,
  not_before INTEGER,
  waited INTEGER NOT NULL DEFAULT 0,
  ran INTEGER NOT NULL DEFAULT 0,
  held INTEGER NOT NULL DEFAULT 0,
  purged_at INTEGER);
CREATE INDEX jobs_by_state ON jobs(state, id);
CREATE INDEX jobs_by_owner ON jobs(owner, id);
CREATE INDEX jobs_by_team ON jobs(team, id);
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id INTEGER NOT NULL,
  at INTEGER NOT NULL,
  kind TEXT NOT NULL,
  text TEXT NOT NULL);
CREATE INDEX events_by_job ON events(job_id, seq);
)sql";

// The finished jobs whose details are still kept, by when they ended (job_store_purge.cc).
constexpr const char* kPurgeIndex = R"sql(
CREATE INDEX jobs_to_purge ON jobs(ended_at)
  WHERE purged_at IS NULL AND state IN ('done', 'failed', 'cancelled', 'timeout');
)sql";

// The ended jobs, the latest end first (GET /v1/jobs?order=ended: the dashboard's list).
constexpr const char* kEndedIndex =
    "CREATE INDEX IF NOT EXISTS jobs_by_end ON jobs(ended_at, id) WHERE ended_at IS NOT NULL";

constexpr const char* kNodeEventsTable = R"sql(
CREATE TABLE IF NOT EXISTS node_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  node TEXT NOT NULL,
  kind TEXT NOT NULL,
  text TEXT NOT NULL);
)sql";

constexpr const char* kMigrate1To2 = R"sql(
ALTER TABLE jobs ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN not_before INTEGER;
)sql";

// Columns added to a store of any version when missing (not part of the versioned schema: an
// older squeeze reads and writes around them): each reason's and event's detail, the form its
// job's owner and the admins see (a path, the command, the checkpoint marker's text).
// And the ended runs' times by their widths, a JSON object ('' in rows from before it).
constexpr std::pair<const char*, const char*> kDetailColumns[] = {
    {"jobs", "reason_detail"}, {"events", "detail"}, {"jobs", "ran_by_width"}};
// Likewise: the ended runs' times each multiplied by its GPUs, summed (what an elastic job held:
// its runs have different widths; 0 in rows from before it).
constexpr std::pair<const char*, const char*> kCountColumns[] = {{"jobs", "gpu_ran"}};

// 2 -> 3: the waits before each run and the runs' times, summed (from what was kept: the wait
// before the first run and the last run's time; earlier runs' were not kept).
constexpr const char* kMigrate2To3 = R"sql(
ALTER TABLE jobs ADD COLUMN waited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN ran INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET waited=MAX(0, started_at - submitted_at)
  WHERE started_at IS NOT NULL AND attempts=1;
UPDATE jobs SET ran=MAX(0, ended_at - started_at)
  WHERE started_at IS NOT NULL AND ended_at IS NOT NULL;
)sql";

// 3 -> 4: when a finished job's details were purged (the retention of limits:).
constexpr const char* kMigrate3To4 = "ALTER TABLE jobs ADD COLUMN purged_at INTEGER;";

// 4 -> 5: times and durations in milliseconds (store/store_time.h), where they were seconds.
// node_events is made first where an older squeeze had not (EnsureJobStoreSchema makes it too).
constexpr const char* kMigrate4To5 = R"sql(
UPDATE jobs SET submitted_at=submitted_at*1000, started_at=started_at*1000,
  ended_at=ended_at*1000, last_checkpoint=last_checkpoint*1000, not_before=not_before*1000,
  waited=waited*1000, ran=ran*1000, purged_at=purged_at*1000;
UPDATE events SET at=at*1000;
UPDATE node_events SET at=at*1000;
)sql";


Result<int64_t> QueryInt(SqliteDb& db, const std::string& sql) { return db.QueryInt(sql); }


Status EnsureSchema(SqliteDb& db) {
  return InTransaction(db, [&db]() -> Status {
    if (Status s = db.Exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
        !s.ok()) {
      return s;
    }
    auto version = QueryInt(db, "SELECT COALESCE(MAX(version), 0) FROM schema_version");
    if (!version.ok()) return version.status();
    if (*version == kSchemaVersion) return Status::Ok();
    if (*version > kSchemaVersion) {
      return Status::Error(db.path() + " has schema version " + std::to_string(*version) +
                           ", newer than this squeeze knows (" +
                           std::to_string(kSchemaVersion) + "); use a newer squeeze");
    }
    if (*version == 0) {
      if (Status s = db.Exec(kSchema); !s.ok()) return s;
      if (Status s = db.Exec(kPurgeIndex); !s.ok()) return s;
    } else {
      if (*version <= 1) {  // 1 -> 2: retries with back-off
        if (Status s = db.Exec(kMigrate1To2); !s.ok()) return s;
      }
      if (*version <= 2) {  // 2 -> 3: the summed waits
        if (Status s = db.Exec(kMigrate2To3); !s.ok()) return s;
      }
      if (*version <= 3) {  // 3 -> 4: purged details
        if (Status s = db.Exec(kMigrate3To4); !s.ok()) return s;
        if (Status s = db.Exec(kPurgeIndex); !s.ok()) return s;
      }
      if (Status s = db.Exec(kNodeEventsTable); !s.ok()) return s;
      if (Status s = db.Exec(kMigrate4To5); !s.ok()) return s;  // milliseconds
    }
    return db.Exec("INSERT INTO schema_version(version) VALUES (" +
                   std::to_string(kSchemaVersion) + ")");
  });
}

// Adds `column` of `type` to `table` unless it has it.
Status AddColumnIfMissing(SqliteDb& db, const char* table, const char* column, const char* type) {
  auto has = QueryInt(db, std::string("SELECT COUNT(*) FROM pragma_table_info('") + table +
                              "') WHERE name = '" + column + "'");
  if (!has.ok()) return has.status();
  if (*has > 0) return Status::Ok();
  return db.Exec(std::string("ALTER TABLE ") + table + " ADD COLUMN " + column + " " + type);
}

Status AddDetailColumns(SqliteDb& db) {
  return InTransaction(db, [&db]() -> Status {
    for (const auto& [table, column] : kDetailColumns) {
      if (Status s = AddColumnIfMissing(db, table, column, "TEXT NOT NULL DEFAULT ''"); !s.ok()) {
        return s;
      }
    }
    for (const auto& [table, column] : kCountColumns) {
      if (Status s = AddColumnIfMissing(db, table, column, "INTEGER NOT NULL DEFAULT 0"); !s.ok()) {
        return s;
      }
    }
    return Status::Ok();
  });
}

}  // namespace

Status SetJobStorePragmas(SqliteDb& db, bool fsync_each_commit) {
  auto stmt = db.Prepare("PRAGMA journal_mode=WAL");
  if (!stmt.ok()) return stmt.status();
  auto row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row || stmt->Text(0) != "wal") {
    return Status::Io("cannot put " + db.path() + " in WAL mode (the file system may not " +
                         "support shared memory)");
  }
  return db.Exec(fsync_each_commit ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
}

Status EnsureJobStoreSchema(SqliteDb& db) {
  if (Status s = EnsureSchema(db); !s.ok()) return s;
  if (Status s = AddDetailColumns(db); !s.ok()) return s;
  // Not part of the versioned schema: an older squeeze leaves them alone.
  if (Status s = db.Exec(kNodeEventsTable); !s.ok()) return s;
  return db.Exec(kEndedIndex);
}

}  // namespace squeeze
