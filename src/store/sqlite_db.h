// A thin RAII adapter over the SQLite C API: a connection (SqliteDb) and a prepared statement
// (SqliteStmt) whose failures come back as Status values naming the SQL and sqlite3_errmsg.
// A connection is used by one thread at a time (the caller holds a lock); not thread-safe.
// A connection keeps the statements it prepared once they are done with (reset, bindings
// cleared) and hands them out again for the same SQL, so that a statement run at every
// submission is parsed once, not every time (sqlite's own advice); a statement must not outlive
// its connection.
#ifndef SQUEEZE_STORE_SQLITE_DB_H_
#define SQUEEZE_STORE_SQLITE_DB_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace squeeze {

class SqliteDb;

class SqliteStmt {
 public:
  // `cache`: the connection to give the statement back to when done, or null to finalize it.
  SqliteStmt(sqlite3* db, sqlite3_stmt* stmt, std::string sql, SqliteDb* cache = nullptr);
  SqliteStmt(SqliteStmt&& other) noexcept;
  SqliteStmt& operator=(SqliteStmt&&) = delete;
  SqliteStmt(const SqliteStmt&) = delete;
  ~SqliteStmt();

  // Parameters are numbered from 1, as in SQLite.
  void Bind(int index, int64_t value);
  void Bind(int index, const std::string& value);
  void Bind(int index, const std::optional<int64_t>& value);
  void BindDouble(int index, double value);
  void BindDouble(int index, const std::optional<double>& value);
  // True while a row is ready to read, false once the statement is done.
  Result<bool> Step();
  // Steps to the end, expecting no rows.
  Status Run();
  // Makes the statement ready to bind and run again.
  void Reset();

  int64_t Int(int column) const;
  std::optional<int64_t> OptionalInt(int column) const;
  std::string Text(int column) const;
  double Double(int column) const;
  std::optional<double> OptionalDouble(int column) const;

 private:
  Status Failure(int code) const;

  sqlite3* db_;
  sqlite3_stmt* stmt_;
  std::string sql_;
  SqliteDb* cache_;
};

class SqliteDb {
 public:
  // Opens (creating) the database file at `path`.
  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements that return no rows the caller needs.
  Status Exec(const std::string& sql);
  // Runs one statement that returns no rows the caller needs, with a kept statement (BEGIN,
  // COMMIT: what a transaction runs every time, not parsed again).
  Status Run(const std::string& sql);
  Result<SqliteStmt> Prepare(const std::string& sql);
  // The first column of the first row of `sql` (a count, a PRAGMA's value); 0 for no row.
  Result<int64_t> QueryInt(const std::string& sql);
  int64_t Changes() const;
  const std::string& path() const { return path_; }
  // How many prepared statements the connection keeps for reuse now.
  size_t CachedStatements() const;

  // Statements kept for reuse: at most this many different SQL texts (a statement whose text
  // is built from values, such as an IN list, would otherwise grow the cache without end), and
  // at most kCachedPerSql of each (nested uses of one text).
  static constexpr size_t kCachedSqlTexts = 128;
  static constexpr size_t kCachedPerSql = 4;

 private:
  friend class SqliteStmt;
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  // A statement done with: kept (reset, bindings cleared) or finalized.
  void GiveBack(const std::string& sql, sqlite3_stmt* stmt);

  sqlite3* db_;
  std::string path_;
  mutable std::mutex cache_mu_;  // a statement may be given back after its user let the caller's lock go
  std::unordered_map<std::string, std::vector<sqlite3_stmt*>> cached_;
};

// Runs `body` between BEGIN IMMEDIATE and COMMIT on `db`, rolling back when it fails.
Status InTransaction(SqliteDb& db, const std::function<Status()>& body);

}  // namespace squeeze

#endif  // SQUEEZE_STORE_SQLITE_DB_H_
