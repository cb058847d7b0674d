#include "config/job_values.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "config/text_util.h"

namespace squeeze {
namespace {

constexpr int64_t kMaxMemoryMib = int64_t{64} * 1024 * 1024;  // 64 TiB
constexpr double kMaxCpus = 4096;

// `count` decimal digits at `pos`, or -1.
int Digits(std::string_view s, size_t pos, size_t count) {
  if (pos + count > s.size()) return -1;
  int value = 0;
  for (size_t i = pos; i < pos + count; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    value = value * 10 + (s[i] - '0');
  }
  return value;
}

}  // namespace

Result<Time> ParseDateTime(std::string_view text) {
  const std::string s(Trim(text));
  const Status bad =
      Status::Error("'" + s + "' is not a date-time (use RFC 3339, like 2026-12-01T18:00:00Z or " +
                    "2026-12-01T19:00:00+01:00)");
  const int year = Digits(s, 0, 4), month = Digits(s, 5, 2), day = Digits(s, 8, 2);
  const int hour = Digits(s, 11, 2), minute = Digits(s, 14, 2), second = Digits(s, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return bad;
  if (s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':') return bad;
  if (s[10] != 'T' && s[10] != 't' && s[10] != ' ') return bad;
  size_t pos = 19;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    const size_t digits_start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
    if (pos == digits_start) return bad;
  }
  int offset_s = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const int oh = Digits(s, pos + 1, 2), om = Digits(s, pos + 4, 2);
    if (oh < 0 || om < 0 || s[pos + 3] != ':' || oh > 23 || om > 59) return bad;
    offset_s = (s[pos] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    pos += 6;
  } else {
    return Status::Error("'" + s + "' has no time zone (end it with Z for UTC, or an offset " +
                         "like +01:00)");
  }
  if (pos != s.size()) return bad;
  const std::chrono::year_month_day date{std::chrono::year(year),
                                         std::chrono::month(static_cast<unsigned>(month)),
                                         std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok() || hour > 23 || minute > 59 || second > 59) {
    return Status::Error("'" + s + "' is not a valid date and time of day");
  }
  const int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  return Seconds(days * 86400 + hour * 3600 + minute * 60 + second - offset_s);
}

std::string FormatDateTime(Time t) {
  const int64_t seconds = WholeSeconds(t);  // a part of a second is dropped, as in ParseDateTime
  const int64_t days = (seconds >= 0 ? seconds : seconds - 86399) / 86400;
  const int64_t rest = seconds - days * 86400;
  const std::chrono::year_month_day date{std::chrono::sys_days(std::chrono::days(days))};
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%04d-%02u-%02uT%02d:%02d:%02dZ",
                static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                static_cast<unsigned>(date.day()), static_cast<int>(rest / 3600),
                static_cast<int>(rest / 60 % 60), static_cast<int>(rest % 60));
  return buffer;
}

Result<int64_t> ParseMemoryMib(std::string_view text) {
  const std::string s(Trim(text));
  const Status bad =
      Status::Error("'" + s + "' is not a memory size (use forms like 512MiB, " + "16GiB, 1.5TiB)");
  if (s.size() < 4) return bad;
  const std::string_view unit = std::string_view(s).substr(s.size() - 3);
  double scale = 0;
  if (unit == "MiB") scale = 1;
  if (unit == "GiB") scale = 1024;
  if (unit == "TiB") scale = 1024.0 * 1024;
  if (scale == 0) return bad;
  const std::optional<double> number =
      ParseDouble(Trim(std::string_view(s).substr(0, s.size() - 3)));
  if (!number || *number <= 0) return bad;
  const double mib = std::round(*number * scale);
  if (mib < 1 || mib > static_cast<double>(kMaxMemoryMib)) {
    return Status::Error("'" + s + "' is outside 1MiB..64TiB");
  }
  return static_cast<int64_t>(mib);
}

Result<int64_t> ParseCpuMilli(std::string_view text) {
  const std::string s(Trim(text));
  const std::optional<double> cores = ParseDouble(s);
  if (!cores) return Status::Error("'" + s + "' is not a number of CPU cores (like 4 or 0.5)");
  const double milli = std::round(*cores * 1000);
  if (milli < 1 || *cores > kMaxCpus)
    return Status::Error("'" + s + "' is outside 0.001..4096 cores");
  return static_cast<int64_t>(milli);
}

// squeeze's field for what Slurm (or Kubernetes) users call by another name; empty if none.
std::string_view SlurmFieldName(std::string_view key) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"time", "time_limit"},      {"timelimit", "time_limit"}, {"walltime", "time_limit"},
      {"partition", "pool"},       {"queue", "pool"},           {"priority", "urgency"},
      {"qos", "urgency"},          {"job_name", "name"},        {"job-name", "name"},
      {"gres", "gpus"},            {"gpus_per_node", "gpus"},   {"chdir", "workdir"},
      {"account", "team"},         {"mem", "memory"},           {"cpus_per_task", "cpus"},
      {"requeue", "preemptible"},  {"export", "env"},           {"environment", "env"},
      {"stdout", "output"},        {"stderr", "error"},         {"output_path", "output"},
      {"error_path", "error"},
  };
  std::string lower(key);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [theirs, ours] : kNames) {
    if (lower == theirs) return ours;
  }
  return {};
}

}  // namespace squeeze
