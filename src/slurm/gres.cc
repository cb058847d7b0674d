#include <charconv>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slurm/slurm_output.h"

namespace squeeze {
namespace {

std::string Quote(std::string_view s) {
  std::string quoted(1, '\'');
  quoted.append(s);
  quoted += '\'';
  return quoted;
}

bool ParseNonNegative(std::string_view s, int* out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && *out >= 0;
}

// The entries of a GRES string, split at the commas outside parentheses ("gpu:2(IDX:0,2)").
std::vector<std::string_view> SplitEntries(std::string_view gres) {
  std::vector<std::string_view> entries;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i <= gres.size(); ++i) {
    if (i == gres.size() || (gres[i] == ',' && depth == 0)) {
      if (i > begin) entries.push_back(gres.substr(begin, i - begin));
      begin = i + 1;
    } else if (gres[i] == '(') {
      ++depth;
    } else if (gres[i] == ')') {
      --depth;
    }
  }
  return entries;
}

// One entry "gpu[:MODEL]:COUNT[(...)]": its name, model, count and what the parentheses hold.
struct GresEntry {
  std::string_view name;
  std::string_view model;
  int count = 0;
  std::string_view detail;  // "IDX:0-1", "S:0-1" or empty
};

Result<GresEntry> ParseEntry(std::string_view entry, std::string_view whole) {
  GresEntry e;
  std::string_view head = entry;
  const size_t paren = entry.find('(');
  if (paren != std::string_view::npos) {
    if (entry.back() != ')') {
      return Status::Error(Quote(whole) + " has an unclosed '(' in " + Quote(entry));
    }
    head = entry.substr(0, paren);
    e.detail = entry.substr(paren + 1, entry.size() - paren - 2);
  }
  std::vector<std::string_view> parts;
  for (size_t begin = 0;;) {
    const size_t colon = head.find(':', begin);
    parts.push_back(head.substr(begin, colon == std::string_view::npos ? colon : colon - begin));
    if (colon == std::string_view::npos) break;
    begin = colon + 1;
  }
  e.name = parts[0];
  if (e.name != "gpu") return e;
  const std::string shape = " is not a GPU GRES like gpu:4 or gpu:a100:4";
  if (parts.size() < 2 || parts.size() > 3) return Status::Error(Quote(whole) + shape);
  if (parts.size() == 3) e.model = parts[1];
  if (!ParseNonNegative(parts.back(), &e.count)) {
    return Status::Error(Quote(whole) + shape + " (count " + Quote(parts.back()) +
                         " is not a non-negative integer)");
  }
  return e;
}

// "0-1,3" -> {0,1,3}, appended to `out`.
Status ParseIndexList(std::string_view list, std::string_view whole, std::vector<int>* out) {
  if (list == "N/A") return Status::Ok();
  for (size_t begin = 0; begin <= list.size();) {
    size_t comma = list.find(',', begin);
    if (comma == std::string_view::npos) comma = list.size();
    const std::string_view item = list.substr(begin, comma - begin);
    const size_t dash = item.find('-');
    int lo = 0;
    int hi = 0;
    const bool ok = dash == std::string_view::npos
                        ? ParseNonNegative(item, &lo) && ParseNonNegative(item, &hi)
                        : ParseNonNegative(item.substr(0, dash), &lo) &&
                              ParseNonNegative(item.substr(dash + 1), &hi);
    if (!ok) {
      return Status::Error(Quote(whole) + ": GPU index " + Quote(item) +
                           " is not a number or a range like 0-3");
    }
    if (lo > hi) {
      return Status::Error(Quote(whole) + ": GPU index range " + Quote(item) + " is reversed");
    }
    for (int i = lo; i <= hi; ++i) out->push_back(i);
    begin = comma + 1;
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<int>> ParseGresIndices(std::string_view gres) {
  std::vector<int> indices;
  for (std::string_view entry : SplitEntries(gres)) {
    Result<GresEntry> e = ParseEntry(entry, gres);
    if (!e.ok()) return e.status();
    if (e->name != "gpu") continue;
    if (e->detail.substr(0, 4) != "IDX:") continue;  // no indices, or sockets ("S:0-1")
    Status s = ParseIndexList(e->detail.substr(4), gres, &indices);
    if (!s.ok()) return s;
  }
  return indices;
}

Result<std::pair<std::string, int>> ParseGresCount(std::string_view gres) {
  std::pair<std::string, int> result{"", 0};
  bool seen = false;
  if (gres == "(null)" || gres == "N/A") return result;
  for (std::string_view entry : SplitEntries(gres)) {
    Result<GresEntry> e = ParseEntry(entry, gres);
    if (!e.ok()) return e.status();
    if (e->name != "gpu") continue;
    if (seen && e->model != result.first) {
      return Status::Error(Quote(gres) + " names two GPU models, " + Quote(result.first) +
                           " and " + Quote(e->model) + "; one model per node is supported");
    }
    result.first = std::string(e->model);
    result.second += e->count;
    seen = true;
  }
  return result;
}

}  // namespace squeeze
