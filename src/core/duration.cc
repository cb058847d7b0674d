#include "core/duration.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace squeeze {

namespace {

// The longest duration taken (about 31,700 years), as the traces' kMaxTraceSeconds: in
// milliseconds (1e15) it leaves room for the core's arithmetic on it (Job::TimeForWork
// multiplies a job's work by 1000) far below Time's limit (9.2e18), whatever a user writes.
constexpr double kMaxDurationSeconds = 1e12;

// FormatDuration writes a tick's fraction of a second in decimals.
constexpr bool PowerOfTen(Time n) { return n == 1 || (n % 10 == 0 && PowerOfTen(n / 10)); }
static_assert(PowerOfTen(kSecond), "kSecond must be 1, 10, 100, 1000, ...");

constexpr char kClockForms[] = "forms: MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS";

bool AllDigits(std::string_view s) {
  if (s.empty() || s.size() > 12) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Slurm's clock forms; `minutes_alone`: a lone number is minutes (Slurm's "MM").
Result<Time> ParseClock(const std::string& s, bool minutes_alone) {
  auto bad = [&](const std::string& why) {
    return Status::Error("'" + s + "' is not a duration: " + why + " (" + kClockForms +
                         (minutes_alone ? ", or minutes" : "") + ")");
  };
  std::string_view rest = s;
  Time days = 0;
  const bool with_days = rest.find('-') != std::string_view::npos;
  if (with_days) {
    const std::string_view d = rest.substr(0, rest.find('-'));
    if (!AllDigits(d)) return bad("the days before '-' are not a number");
    days = std::stoll(std::string(d));
    rest.remove_prefix(d.size() + 1);
  }
  std::vector<Time> fields;
  while (true) {
    const size_t colon = rest.find(':');
    const std::string_view f = rest.substr(0, colon);
    if (!AllDigits(f)) return bad("'" + std::string(f) + "' is not a number");
    fields.push_back(std::stoll(std::string(f)));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  if (fields.size() > 3) return bad("more than three fields");
  Time h = 0, m = 0, sec = 0;
  if (with_days) {  // D-HH, D-HH:MM, D-HH:MM:SS
    h = fields[0];
    if (fields.size() > 1) m = fields[1];
    if (fields.size() > 2) sec = fields[2];
    if (h >= 24) return bad("hours " + std::to_string(h) + " after the days are not below 24");
  } else if (fields.size() == 1) {
    if (!minutes_alone) return bad("a number alone");
    m = fields[0];
  } else if (fields.size() == 2) {  // MM:SS
    m = fields[0];
    sec = fields[1];
  } else {  // HH:MM:SS
    h = fields[0];
    m = fields[1];
    sec = fields[2];
  }
  if (fields.size() > 1 && (with_days || fields.size() == 3) && m >= 60) {
    return bad("minutes " + std::to_string(m) + " are not below 60");
  }
  if (sec >= 60) return bad("seconds " + std::to_string(sec) + " are not below 60");
  // In seconds first: what is longer than any duration squeeze takes is refused before it
  // could overflow a Time.
  const double seconds = static_cast<double>(days) * 86400 + static_cast<double>(h) * 3600 +
                         static_cast<double>(m) * 60 + static_cast<double>(sec);
  if (seconds > kMaxDurationSeconds) return bad("longer than 1e12 seconds");
  return days * kDay + h * kHour + m * kMinute + sec * kSecond;
}

bool ClockForm(std::string_view s) {
  return s.find(':') != std::string_view::npos ||
         (!s.empty() && s.front() != '-' && s.find('-') != std::string_view::npos);
}

}  // namespace

Result<Time> ParseSlurmTime(std::string_view text) {
  const std::string s(text);
  if (s == "UNLIMITED" || s == "INFINITE" || s == "unlimited" || s == "infinite") return 0;
  if (!s.empty() && std::isalpha(static_cast<unsigned char>(s.back())) && !ClockForm(s)) {
    return ParseDuration(s);  // squeeze's own forms: 90s, 30m, 1h30m
  }
  return ParseClock(s, true);
}

Result<Time> ParseDuration(std::string_view text) {
  const std::string s(text);
  if (ClockForm(s)) return ParseClock(s, false);
  auto bad = [&] {
    return Status::Error("'" + s + "' is not a duration (use seconds or forms like 90s, 30m, 12h, 2d)");
  };
  if (s.empty()) return bad();
  size_t i = 0;
  double total = 0;
  bool any = false;
  while (i < s.size()) {
    size_t j = i;
    while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
    if (j == i) return bad();
    char* end = nullptr;
    const std::string number = s.substr(i, j - i);
    const double v = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size() || !std::isfinite(v)) return bad();
    double unit = 1;  // seconds
    if (j < s.size()) {
      switch (s[j]) {
        case 's': unit = 1; break;
        case 'm': unit = 60; break;
        case 'h': unit = 3600; break;
        case 'd': unit = 86400; break;
        default: return bad();
      }
      ++j;
    } else if (any) {
      return bad();  // "1h30" is ambiguous
    }
    total += v * unit;
    any = true;
    i = j;
  }
  if (total > kMaxDurationSeconds) {
    return Status::Error("'" + s + "' is longer than any duration squeeze takes (1e12 seconds)");
  }
  return Seconds(std::llround(total));  // whole seconds, as written
}

std::string FormatDuration(Time t) {
  if (t == 0) return "0s";
  std::string out = t < 0 ? "-" : "";
  const Time abs = t < 0 ? -t : t;
  Time s = abs / kSecond;           // whole seconds
  const Time part = abs % kSecond;  // and ticks of a second (only where a tick is shorter)
  const struct { Time unit; char name; } kUnits[] = {{86400, 'd'}, {3600, 'h'}, {60, 'm'}};
  for (const auto& u : kUnits) {
    if (s >= u.unit) {
      out += std::to_string(s / u.unit) + u.name;
      s %= u.unit;
    }
  }
  if (part != 0) {
    // "1.5s", "2m0.25s": the fraction of a second, without trailing zeros.
    std::string digits = std::to_string(part + kSecond).substr(1);
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    out += std::to_string(s) + "." + digits + "s";
  } else if (s > 0) {
    out += std::to_string(s) + "s";
  }
  return out;
}

}  // namespace squeeze
