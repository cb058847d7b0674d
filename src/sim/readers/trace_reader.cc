#include "sim/readers/trace_reader.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "config/file_io.h"
#include "sim/readers/cell_parse.h"
#include "sim/readers/csv.h"
#include "sim/readers/job_profile_reader.h"
#include "sim/readers/philly_reader.h"
#include "sim/readers/trace_builder.h"

namespace squeeze {
namespace {

struct Format {
  const char* name;
  std::span<const ColumnDef> (*columns)();
  Status (*read)(const CsvRecord& header, CsvReader* csv, TraceBuilder* builder);
};

constexpr Format kFormats[] = {
    {"job-profile", JobProfileColumns, ReadJobProfileRows},
    {"philly", PhillyColumns, ReadPhillyRows},
    {"philly-oct-nov", PhillyOctNovColumns, ReadPhillyOctNovRows},
};

// The format whose columns the header names most often; job-profile, the first, wins ties,
// so that any other header is reported against the job-profile columns.
const Format& DetectFormat(const CsvRecord& header) {
  std::vector<std::string> names;
  for (std::string_view field : header.fields) names.push_back(NormalizeName(field));
  const Format* best = &kFormats[0];
  int best_count = -1;
  for (const Format& format : kFormats) {
    int count = 0;
    for (const ColumnDef& column : format.columns()) {
      count += static_cast<int>(std::count(names.begin(), names.end(), column.name));
    }
    if (count > best_count) {
      best = &format;
      best_count = count;
    }
  }
  return *best;
}

}  // namespace

Result<Trace> ReadTrace(const std::string& path, const ReadOptions& options) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseTrace(*text, path, options);
}

Result<Trace> ParseTrace(std::string_view text, const std::string& source_name,
                         const ReadOptions& options) {
  CsvReader csv(text, source_name);
  CsvRecord header;
  Result<bool> got = csv.Next(&header);
  if (!got.ok()) return got.status();
  if (!*got) return Status::Error(source_name + ": no jobs: the file is empty");

  const Format& format = DetectFormat(header);
  TraceBuilder builder(source_name, format.name, options);
  builder.Reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  Status s = format.read(header, &csv, &builder);
  if (!s.ok()) return s;
  return builder.Finish();
}

}  // namespace squeeze
