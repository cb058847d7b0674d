// TraceBuilder: what the format readers share while they turn the rows of one CSV file into a
// Trace: the header's column map, the row loop, error messages of the form
// "FILE:LINE: column 'NAME': value 'VALUE' REASON", skipping bad rows when asked, the id
// uniqueness check and the final sort. One builder per file; not thread-safe.
#ifndef SQUEEZE_SIM_READERS_TRACE_BUILDER_H_
#define SQUEEZE_SIM_READERS_TRACE_BUILDER_H_

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "sim/readers/csv.h"
#include "sim/trace.h"

namespace squeeze {

// A column a format knows; the header names it in any case, with spaces around ignored.
struct ColumnDef {
  std::string_view name;
  bool required = false;
};

// How many skip messages a Trace keeps.
constexpr int kMaxSkippedMessages = 10;
// How many errors ForEachRow's all_errors lists (it counts the rest).
constexpr int kMaxListedErrors = 1000;

class TraceBuilder {
 public:
  TraceBuilder(std::string source, std::string format, const ReadOptions& options);

  TraceBuilder(const TraceBuilder&) = delete;
  TraceBuilder& operator=(const TraceBuilder&) = delete;

  // Maps each of `columns` to its index in the header, -1 when absent. Unknown, duplicate or
  // empty names and missing required columns are errors.
  Result<std::vector<int>> MapHeader(const CsvRecord& header,
                                     std::span<const ColumnDef> columns) const;

  // Calls `parse_row(record, row_number)` for each data row (row_number counts rows from 1,
  // skipped ones included) after checking its field count against the header's. A row error
  // is returned, or recorded and skipped with ReadOptions::skip_bad_rows. CSV syntax errors
  // are always returned. With `all_errors` (and no skip_bad_rows) every row is read and the
  // error lists every row error, one per line ("N errors in FILE; nothing was read:" first
  // when there are several): a file is taken whole or not at all, and its author sees
  // everything to fix at once.
  using RowParser = std::function<Status(const CsvRecord& row, int row_number)>;
  Status ForEachRow(CsvReader* csv, size_t header_fields, const RowParser& parse_row,
                    bool all_errors = false);

  // "FILE:LINE: column 'NAME': value 'VALUE' REASON".
  Status CellError(int line, std::string_view column, std::string_view value,
                   std::string_view reason) const;
  // Like CellError, with the reason taken from a failed cell parse.
  Status CellError(int line, std::string_view column, std::string_view value,
                   const Status& reason) const;

  // A job with the defaults of ReadOptions (interruptibility) for a row to fill in.
  TraceJob NewJob() const;
  // Records a job whose id must not have been seen before (an error names both lines).
  Status AddUnique(TraceJob job, int line, std::string_view column, std::string_view raw_id);
  // Records a job without checking its id (the reader guarantees uniqueness).
  void Add(TraceJob job) { trace_.jobs.push_back(std::move(job)); }

  // Makes room for about `rows` jobs at once, up to a cap (jobs are large: this saves
  // regrowing and page faults).
  void Reserve(size_t rows);
  std::vector<TraceJob>& jobs() { return trace_.jobs; }
  const ReadOptions& options() const { return options_; }
  const std::string& source() const { return trace_.source; }

  // Sorts the jobs by submit time (stable) and hands the trace over; an error if it has none.
  Result<Trace> Finish();

 private:
  Status RowError(int line, const std::string& message) const;
  // ReadOptions::elastic_share of the jobs become elastic.
  void MakeElastic();
  // ReadOptions::job_types: each job without speeds gets one type's.
  void AssignJobTypes();

  ReadOptions options_;
  Trace trace_;
  int rows_ = 0;
  std::unordered_map<JobId, int> id_lines_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SIM_READERS_TRACE_BUILDER_H_
