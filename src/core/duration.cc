#include "core/duration.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace squeeze {

Result<Time> ParseDuration(std::string_view text) {
  const std::string s(text);
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
    double unit = 1;
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
  if (total > 1e15) return bad();
  return static_cast<Time>(std::llround(total));
}

std::string FormatDuration(Time seconds) {
  if (seconds == 0) return "0s";
  std::string out = seconds < 0 ? "-" : "";
  Time s = seconds < 0 ? -seconds : seconds;
  const struct { Time unit; char name; } kUnits[] = {{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}};
  for (const auto& u : kUnits) {
    if (s >= u.unit) {
      out += std::to_string(s / u.unit) + u.name;
      s %= u.unit;
    }
  }
  return out;
}

}  // namespace squeeze
