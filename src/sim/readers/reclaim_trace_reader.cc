#include "sim/readers/reclaim_trace_reader.h"

#include <algorithm>

#include "config/file_io.h"
#include "sim/readers/cell_parse.h"
#include "sim/readers/csv.h"

namespace squeeze {
namespace {

std::string At(const std::string& source, int line) {
  return source + ":" + std::to_string(line) + ": ";
}

}  // namespace

Result<ReclaimTrace> ParseReclaimTrace(std::string_view text, const std::string& source) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  CsvReader reader(text, source);
  CsvRecord record;
  auto first = reader.Next(&record);
  if (!first.ok()) return first.status();
  if (!*first) return Status::Error(source + ": the file is empty; expected the header time,node");
  int time_col = -1, node_col = -1, warning_col = -1;
  for (size_t i = 0; i < record.fields.size(); ++i) {
    const std::string_view name = record.fields[i];
    int* col = name == "time" ? &time_col : name == "node" ? &node_col
             : name == "warning" ? &warning_col : nullptr;
    if (col == nullptr) {
      return Status::Error(At(source, record.line) + "unknown column '" + std::string(name) +
                           "'; the columns are time, node and (optional) warning");
    }
    if (*col >= 0) {
      return Status::Error(At(source, record.line) + "column '" + std::string(name) +
                           "' is given twice");
    }
    *col = static_cast<int>(i);
  }
  for (auto [col, name] : {std::pair{time_col, "time"}, std::pair{node_col, "node"}}) {
    if (col < 0) {
      return Status::Error(At(source, record.line) + "missing column '" + name +
                           "'; the header must name time and node");
    }
  }
  ReclaimTrace trace;
  trace.source = source;
  while (true) {
    auto more = reader.Next(&record);
    if (!more.ok()) return more.status();
    if (!*more) break;
    const std::string at = At(source, record.line);
    const size_t width = static_cast<size_t>(std::max({time_col, node_col, warning_col})) + 1;
    if (record.fields.size() < width - (warning_col == static_cast<int>(width) - 1 ? 1 : 0) ||
        record.fields.size() > width) {
      return Status::Error(at + std::to_string(record.fields.size()) + " fields; the header has " +
                           std::to_string(width));
    }
    ReclaimEvent e;
    e.line = record.line;
    const std::string_view time = record.fields[time_col];
    auto t = ParseSecondsCell(time, 0);
    if (!t.ok()) {
      return Status::Error(at + "column 'time': value '" + std::string(time) + "' " +
                           t.status().message());
    }
    e.time = *t;
    e.node = std::string(record.fields[node_col]);
    if (e.node.empty()) return Status::Error(at + "column 'node': the value is empty");
    if (warning_col >= 0 && static_cast<size_t>(warning_col) < record.fields.size() &&
        !record.fields[warning_col].empty()) {
      const std::string_view warning = record.fields[warning_col];
      auto w = ParseSecondsCell(warning, 0);
      if (!w.ok()) {
        return Status::Error(at + "column 'warning': value '" + std::string(warning) + "' " +
                             w.status().message());
      }
      e.warning = *w;
    }
    trace.events.push_back(std::move(e));
  }
  if (trace.events.empty()) return Status::Error(source + ": no reclaims after the header");
  std::stable_sort(trace.events.begin(), trace.events.end(),
                   [](const ReclaimEvent& a, const ReclaimEvent& b) { return a.time < b.time; });
  return trace;
}

Result<ReclaimTrace> ReadReclaimTrace(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseReclaimTrace(*text, path);
}

}  // namespace squeeze
