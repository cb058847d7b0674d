#include "store/sqlite_db.h"

#include <sqlite3.h>

namespace squeeze {
namespace {

constexpr int kBusyTimeoutMs = 10000;

// The first line of a statement, enough to tell which step failed.
std::string Brief(const std::string& sql) {
  std::string s = sql.substr(0, sql.find('\n'));
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

}  // namespace

SqliteStmt::SqliteStmt(sqlite3* db, sqlite3_stmt* stmt, std::string sql, SqliteDb* cache)
    : db_(db), stmt_(stmt), sql_(std::move(sql)), cache_(cache) {}

SqliteStmt::SqliteStmt(SqliteStmt&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), sql_(std::move(other.sql_)), cache_(other.cache_) {
  other.stmt_ = nullptr;
}

SqliteStmt::~SqliteStmt() {
  if (stmt_ == nullptr) return;
  if (cache_ != nullptr) {
    cache_->GiveBack(sql_, stmt_);
  } else {
    sqlite3_finalize(stmt_);
  }
}

void SqliteStmt::Bind(int index, int64_t value) { sqlite3_bind_int64(stmt_, index, value); }

void SqliteStmt::Bind(int index, const std::string& value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                    SQLITE_TRANSIENT);
}

void SqliteStmt::Bind(int index, const std::optional<int64_t>& value) {
  if (value) {
    Bind(index, *value);
  } else {
    sqlite3_bind_null(stmt_, index);
  }
}

Result<bool> SqliteStmt::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return Failure(rc);
}

Status SqliteStmt::Run() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_DONE || rc == SQLITE_ROW) return Status::Ok();
  return Failure(rc);
}

void SqliteStmt::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void SqliteStmt::BindDouble(int index, double value) { sqlite3_bind_double(stmt_, index, value); }

void SqliteStmt::BindDouble(int index, const std::optional<double>& value) {
  if (value) {
    BindDouble(index, *value);
  } else {
    sqlite3_bind_null(stmt_, index);
  }
}

double SqliteStmt::Double(int column) const { return sqlite3_column_double(stmt_, column); }

std::optional<double> SqliteStmt::OptionalDouble(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
  return Double(column);
}

int64_t SqliteStmt::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

std::optional<int64_t> SqliteStmt::OptionalInt(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
  return Int(column);
}

std::string SqliteStmt::Text(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

Status SqliteStmt::Failure(int code) const {
  const std::string message = sqlite3_errmsg(db_);
  const char* file = sqlite3_db_filename(db_, "main");
  sqlite3_reset(stmt_);
  return Status::Io("SQL step '" + Brief(sql_) + "' on " + (file ? file : "?") + ": " +
                       message + " (code " + std::to_string(code) + ")");
}

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                 nullptr);
  if (rc != SQLITE_OK) {
    std::string message = "cannot open database " + path + ": " +
                          (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return Status::Io(message);
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  return std::unique_ptr<SqliteDb>(new SqliteDb(db, path));
}

SqliteDb::~SqliteDb() {
  for (auto& [sql, stmts] : cached_) {
    for (sqlite3_stmt* stmt : stmts) sqlite3_finalize(stmt);
  }
  sqlite3_close(db_);
}

void SqliteDb::GiveBack(const std::string& sql, sqlite3_stmt* stmt) {
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  {
    std::lock_guard lock(cache_mu_);
    auto it = cached_.find(sql);
    if (it == cached_.end() && cached_.size() < kCachedSqlTexts) {
      it = cached_.emplace(sql, std::vector<sqlite3_stmt*>{}).first;
    }
    if (it != cached_.end() && it->second.size() < kCachedPerSql) {
      it->second.push_back(stmt);
      return;
    }
  }
  sqlite3_finalize(stmt);
}

Status SqliteDb::Exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK) return Status::Ok();
  std::string message = "SQL '" + Brief(sql) + "' on " + path_ + ": " +
                        (error ? error : sqlite3_errmsg(db_));
  sqlite3_free(error);
  return Status::Io(message);
}

Result<SqliteStmt> SqliteDb::Prepare(const std::string& sql) {
  {
    std::lock_guard lock(cache_mu_);
    if (auto it = cached_.find(sql); it != cached_.end() && !it->second.empty()) {
      sqlite3_stmt* stmt = it->second.back();
      it->second.pop_back();
      return SqliteStmt(db_, stmt, sql, this);
    }
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    return Status::Io("SQL prepare '" + Brief(sql) + "' on " + path_ + ": " +
                         sqlite3_errmsg(db_));
  }
  return SqliteStmt(db_, stmt, sql, this);
}

Result<int64_t> SqliteDb::QueryInt(const std::string& sql) {
  auto stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  auto row = stmt->Step();
  if (!row.ok()) return row.status();
  return *row ? stmt->Int(0) : int64_t{0};
}

size_t SqliteDb::CachedStatements() const {
  std::lock_guard lock(cache_mu_);
  size_t n = 0;
  for (const auto& [sql, stmts] : cached_) n += stmts.size();
  return n;
}

int64_t SqliteDb::Changes() const { return sqlite3_changes64(db_); }

Status SqliteDb::Run(const std::string& sql) {
  auto stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  return stmt->Run();
}

Status InTransaction(SqliteDb& db, const std::function<Status()>& body) {
  if (Status s = db.Run("BEGIN IMMEDIATE"); !s.ok()) return s;
  Status s = body();
  if (s.ok()) s = db.Run("COMMIT");
  if (!s.ok()) (void)db.Run("ROLLBACK");
  return s;
}

}  // namespace squeeze
