// The job store's file (JobStore::Open): its pragmas, and its schema, created in a new file or
// brought from an older squeeze's version to this one's.
#ifndef SQUEEZE_STORE_JOB_STORE_SCHEMA_H_
#define SQUEEZE_STORE_JOB_STORE_SCHEMA_H_

#include "core/status.h"
#include "store/sqlite_db.h"

namespace squeeze {

// WAL mode (refused, naming the file, where the file system cannot give it) and how often a
// commit is fsynced: each one (FULL) or at checkpoints (NORMAL).
Status SetJobStorePragmas(SqliteDb& db, bool fsync_each_commit);
// Creates the tables of a new store, or migrates one of an older version (refused for a newer
// one); adds the detail columns and the node events table where they are missing.
Status EnsureJobStoreSchema(SqliteDb& db);

}  // namespace squeeze

#endif  // SQUEEZE_STORE_JOB_STORE_SCHEMA_H_
