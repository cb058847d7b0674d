#include "store/sqlite_db.h"

#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace squeeze {
namespace {

class DbFile {
 public:
  DbFile() {
    char pattern[] = "/tmp/squeeze_sqlite_test_XXXXXX";
    dir_ = mkdtemp(pattern);
    auto db = SqliteDb::Open(dir_ + "/t.db");
    EXPECT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(db).value();
    EXPECT_TRUE(db_->Exec("CREATE TABLE t(v INTEGER)").ok());
  }
  ~DbFile() {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  SqliteDb& db() { return *db_; }

 private:
  std::string dir_;
  std::unique_ptr<SqliteDb> db_;
};

TEST(SqliteDbTest, KeepsAStatementDoneWithAndHandsItOutAgain) {
  DbFile f;
  const size_t before = f.db().CachedStatements();
  {
    auto insert = f.db().Prepare("INSERT INTO t(v) VALUES (?1)");
    ASSERT_TRUE(insert.ok());
    insert->Bind(1, int64_t{5});
    ASSERT_TRUE(insert->Run().ok());
  }
  EXPECT_EQ(f.db().CachedStatements(), before + 1);
  {
    // The same statement again, its binding cleared: nothing bound is NULL, not the old 5.
    auto insert = f.db().Prepare("INSERT INTO t(v) VALUES (?1)");
    ASSERT_TRUE(insert.ok());
    EXPECT_EQ(f.db().CachedStatements(), before);
    ASSERT_TRUE(insert->Run().ok());
  }
  EXPECT_EQ(*f.db().QueryInt("SELECT COUNT(*) FROM t WHERE v = 5"), 1);
  EXPECT_EQ(*f.db().QueryInt("SELECT COUNT(*) FROM t WHERE v IS NULL"), 1);
}

TEST(SqliteDbTest, AStatementGivenBackMidwayStartsOverWhenTakenAgain) {
  DbFile f;
  ASSERT_TRUE(f.db().Exec("INSERT INTO t(v) VALUES (1), (2), (3)").ok());
  const std::string sql = "SELECT v FROM t ORDER BY v";
  {
    auto select = f.db().Prepare(sql);
    ASSERT_TRUE(select.ok());
    ASSERT_TRUE(*select->Step());
    ASSERT_TRUE(*select->Step());
    EXPECT_EQ(select->Int(0), 2);
  }  // given back after two of three rows
  auto select = f.db().Prepare(sql);
  ASSERT_TRUE(select.ok());
  ASSERT_TRUE(*select->Step());
  EXPECT_EQ(select->Int(0), 1);
  // A write commits while the kept statements wait (none of them is in progress).
  EXPECT_TRUE(InTransaction(f.db(), [&] { return f.db().Exec("INSERT INTO t(v) VALUES (4)"); }).ok());
}

TEST(SqliteDbTest, TwoUsesOfOneTextAtOnceAreTwoStatements) {
  DbFile f;
  ASSERT_TRUE(f.db().Exec("INSERT INTO t(v) VALUES (1), (2)").ok());
  const std::string sql = "SELECT v FROM t WHERE v = ?1";
  auto a = f.db().Prepare(sql);
  auto b = f.db().Prepare(sql);
  ASSERT_TRUE(a.ok() && b.ok());
  a->Bind(1, int64_t{1});
  b->Bind(1, int64_t{2});
  ASSERT_TRUE(*a->Step());
  ASSERT_TRUE(*b->Step());
  EXPECT_EQ(a->Int(0), 1);
  EXPECT_EQ(b->Int(0), 2);
}

TEST(SqliteDbTest, KeepsABoundedNumberOfStatements) {
  // Texts built from values (an IN list, a count of placeholders) must not grow it without end.
  DbFile f;
  ASSERT_EQ(f.db().CachedStatements(), 0u);
  for (size_t i = 0; i < SqliteDb::kCachedSqlTexts * 3; ++i) {
    auto stmt = f.db().Prepare("SELECT v FROM t WHERE v = " + std::to_string(i));
    ASSERT_TRUE(stmt.ok());
    ASSERT_TRUE(stmt->Step().ok());
  }
  EXPECT_EQ(f.db().CachedStatements(), SqliteDb::kCachedSqlTexts);
  // And of one text, however many were in use at once.
  DbFile g;
  std::vector<SqliteStmt> same;
  for (size_t i = 0; i < SqliteDb::kCachedPerSql * 3; ++i) {
    auto stmt = g.db().Prepare("SELECT 1");
    ASSERT_TRUE(stmt.ok());
    same.push_back(std::move(stmt).value());
  }
  same.clear();
  EXPECT_EQ(g.db().CachedStatements(), SqliteDb::kCachedPerSql);
}

TEST(SqliteDbTest, AFailedTransactionRollsBackAndTheNextCommits) {
  DbFile f;
  Status failed = InTransaction(f.db(), [&] {
    if (Status s = f.db().Exec("INSERT INTO t(v) VALUES (7)"); !s.ok()) return s;
    return Status::Error("the body failed");
  });
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(*f.db().QueryInt("SELECT COUNT(*) FROM t"), 0);
  EXPECT_TRUE(InTransaction(f.db(), [&] { return f.db().Exec("INSERT INTO t(v) VALUES (8)"); }).ok());
  EXPECT_EQ(*f.db().QueryInt("SELECT COUNT(*) FROM t"), 1);
}

}  // namespace
}  // namespace squeeze
