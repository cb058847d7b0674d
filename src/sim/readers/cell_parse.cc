#include "sim/readers/cell_parse.h"

#include <charconv>
#include <cmath>

#include "core/duration.h"

namespace squeeze {
namespace {

Status Reason(std::string reason) { return Status::Error(std::move(reason)); }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

// Reads `count` digits at text[pos...] into *out; false if any is not a digit.
bool ReadDigits(std::string_view text, size_t pos, size_t count, int* out) {
  int v = 0;
  for (size_t i = pos; i < pos + count; ++i) {
    if (!IsDigit(text[i])) return false;
    v = v * 10 + (text[i] - '0');
  }
  *out = v;
  return true;
}

bool IsLeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

}  // namespace

Result<int64_t> ParseIntegerCell(std::string_view text, int64_t min, int64_t max) {
  if (text.empty()) return Reason("is empty");
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec == std::errc::result_out_of_range) return Reason("is out of range");
  if (ec != std::errc() || ptr != end) return Reason("is not an integer");
  if (v < min) return Reason("must be >= " + std::to_string(min));
  if (v > max) return Reason("must be <= " + std::to_string(max));
  return v;
}

Result<double> ParseNumberCell(std::string_view text) {
  if (text.empty()) return Reason("is empty");
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) return Reason("is not a number");
  return v;
}

Result<Time> ParseSecondsCell(std::string_view text, int64_t min_seconds) {
  if (text.empty()) return Reason("is empty");
  const bool negative = text[0] == '-';
  Result<Time> t = ParseDuration(negative ? text.substr(1) : text);
  if (!t.ok()) {
    if (t.status().message().find("is longer than any duration") != std::string::npos) {
      return Reason("must be <= " + std::to_string(kMaxTraceSeconds));
    }
    return Reason("is not a duration (use seconds or forms like 90s, 30m, 12h, 2d, 1h30m)");
  }
  // Whole seconds (half a second up), whatever the tick: a trace reads the same at any tick.
  const Time whole = (*t + kSecond / 2) / kSecond * kSecond;
  const std::string at_least = "must be >= " + std::to_string(min_seconds);
  if (negative && whole != 0) return Reason(at_least);
  if (whole < Seconds(min_seconds)) return Reason(at_least);
  if (whole > Seconds(kMaxTraceSeconds)) {
    return Reason("must be <= " + std::to_string(kMaxTraceSeconds));
  }
  return whole;
}

Result<bool> ParseBoolCell(std::string_view text) {
  for (std::string_view yes : {"true", "yes", "1"}) {
    if (EqualsIgnoreCase(text, yes)) return true;
  }
  for (std::string_view no : {"false", "no", "0"}) {
    if (EqualsIgnoreCase(text, no)) return false;
  }
  return Reason("is not a boolean (use true/false, yes/no or 1/0)");
}

Result<Time> ParseTimestampCell(std::string_view text) {
  const Status bad = Reason("is not a timestamp (expected YYYY-MM-DD HH:MM:SS, UTC)");
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' ||
      (text[10] != ' ' && text[10] != 'T') || text[13] != ':' || text[16] != ':') {
    return bad;
  }
  if (!ReadDigits(text, 0, 4, &year) || !ReadDigits(text, 5, 2, &month) ||
      !ReadDigits(text, 8, 2, &day) || !ReadDigits(text, 11, 2, &hour) ||
      !ReadDigits(text, 14, 2, &minute) || !ReadDigits(text, 17, 2, &second)) {
    return bad;
  }
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month) || hour > 23 ||
      minute > 59 || second > 59) {
    return Reason("is not a valid date and time (expected YYYY-MM-DD HH:MM:SS, UTC)");
  }
  return DaysFromCivil(year, month, day) * kDay + hour * kHour + minute * kMinute +
         Seconds(second);
}

int64_t DaysFromCivil(int64_t year, int month, int day) {
  // Howard Hinnant's days_from_civil: years start in March so that Feb 29 ends a year.
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;
  const int64_t day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

std::vector<std::string> SplitListCell(std::string_view text) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('|', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view piece = text.substr(begin, end - begin);
    while (!piece.empty() && (piece.front() == ' ' || piece.front() == '\t')) {
      piece.remove_prefix(1);
    }
    while (!piece.empty() && (piece.back() == ' ' || piece.back() == '\t')) piece.remove_suffix(1);
    if (!piece.empty()) out.emplace_back(piece);
    begin = end + 1;
  }
  return out;
}

std::string NormalizeName(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && (text[begin] == ' ' || text[begin] == '\t')) ++begin;
  while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
  std::string out(text.substr(begin, end - begin));
  for (char& c : out) c = Lower(c);
  return out;
}

std::string ShowCell(std::string_view value) {
  if (value.size() <= 40) return std::string(value);
  return std::string(value.substr(0, 37)) + "...";
}

Status CellErrorAt(const std::string& source, int line, std::string_view column,
                   std::string_view value, const std::string& reason) {
  return Status::Error(source + ":" + std::to_string(line) + ": column '" + std::string(column) +
                       "': value '" + ShowCell(value) + "' " + reason);
}

}  // namespace squeeze
