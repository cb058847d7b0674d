#include "slurm/host_list.h"

#include <charconv>

namespace squeeze {
namespace {

constexpr size_t kMaxHosts = 100000;

Status Bad(std::string_view list, const std::string& what) {
  return Status::Error("host list '" + std::string(list) + "': " + what);
}

// One range "07" or "01-04" inside brackets: the numbers, each as wide as its first bound.
Status ExpandRange(std::string_view list, std::string_view range, const std::string& prefix,
                   std::vector<std::string>& out) {
  const size_t dash = range.find('-');
  const std::string_view lo = range.substr(0, dash);
  const std::string_view hi = dash == std::string_view::npos ? lo : range.substr(dash + 1);
  auto number = [](std::string_view s, long& v) {
    auto [p, e] = std::from_chars(s.data(), s.data() + s.size(), v);
    return !s.empty() && e == std::errc() && p == s.data() + s.size() && v >= 0;
  };
  long a = 0, b = 0;
  if (!number(lo, a) || !number(hi, b)) return Bad(list, "'" + std::string(range) + "' is not a number or range");
  if (b < a) return Bad(list, "the range '" + std::string(range) + "' runs backwards");
  if (out.size() + static_cast<size_t>(b - a) >= kMaxHosts) return Bad(list, "more than 100000 hosts");
  for (long v = a; v <= b; ++v) {
    std::string digits = std::to_string(v);
    if (digits.size() < lo.size()) digits.insert(0, lo.size() - digits.size(), '0');
    out.push_back(prefix + digits);
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::string>> ExpandHostList(std::string_view list) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < list.size()) {
    // One host expression: a prefix, then perhaps "[...]" and a suffix, up to a comma outside
    // brackets.
    std::string prefix;
    while (i < list.size() && list[i] != ',' && list[i] != '[') {
      if (list[i] == ']') return Bad(list, "']' without '['");
      prefix += list[i++];
    }
    if (i < list.size() && list[i] == '[') {
      const size_t close = list.find(']', i);
      if (close == std::string_view::npos) return Bad(list, "'[' is not closed");
      const std::string_view inside = list.substr(i + 1, close - i - 1);
      if (inside.empty()) return Bad(list, "'[]' holds nothing");
      if (prefix.empty()) return Bad(list, "a bracket with no name before it");
      std::vector<std::string> names;
      size_t start = 0;
      while (start <= inside.size()) {
        size_t comma = inside.find(',', start);
        if (comma == std::string_view::npos) comma = inside.size();
        if (Status s = ExpandRange(list, inside.substr(start, comma - start), prefix, names);
            !s.ok()) {
          return s;
        }
        start = comma + 1;
      }
      i = close + 1;
      std::string suffix;
      while (i < list.size() && list[i] != ',') {
        if (list[i] == '[' || list[i] == ']') return Bad(list, "more than one bracket in a name");
        suffix += list[i++];
      }
      for (std::string& n : names) out.push_back(n + suffix);
    } else {
      if (prefix.empty()) return Bad(list, "an empty name");
      out.push_back(prefix);
    }
    if (i < list.size()) {
      ++i;  // the comma
      if (i == list.size()) return Bad(list, "an empty name after the last ','");
    }
  }
  return out;
}

}  // namespace squeeze
