#include "core/elastic.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace squeeze {
namespace {

// A whole number of 1..100000 from `text`, or nullopt.
std::optional<int> ParseCount(std::string_view text) {
  if (text.empty() || text.size() > 6) return std::nullopt;
  int n = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return std::nullopt;
    n = n * 10 + (ch - '0');
  }
  if (n < 1 || n > 100000) return std::nullopt;
  return n;
}

std::optional<double> ParsePositive(std::string_view text) {
  if (text.empty() || text.size() > 32) return std::nullopt;
  const std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

std::string ScalingQuoted(std::string_view text) {
  std::string out = "'";
  for (char ch : text.substr(0, 40)) out += (ch >= 32 && ch < 127) ? ch : '?';
  if (text.size() > 40) out += "...";
  return out + "'";
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

Result<Scaling> ParseScaling(std::string_view text) {
  Scaling s;
  if (text == "linear") return s;
  if (text.substr(0, 7) == "amdahl:") {
    const std::string_view p = text.substr(7);
    auto v = ParsePositive(p);
    if (!v || *v > 1) {
      return Status::Error("scaling " + ScalingQuoted(text) +
                           ": the parallel fraction after amdahl: must be a number in (0, 1]");
    }
    s.kind = Scaling::Kind::kAmdahl;
    s.parallel = *v;
    return s;
  }
  s.kind = Scaling::Kind::kTable;
  std::string_view rest = text;
  bool more = !rest.empty();
  while (more) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    more = comma != std::string_view::npos;
    rest = more ? rest.substr(comma + 1) : std::string_view();
    const size_t colon = item.find(':');
    auto width = colon == std::string_view::npos ? std::nullopt : ParseCount(item.substr(0, colon));
    auto rate = colon == std::string_view::npos ? std::nullopt : ParsePositive(item.substr(colon + 1));
    if (!width || !rate) {
      return Status::Error("scaling " + ScalingQuoted(text) +
                           ": not linear, amdahl:P or a table of WIDTH:THROUGHPUT pairs (as "
                           "1:1,2:1.9,4:3.4); " + ScalingQuoted(item) + " is not such a pair");
    }
    if (!s.table.empty() && *width <= s.table.back().first) {
      return Status::Error("scaling " + ScalingQuoted(text) + ": widths must grow from pair to pair");
    }
    s.table.emplace_back(*width, *rate);
    if (s.table.size() > 64) return Status::Error("scaling " + ScalingQuoted(text) + ": more than 64 pairs");
  }
  if (s.table.empty()) return Status::Error("scaling '': not linear, amdahl:P or a table");
  return s;
}

std::string ScalingText(const Scaling& s) {
  switch (s.kind) {
    case Scaling::Kind::kLinear:
      return "linear";
    case Scaling::Kind::kAmdahl:
      return "amdahl:" + Number(s.parallel);
    case Scaling::Kind::kTable: {
      std::string out;
      for (const auto& [w, t] : s.table) out += (out.empty() ? "" : ",") + std::to_string(w) + ":" + Number(t);
      return out;
    }
  }
  return "linear";
}

double Throughput(const Scaling& s, int width) {
  if (width <= 0) return 0;
  switch (s.kind) {
    case Scaling::Kind::kLinear:
      return width;
    case Scaling::Kind::kAmdahl:
      return 1.0 / ((1.0 - s.parallel) + s.parallel / width);
    case Scaling::Kind::kTable: {
      const auto& t = s.table;
      if (width <= t.front().first) return t.front().second * width / t.front().first;
      for (size_t i = 1; i < t.size(); ++i) {
        if (width > t[i].first) continue;
        const double f = static_cast<double>(width - t[i - 1].first) / (t[i].first - t[i - 1].first);
        return t[i - 1].second + f * (t[i].second - t[i - 1].second);
      }
      return t.back().second;
    }
  }
  return width;
}

Result<ElasticSpec> ParseGpuRange(std::string_view text, std::string_view field) {
  ElasticSpec e;
  const size_t dash = text.find('-');
  if (dash == std::string_view::npos) {
    if (!ParseCount(text)) {
      return Status::Error(std::string(field) + " " + ScalingQuoted(text) +
                           " is not a number of GPUs or a range MIN-MAX (as 2-8)");
    }
    return e;
  }
  auto lo = ParseCount(text.substr(0, dash));
  auto hi = ParseCount(text.substr(dash + 1));
  if (!lo || !hi || *lo > *hi) {
    return Status::Error(std::string(field) + " " + ScalingQuoted(text) +
                         " is not a range MIN-MAX of GPUs with 1 <= MIN <= MAX (as 2-8)");
  }
  e.min = *lo;
  e.max = *hi;
  return e;
}

Status ValidateElastic(const ElasticSpec& e) {
  if (!e.enabled()) return Status::Ok();
  if (e.min < 1 || e.min > e.max) {
    return Status::Error("gpus range " + std::to_string(e.min) + "-" + std::to_string(e.max) +
                         " must have 1 <= min <= max");
  }
  if (e.step < 1 || e.step > e.max) {
    return Status::Error("step " + std::to_string(e.step) + " must be 1.." + std::to_string(e.max));
  }
  if (e.reference < 0 || e.reference > e.max * 64) {
    return Status::Error("reference width " + std::to_string(e.reference) + " is outside 0.." +
                         std::to_string(e.max * 64));
  }
  if (e.scaling.kind == Scaling::Kind::kAmdahl &&
      !(e.scaling.parallel > 0 && e.scaling.parallel <= 1)) {
    return Status::Error("scaling amdahl:" + Number(e.scaling.parallel) + " must be in (0, 1]");
  }
  if (e.resize_cost && *e.resize_cost < 0) return Status::Error("resize_cost must not be negative");
  return Status::Ok();
}

std::string GpuRangeText(const ElasticSpec& e) {
  std::string out = std::to_string(e.min) + "-" + std::to_string(e.max);
  if (e.step != 1) out += ":" + std::to_string(e.step);
  return out;
}

int WidestWithin(const ElasticSpec& e, int gpus) {
  if (gpus < e.min) return 0;
  const int step = std::max(1, e.step);
  const int w = std::min(e.max, gpus);
  return e.min + (w - e.min) / step * step;
}

namespace {

// The throughput of `width`, from the measured rate of the measured width nearest to it scaled
// by the model, or the model alone (in its own unit) when nothing was measured.
double RateAt(const ElasticSpec& e, const MeasuredRates& measured, int width) {
  if (measured.empty()) return Throughput(e.scaling, width);
  auto exact = measured.find(width);
  if (exact != measured.end()) return exact->second;
  auto nearest = measured.begin();
  for (auto it = measured.begin(); it != measured.end(); ++it) {
    if (std::abs(it->first - width) < std::abs(nearest->first - width)) nearest = it;
  }
  return nearest->second * Throughput(e.scaling, width) / Throughput(e.scaling, nearest->first);
}

}  // namespace

double ElasticSpeed(const ElasticSpec& e, const MeasuredRates& measured, int width) {
  const double ref = RateAt(e, measured, e.Reference());
  if (!(ref > 0)) return 1;
  return RateAt(e, measured, width) / ref;
}

}  // namespace squeeze
