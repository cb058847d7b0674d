// Writes a trace as squeeze's job-profile CSV (docs/job-profile-csv.md), the table a team keeps
// of its jobs: what `squeeze simulate --trace` and `squeeze advise --history` read back. Every
// column the reader knows is written, optional ones empty when not given. For Excel: a UTF-8
// byte-order mark and CRLF line ends on request, and fields quoted where they need it.
// Stateless; thread-safe.
#ifndef SQUEEZE_SIM_WRITERS_JOB_PROFILE_WRITER_H_
#define SQUEEZE_SIM_WRITERS_JOB_PROFILE_WRITER_H_

#include <ostream>
#include <string>
#include <string_view>

#include "core/status.h"
#include "sim/trace.h"

namespace squeeze {

struct ProfileCsvOptions {
  bool excel = false;     // byte-order mark and CRLF line ends
  char delimiter = ',';   // ',' or ';' (Excel in locales with a decimal comma)
};

// The value of one column of the job-profile table for a job, as the reader reads it back
// (empty for an optional value not given). An error for a column the reader does not know.
Result<std::string> ProfileCell(std::string_view column, const TraceJob& job);

// One field, quoted when it holds the delimiter, a quote, a line end or edge spaces.
std::string CsvField(std::string_view value, char delimiter);

Status WriteJobProfileCsv(const Trace& trace, const ProfileCsvOptions& options, std::ostream* out);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_WRITERS_JOB_PROFILE_WRITER_H_
