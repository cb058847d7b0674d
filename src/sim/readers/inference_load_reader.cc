#include "sim/readers/inference_load_reader.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <vector>

#include "config/file_io.h"
#include "sim/readers/archive.h"
#include "sim/readers/cell_parse.h"
#include "sim/readers/csv.h"

namespace squeeze {
namespace {

// Utilization above 100% by at most this is rounding in the recorder, and counts as 100%.
constexpr double kPercentTolerance = 0.001;
// A container is kept when it has a sample at this share of the trace's timestamps.
constexpr int kKeepPercent = 90;

enum Column { kValue, kTimestamp, kContainer, kColumns };
constexpr std::array<std::string_view, kColumns> kNames = {"value", "timestamp_anon",
                                                           "container_ip"};

struct Sample {
  Time time;
  double load;
  int line;
};

Status CellError(const std::string& source, int line, Column column, std::string_view value,
                 const std::string& reason) {
  return CellErrorAt(source, line, kNames[column], value, reason);
}

// The index of each column in the header; an error names the missing one.
Result<std::array<size_t, kColumns>> ReadHeader(const CsvRecord& header,
                                                const std::string& source) {
  std::array<size_t, kColumns> at{};
  for (int c = 0; c < kColumns; ++c) {
    auto it = std::find_if(header.fields.begin(), header.fields.end(),
                           [&](std::string_view f) { return NormalizeName(f) == kNames[c]; });
    if (it == header.fields.end()) {
      return Status::Error(source + ":" + std::to_string(header.line) + ": missing column '" +
                           std::string(kNames[c]) + "' (the header needs value, timestamp_anon, "
                           "container_ip)");
    }
    at[c] = static_cast<size_t>(it - header.fields.begin());
  }
  return at;
}

Status ReadSample(const CsvRecord& row, const std::array<size_t, kColumns>& at,
                  const std::string& source, std::map<std::string, std::vector<Sample>>& out) {
  for (int c = 0; c < kColumns; ++c) {
    if (at[c] >= row.fields.size()) {
      return Status::Error(source + ":" + std::to_string(row.line) + ": column '" +
                           std::string(kNames[c]) + "' is missing (the row has " +
                           std::to_string(row.fields.size()) + " fields)");
    }
  }
  const std::string_view value = row.fields[at[kValue]];
  Result<double> percent = ParseNumberCell(value);
  if (!percent.ok()) return CellError(source, row.line, kValue, value, percent.status().message());
  if (*percent < 0 || *percent > 100 + kPercentTolerance) {
    return CellError(source, row.line, kValue, value, "must be a percentage from 0 to 100");
  }
  const std::string_view stamp = row.fields[at[kTimestamp]];
  Result<double> seconds = ParseNumberCell(stamp);
  if (!seconds.ok()) {
    return CellError(source, row.line, kTimestamp, stamp, seconds.status().message());
  }
  if (*seconds < 0 || *seconds > static_cast<double>(kMaxTraceSeconds)) {
    return CellError(source, row.line, kTimestamp, stamp, "must be seconds from 0 to 1e12");
  }
  const std::string_view id = row.fields[at[kContainer]];
  if (id.empty()) return CellError(source, row.line, kContainer, id, "is empty");
  out[std::string(id)].push_back(
      {Seconds(std::llround(*seconds)), std::clamp(*percent / 100, 0.0, 1.0), row.line});
  return Status::Ok();
}

// Sorts each container's samples by time; two samples of one container at one time are an error.
Status SortSamples(std::map<std::string, std::vector<Sample>>& samples,
                   const std::string& source) {
  for (auto& [id, list] : samples) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Sample& a, const Sample& b) { return a.time < b.time; });
    for (size_t i = 1; i < list.size(); ++i) {
      if (list[i].time == list[i - 1].time) {
        return Status::Error(source + ":" + std::to_string(list[i].line) + ": container '" +
                             ShowCell(id) + "' has a second sample at timestamp " +
                             std::to_string(WholeSeconds(list[i].time)) + " (the first on line " +
                             std::to_string(list[i - 1].line) + ")");
      }
    }
  }
  return Status::Ok();
}

LoadSeries MakeSeries(const std::string& id, const std::vector<Sample>& list, Time start) {
  LoadSeries series;
  series.id = id;
  for (const Sample& s : list) {
    if (!series.points.empty() && series.points.back().second == s.load) continue;
    series.points.emplace_back(series.points.empty() ? 0 : s.time - start, s.load);
  }
  return series;
}

}  // namespace

Result<InferenceLoad> ParseInferenceLoad(std::string_view text, const std::string& source_name) {
  CsvReader reader(text, source_name);
  CsvRecord record;
  Result<bool> more = reader.Next(&record);
  if (!more.ok()) return more.status();
  if (!*more) {
    return Status::Error(source_name +
                         ": the file is empty; expected the header value,timestamp_anon,"
                         "container_ip and one row per sample");
  }
  auto at = ReadHeader(record, source_name);
  if (!at.ok()) return at.status();
  std::map<std::string, std::vector<Sample>> samples;
  for (;;) {
    more = reader.Next(&record);
    if (!more.ok()) return more.status();
    if (!*more) break;
    Status st = ReadSample(record, *at, source_name, samples);
    if (!st.ok()) return st;
  }
  std::vector<Time> times;
  for (const auto& [id, list] : samples) {
    for (const Sample& s : list) times.push_back(s.time);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  if (times.size() < 2) {
    return Status::Error(source_name + ": needs samples at two timestamps at least, has " +
                         std::to_string(times.size()));
  }
  Status st = SortSamples(samples, source_name);
  if (!st.ok()) return st;
  std::vector<Time> steps;
  for (size_t i = 1; i < times.size(); ++i) steps.push_back(times[i] - times[i - 1]);
  std::nth_element(steps.begin(), steps.begin() + steps.size() / 2, steps.end());
  InferenceLoad load;
  load.source = source_name;
  load.period = times.back() - times.front() + steps[steps.size() / 2];
  size_t most = 0;
  for (const auto& [id, list] : samples) {
    most = std::max(most, list.size());
    if (list.size() * 100 < times.size() * kKeepPercent) continue;
    load.series.push_back(MakeSeries(id, list, times.front()));
  }
  if (load.series.empty()) {
    return Status::Error(source_name + ": no usable series: none of the " +
                         std::to_string(samples.size()) + " containers has a sample at " +
                         std::to_string(kKeepPercent) + "% of the " +
                         std::to_string(times.size()) + " timestamps (the most: " +
                         std::to_string(most) + ")");
  }
  return load;
}

Result<InferenceLoad> ReadInferenceLoad(const std::string& path) {
  Result<std::string> bytes = ReadWholeFile(path);
  if (!bytes.ok()) return bytes.status();
  std::string text = std::move(*bytes);
  if (IsGzip(text)) {
    Result<std::string> plain = Gunzip(text, path);
    if (!plain.ok()) return plain.status();
    text = std::move(*plain);
  }
  if (!IsTar(text)) return ParseInferenceLoad(text, path);
  Result<TarFile> csv = FindTarFile(text, ".csv", path);
  if (!csv.ok()) return csv.status();
  Result<InferenceLoad> load = ParseInferenceLoad(csv->data, path + "[" + csv->name + "]");
  if (load.ok()) load->source = path;
  return load;
}

double MeanInferenceLoad(const InferenceLoad& load) {
  if (load.series.empty() || load.period <= 0) return 0;
  double sum = 0;
  for (const LoadSeries& s : load.series) {
    double area = 0;
    for (size_t i = 0; i < s.points.size(); ++i) {
      const Time end = i + 1 < s.points.size() ? s.points[i + 1].first : load.period;
      area += s.points[i].second * ToSeconds(std::max<Time>(0, end - s.points[i].first));
    }
    sum += area / ToSeconds(load.period);
  }
  return sum / static_cast<double>(load.series.size());
}

}  // namespace squeeze
