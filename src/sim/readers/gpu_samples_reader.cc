#include "sim/readers/gpu_samples_reader.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

#include "config/file_io.h"
#include "sim/readers/cell_parse.h"
#include "sim/readers/csv.h"

namespace squeeze {
namespace {

enum Column { kTime, kNode, kGpu, kUtilization, kMemory, kColumns };
constexpr std::array<std::string_view, kColumns> kNames = {"time", "node", "gpu", "utilization",
                                                           "memory_used_mib"};
constexpr int kMaxGpuIndex = 4095;

Status CellError(const std::string& source, int line, Column column, std::string_view value,
                 const std::string& reason) {
  return CellErrorAt(source, line, kNames[column], value, reason);
}

// The header must be time,node,gpu,utilization[,memory_used_mib] in this order.
Result<int> ReadHeader(const CsvRecord& header, const std::string& source) {
  const std::string expected = "time,node,gpu,utilization[,memory_used_mib]";
  for (int c = 0; c < kMemory; ++c) {
    if (static_cast<size_t>(c) >= header.fields.size() || NormalizeName(header.fields[c]) != kNames[c]) {
      return Status::Error(source + ":" + std::to_string(header.line) + ": missing column '" +
                           std::string(kNames[c]) + "' (the header must be " + expected + ")");
    }
  }
  if (header.fields.size() == kMemory) return static_cast<int>(kMemory);
  if (header.fields.size() == kColumns && NormalizeName(header.fields[kMemory]) == kNames[kMemory]) {
    return static_cast<int>(kColumns);
  }
  return Status::Error(source + ":" + std::to_string(header.line) + ": unexpected column '" +
                       ShowCell(header.fields[kMemory]) + "' (the header must be " + expected + ")");
}

Result<Time> ParseTime(std::string_view text) {
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    auto t = ParseIntegerCell(text, 0, kMaxTraceSeconds);
    if (!t.ok()) return t.status();
    return Seconds(*t);
  }
  if (text.size() == 20 && (text.back() == 'Z' || text.back() == 'z')) {
    auto t = ParseTimestampCell(text.substr(0, 19));
    if (t.ok()) return t;
  }
  return Status::Error(
      "is not a time (expected unix seconds or ISO-8601 UTC such as 2026-11-02T01:00:00Z)");
}

Result<double> ParseUtilization(std::string_view text) {
  const bool percent = !text.empty() && text.back() == '%';
  std::string_view number = percent ? text.substr(0, text.size() - 1) : text;
  while (!number.empty() && number.back() == ' ') number.remove_suffix(1);
  auto v = ParseNumberCell(number);
  if (!v.ok()) return Status::Error("is not a utilization (expected 0..1 or a percent like 35%)");
  if (percent) {
    if (*v < 0 || *v > 100) return Status::Error("is out of range: a percent must be 0% to 100%");
    return *v / 100;
  }
  if (*v < 0 || *v > 1) {
    return Status::Error("is out of range: a fraction must be 0 to 1 (write a percent as 35%)");
  }
  return *v;
}

Result<GpuSample> ReadRow(const CsvRecord& row, int columns, const std::string& source) {
  if (row.fields.size() != static_cast<size_t>(columns)) {
    return Status::Error(source + ":" + std::to_string(row.line) + ": the row has " +
                         std::to_string(row.fields.size()) + " fields, the header " +
                         std::to_string(columns));
  }
  GpuSample s;
  auto t = ParseTime(row.fields[kTime]);
  if (!t.ok()) return CellError(source, row.line, kTime, row.fields[kTime], t.status().message());
  s.time = *t;
  s.node = std::string(row.fields[kNode]);
  if (s.node.empty()) return CellError(source, row.line, kNode, "", "is empty");
  auto gpu = ParseIntegerCell(row.fields[kGpu], 0, kMaxGpuIndex);
  if (!gpu.ok()) return CellError(source, row.line, kGpu, row.fields[kGpu], gpu.status().message());
  s.gpu = static_cast<int>(*gpu);
  auto u = ParseUtilization(row.fields[kUtilization]);
  if (!u.ok()) {
    return CellError(source, row.line, kUtilization, row.fields[kUtilization], u.status().message());
  }
  s.utilization = *u;
  if (columns == kColumns && !row.fields[kMemory].empty()) {
    auto m = ParseNumberCell(row.fields[kMemory]);
    if (!m.ok() || *m < 0) {
      return CellError(source, row.line, kMemory, row.fields[kMemory],
                       "is not a memory size (expected MiB >= 0, or empty)");
    }
    s.memory_used_mib = *m;
  }
  return s;
}

}  // namespace

Result<std::vector<GpuSample>> ParseGpuSamples(std::string_view text,
                                               const std::string& source_name) {
  CsvReader reader(text, source_name);
  CsvRecord record;
  Result<bool> more = reader.Next(&record);
  if (!more.ok()) return more.status();
  if (!*more) {
    return Status::Error(source_name + ": the file is empty; expected the header "
                         "time,node,gpu,utilization[,memory_used_mib] and one row per sample");
  }
  auto columns = ReadHeader(record, source_name);
  if (!columns.ok()) return columns.status();
  std::vector<GpuSample> samples;
  std::map<std::tuple<std::string, int, Time>, int> line_of;
  for (;;) {
    more = reader.Next(&record);
    if (!more.ok()) return more.status();
    if (!*more) break;
    auto s = ReadRow(record, *columns, source_name);
    if (!s.ok()) return s.status();
    auto [it, fresh] = line_of.emplace(std::tuple{s->node, s->gpu, s->time}, record.line);
    if (!fresh) {
      return Status::Error(source_name + ":" + std::to_string(record.line) + ": node '" +
                           ShowCell(s->node) + "' GPU " + std::to_string(s->gpu) +
                           " has a second sample at time '" + std::string(record.fields[kTime]) +
                           "' (the first on line " + std::to_string(it->second) + ")");
    }
    samples.push_back(std::move(*s));
  }
  if (samples.empty()) return Status::Error(source_name + ": the file has a header but no samples");
  return samples;
}

Result<std::vector<GpuSample>> ReadGpuSamples(const std::string& path) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseGpuSamples(*text, path);
}

}  // namespace squeeze
