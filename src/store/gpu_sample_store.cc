#include "store/gpu_sample_store.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <tuple>

namespace squeeze {
namespace {

constexpr Time kFoldChunk = kDay;

// The sample tables keep whole seconds since the epoch. A range's bounds [from, to) in Time
// become the whole seconds they hold: rounded up, both.
int64_t SecondsAtOrAfter(Time t) { return -WholeSeconds(-t); }

constexpr const char* kSampleSchema = R"sql(
CREATE TABLE IF NOT EXISTS gpu_samples (
  time INTEGER NOT NULL,
  node TEXT NOT NULL,
  gpu INTEGER NOT NULL,
  utilization REAL,
  memory_used_mib REAL,
  PRIMARY KEY (time, node, gpu)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS gpu_hours (
  hour INTEGER NOT NULL,
  node TEXT NOT NULL,
  gpu INTEGER NOT NULL,
  samples INTEGER NOT NULL,
  util_mean REAL,
  util_max REAL,
  mem_samples INTEGER NOT NULL,
  mem_mean REAL,
  PRIMARY KEY (hour, node, gpu)) WITHOUT ROWID;
)sql";

// Folds the raw samples of [?1, ?2) into their hours, merging with hours already there (a
// replay of old samples after an earlier fold).
constexpr const char* kFoldSql = R"sql(
INSERT INTO gpu_hours (hour, node, gpu, samples, util_mean, util_max, mem_samples, mem_mean)
SELECT (time / 3600) * 3600 AS h, node, gpu, COUNT(utilization), AVG(utilization),
       MAX(utilization), COUNT(memory_used_mib), AVG(memory_used_mib)
FROM gpu_samples WHERE time >= ?1 AND time < ?2 GROUP BY h, node, gpu
ON CONFLICT (hour, node, gpu) DO UPDATE SET
  util_mean = CASE WHEN samples + excluded.samples = 0 THEN NULL ELSE
    (COALESCE(util_mean, 0) * samples + COALESCE(excluded.util_mean, 0) * excluded.samples) /
    (samples + excluded.samples) END,
  util_max = MAX(COALESCE(util_max, excluded.util_max), COALESCE(excluded.util_max, util_max)),
  mem_mean = CASE WHEN mem_samples + excluded.mem_samples = 0 THEN NULL ELSE
    (COALESCE(mem_mean, 0) * mem_samples + COALESCE(excluded.mem_mean, 0) *
     excluded.mem_samples) / (mem_samples + excluded.mem_samples) END,
  samples = samples + excluded.samples,
  mem_samples = mem_samples + excluded.mem_samples
)sql";

Result<bool> HasTables(SqliteDb& db) {
  auto stmt = db.Prepare(
      "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND "
      "name IN ('gpu_samples', 'gpu_hours')");
  if (!stmt.ok()) return stmt.status();
  auto row = stmt->Step();
  if (!row.ok()) return row.status();
  return *row && stmt->Int(0) == 2;
}

Time HourOf(Time t) { return t - ((t % kHour) + kHour) % kHour; }

}  // namespace

Result<std::unique_ptr<GpuSampleStore>> GpuSampleStore::Open(const std::string& path,
                                                             const Options& options) {
  std::error_code ec;
  std::string file = path;
  if (std::filesystem::is_directory(path, ec)) {
    file = (std::filesystem::path(path) / "squeeze.db").string();
  }
  if (options.read_only && !std::filesystem::is_regular_file(file, ec)) {
    return Status::Error("no squeeze store at " + path + " (expected a data directory with a "
                         "squeeze.db, or the squeeze.db file)");
  }
  std::unique_ptr<SqliteDb> writer;
  if (!options.read_only) {
    auto w = SqliteDb::Open(file);
    if (!w.ok()) return w.status();
    writer = std::move(w).value();
    // Samples are not precious enough to fsync each report.
    if (Status s = writer->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL");
        !s.ok()) {
      return s.WithContext("opening the sample store");
    }
    if (Status s = writer->Exec(kSampleSchema); !s.ok()) {
      return s.WithContext("opening the sample store");
    }
  }
  auto reader = SqliteDb::Open(file);
  if (!reader.ok()) return reader.status();
  if (Status s = (*reader)->Exec("PRAGMA query_only=1"); !s.ok()) return s;
  auto tables = HasTables(**reader);
  if (!tables.ok()) return tables.status().WithContext("reading " + file);
  return std::unique_ptr<GpuSampleStore>(new GpuSampleStore(
      file, options, std::move(writer), std::move(reader).value(), *tables));
}

GpuSampleStore::GpuSampleStore(std::string path, Options options,
                               std::unique_ptr<SqliteDb> writer, std::unique_ptr<SqliteDb> reader,
                               bool has_tables)
    : path_(std::move(path)),
      options_(options),
      writer_(std::move(writer)),
      reader_(std::move(reader)),
      has_tables_(has_tables) {}

Status GpuSampleStore::Insert(const std::vector<GpuReading>& readings) {
  if (!writer_) return Status::Error("the sample store at " + path_ + " is open read-only");
  if (readings.empty()) return Status::Ok();
  std::lock_guard lock(write_mu_);
  return InTransaction(*writer_, [&]() -> Status {
    auto stmt = writer_->Prepare(
        "INSERT OR REPLACE INTO gpu_samples (time, node, gpu, utilization, memory_used_mib) "
        "VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!stmt.ok()) return stmt.status();
    for (const GpuReading& r : readings) {
      stmt->Reset();
      stmt->Bind(1, WholeSeconds(r.time));
      stmt->Bind(2, r.node);
      stmt->Bind(3, static_cast<int64_t>(r.gpu));
      stmt->BindDouble(4, r.utilization);
      stmt->BindDouble(5, r.memory_used_mib);
      if (Status s = stmt->Run(); !s.ok()) return s;
    }
    return Status::Ok();
  });
}

Result<bool> GpuSampleStore::FoldChunk(Time cut, FoldResult& result) {
  bool folded = false;
  Status s = InTransaction(*writer_, [&]() -> Status {
    auto oldest = writer_->Prepare("SELECT MIN(time) FROM gpu_samples");
    if (!oldest.ok()) return oldest.status();
    auto row = oldest->Step();
    if (!row.ok()) return row.status();
    const std::optional<int64_t> first_s = *row ? oldest->OptionalInt(0) : std::nullopt;
    if (!first_s || Seconds(*first_s) >= cut) return Status::Ok();
    const Time first = Seconds(*first_s);
    const Time end = std::min(cut, HourOf(first) + kFoldChunk);
    auto fold = writer_->Prepare(kFoldSql);
    if (!fold.ok()) return fold.status();
    fold->Bind(1, *first_s);
    fold->Bind(2, SecondsAtOrAfter(end));
    if (Status st = fold->Run(); !st.ok()) return st;
    auto drop = writer_->Prepare("DELETE FROM gpu_samples WHERE time < ?1");
    if (!drop.ok()) return drop.status();
    drop->Bind(1, SecondsAtOrAfter(end));
    if (Status st = drop->Run(); !st.ok()) return st;
    result.raw_folded += writer_->Changes();
    folded = true;
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return folded;
}

Result<GpuSampleStore::FoldResult> GpuSampleStore::Fold(Time now) {
  if (!writer_) return Status::Error("the sample store at " + path_ + " is open read-only");
  FoldResult result;
  const Time cut = HourOf(now - options_.raw_retention);
  for (;;) {  // the lock is let go between chunks so that telemetry writes get in
    std::lock_guard lock(write_mu_);
    auto more = FoldChunk(cut, result);
    if (!more.ok()) return more.status().WithContext("folding GPU samples");
    if (!*more) break;
  }
  std::lock_guard lock(write_mu_);
  Status s = InTransaction(*writer_, [&]() -> Status {
    auto drop = writer_->Prepare("DELETE FROM gpu_hours WHERE hour < ?1");
    if (!drop.ok()) return drop.status();
    drop->Bind(1, SecondsAtOrAfter(now - options_.hourly_retention));
    if (Status st = drop->Run(); !st.ok()) return st;
    result.hours_deleted = writer_->Changes();
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("deleting old GPU hours");
  return result;
}

Status GpuSampleStore::ReadRange(const std::string& sql, Time from, Time to,
                                 const std::function<void(SqliteStmt&)>& row) {
  if (!has_tables_ && options_.read_only) return Status::Ok();
  std::lock_guard lock(read_mu_);
  auto stmt = reader_->Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  stmt->Bind(1, SecondsAtOrAfter(from));
  stmt->Bind(2, SecondsAtOrAfter(to));
  for (;;) {
    auto more = stmt->Step();
    if (!more.ok()) return more.status();
    if (!*more) return Status::Ok();
    row(*stmt);
  }
}

Result<std::vector<GpuHour>> GpuSampleStore::Hours(Time from, Time to) {
  std::vector<GpuHour> out;
  Status s = ReadRange(
      "SELECT hour, node, gpu, samples, util_mean, util_max, mem_mean FROM gpu_hours "
      "WHERE hour >= ?1 AND hour < ?2 ORDER BY hour, node, gpu",
      from, to, [&](SqliteStmt& st) {
        out.push_back({st.Text(1), static_cast<int>(st.Int(2)), Seconds(st.Int(0)), st.Int(3),
                       st.OptionalDouble(4), st.OptionalDouble(5), st.OptionalDouble(6)});
      });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<GpuSample>> GpuSampleStore::Read(Time from, Time to) {
  auto hours = Hours(from, to);
  if (!hours.ok()) return hours.status();
  std::vector<GpuSample> out;
  for (const GpuHour& h : *hours) {
    if (h.mean_utilization) {
      out.push_back({h.hour, h.node, h.gpu, *h.mean_utilization, h.mean_memory_used_mib, kHour});
    }
  }
  Status s = ReadRange(
      "SELECT time, node, gpu, utilization, memory_used_mib FROM gpu_samples "
      "WHERE time >= ?1 AND time < ?2 AND utilization IS NOT NULL ORDER BY time, node, gpu",
      from, to, [&](SqliteStmt& st) {
        out.push_back({Seconds(st.Int(0)), st.Text(1), static_cast<int>(st.Int(2)), st.Double(3),
                       st.OptionalDouble(4), 0});
      });
  if (!s.ok()) return s;
  std::stable_sort(out.begin(), out.end(), [](const GpuSample& a, const GpuSample& b) {
    return std::tie(a.time, a.node, a.gpu) < std::tie(b.time, b.node, b.gpu);
  });
  return out;
}

Result<int64_t> GpuSampleStore::RawCount() {
  if (!has_tables_ && options_.read_only) return int64_t{0};
  std::lock_guard lock(read_mu_);
  auto stmt = reader_->Prepare("SELECT COUNT(*) FROM gpu_samples");
  if (!stmt.ok()) return stmt.status();
  auto row = stmt->Step();
  if (!row.ok()) return row.status();
  return *row ? stmt->Int(0) : int64_t{0};
}

}  // namespace squeeze
