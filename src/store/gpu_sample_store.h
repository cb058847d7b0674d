// GpuSampleStore: the GPU utilization samples `squeeze serve` receives as telemetry, kept in
// the job store's file DATA_DIR/squeeze.db so that a year of them fits: raw samples (table
// gpu_samples) for the last two weeks, hourly summaries (table gpu_hours) for the rest. Fold
// moves raw samples older than the raw retention into their hours and deletes hours older than
// the hourly retention. Thread-safe: writes and reads each use their own connection and lock.
#ifndef SQUEEZE_STORE_GPU_SAMPLE_STORE_H_
#define SQUEEZE_STORE_GPU_SAMPLE_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/idle/gpu_sample.h"
#include "core/status.h"
#include "core/types.h"
#include "store/sqlite_db.h"

namespace squeeze {

// Raw samples older than this are folded into hourly rows and deleted.
constexpr Time kRawSampleRetention = 14 * kDay;
// Hourly rows older than this are deleted.
constexpr Time kHourlySampleRetention = 400 * kDay;
// The daemon folds at most this often.
constexpr Time kSampleFoldInterval = kHour;

// One telemetry reading as stored: utilization, memory or both.
struct GpuReading {
  Time time = 0;  // stored in whole seconds since the epoch
  std::string node;
  int gpu = 0;
  std::optional<double> utilization;  // 0..1
  std::optional<double> memory_used_mib;
};

struct GpuHour {
  std::string node;
  int gpu = 0;
  Time hour = 0;  // the hour's start (UTC)
  int64_t samples = 0;  // utilization samples folded in
  std::optional<double> mean_utilization;
  std::optional<double> max_utilization;
  std::optional<double> mean_memory_used_mib;
};

class GpuSampleStore {
 public:
  struct Options {
    Time raw_retention = kRawSampleRetention;
    Time hourly_retention = kHourlySampleRetention;
    bool read_only = false;  // for reports: never writes, and a store without samples is empty
  };
  // `path` is a data directory (its squeeze.db) or the database file itself.
  static Result<std::unique_ptr<GpuSampleStore>> Open(const std::string& path,
                                                      const Options& options);
  GpuSampleStore(const GpuSampleStore&) = delete;
  GpuSampleStore& operator=(const GpuSampleStore&) = delete;

  // One transaction; a reading of the same GPU at the same second replaces the earlier one (a
  // replay is harmless).
  Status Insert(const std::vector<GpuReading>& readings);

  struct FoldResult {
    int64_t raw_folded = 0;     // raw samples moved into hourly rows (and deleted)
    int64_t hours_deleted = 0;  // hourly rows past the hourly retention
  };
  // Whole hours that ended before now - raw_retention are folded, one day per transaction so
  // that no write waits long behind it.
  Result<FoldResult> Fold(Time now);

  // Samples with a utilization in [from, to), by time then node then GPU: each hourly row as
  // one sample at its hour's start that covers the hour (mean utilization and memory), and the
  // raw samples.
  Result<std::vector<GpuSample>> Read(Time from, Time to);
  Result<std::vector<GpuHour>> Hours(Time from, Time to);
  Result<int64_t> RawCount();

  const std::string& path() const { return path_; }

 private:
  GpuSampleStore(std::string path, Options options, std::unique_ptr<SqliteDb> writer,
                 std::unique_ptr<SqliteDb> reader, bool has_tables);
  // One transaction: up to a day of the oldest raw samples before `cut` folded and deleted;
  // false when none was left. The caller holds write_mu_.
  Result<bool> FoldChunk(Time cut, FoldResult& result);
  // Runs `sql` (?1 = from, ?2 = to) on the reader and calls `row` for each result row.
  Status ReadRange(const std::string& sql, Time from, Time to,
                   const std::function<void(SqliteStmt&)>& row);

  const std::string path_;
  const Options options_;
  std::mutex write_mu_;  // guards writer_
  std::unique_ptr<SqliteDb> writer_;  // null when read-only
  std::mutex read_mu_;   // guards reader_
  std::unique_ptr<SqliteDb> reader_;
  const bool has_tables_;
};

}  // namespace squeeze

#endif  // SQUEEZE_STORE_GPU_SAMPLE_STORE_H_
