#include "sim/fill_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "sim/xml_escape.h"

namespace squeeze {
namespace {

std::set<int> Columns(const std::vector<PlacementOutcome>& outcomes) {
  std::set<int> cols;
  for (const auto& o : outcomes) {
    for (const auto& [x, v] : o.alloc_at) cols.insert(x);
  }
  return cols;
}

nlohmann::json ColumnsJson(const std::map<int, double>& at) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [x, v] : at) j[std::to_string(x)] = v;
  return j;
}

}  // namespace

std::string FormatFillTable(const std::vector<PlacementOutcome>& outcomes) {
  const std::set<int> cols = Columns(outcomes);
  size_t width = 10;
  for (const auto& o : outcomes) width = std::max(width, o.placement.size());
  std::string out = "allocation ratio (% of GPU milli allocated) at X% of capacity arrived\n";
  out += fmt::format("{:<{}}", "placement", width);
  for (int x : cols) out += fmt::format(" {:>7}", "@" + std::to_string(x));
  out += fmt::format(" {:>6} {:>8} {:>7}\n", "seeds", "failed", "wall_s");
  for (const auto& o : outcomes) {
    out += fmt::format("{:<{}}", o.placement, width);
    for (int x : cols) {
      auto it = o.alloc_at.find(x);
      out += it == o.alloc_at.end() ? fmt::format(" {:>7}", "-") : fmt::format(" {:>7.2f}", it->second);
    }
    out += fmt::format(" {:>6} {:>8.1f} {:>7.2f}\n", o.seeds, o.failed_pods, o.wall_s);
  }
  out += "\nfragmentation (% of cluster GPUs stranded for the target workload)\n";
  out += fmt::format("{:<{}}", "placement", width);
  for (int x : cols) out += fmt::format(" {:>7}", "@" + std::to_string(x));
  out += "\n";
  for (const auto& o : outcomes) {
    out += fmt::format("{:<{}}", o.placement, width);
    for (int x : cols) {
      auto it = o.frag_at.find(x);
      out += it == o.frag_at.end() ? fmt::format(" {:>7}", "-") : fmt::format(" {:>7.2f}", it->second);
    }
    out += "\n";
  }
  return out;
}

std::string FormatFillJson(const std::vector<PlacementOutcome>& outcomes, const std::string& trace,
                           const std::string& nodes, double fill) {
  nlohmann::json j;
  j["trace"] = trace;
  j["nodes"] = nodes;
  j["fill"] = fill;
  j["results"] = nlohmann::json::array();
  for (const auto& o : outcomes) {
    nlohmann::json r;
    r["placement"] = o.placement;
    r["alloc_at"] = ColumnsJson(o.alloc_at);
    r["frag_at"] = ColumnsJson(o.frag_at);
    nlohmann::json by_seed = nlohmann::json::object();
    for (const auto& [seed, at] : o.alloc_by_seed) by_seed[std::to_string(seed)] = ColumnsJson(at);
    r["alloc_by_seed"] = by_seed;
    r["seeds"] = o.seeds;
    r["failed_pods"] = o.failed_pods;
    r["wall_s"] = o.wall_s;
    j["results"].push_back(r);
  }
  return j.dump(2) + "\n";
}

std::string FillAllocationSvg(const std::vector<PlacementOutcome>& outcomes,
                              const std::string& title) {
  constexpr double kW = 720, kH = 440, kLeft = 70, kRight = 160, kTop = 40, kBottom = 50;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  static const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                  "#8c564b", "#e377c2", "#7f7f7f"};
  const std::set<int> cols = Columns(outcomes);
  const double x_lo = cols.empty() ? 80 : *cols.begin();
  const double x_hi = cols.empty() ? 130 : std::max(*cols.rbegin(), *cols.begin() + 1);
  double y_lo = 100, y_hi = 0;
  for (const auto& o : outcomes) {
    for (const auto& [x, v] : o.alloc_at) {
      y_lo = std::min(y_lo, v);
      y_hi = std::max(y_hi, v);
    }
  }
  if (y_hi <= y_lo) {
    y_lo = 0;
    y_hi = 100;
  }
  y_lo = std::floor(y_lo / 5) * 5;
  y_hi = std::ceil(y_hi / 5) * 5;
  if (y_hi <= y_lo) y_hi = y_lo + 5;
  auto x_of = [&](double x) { return kLeft + pw * (x - x_lo) / (x_hi - x_lo); };
  auto y_of = [&](double y) { return kTop + ph * (1 - (y - y_lo) / (y_hi - y_lo)); };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"{}\" y=\"22\" font-size=\"15\">{}</text>\n",
      kW, kH, kLeft, XmlEscape(title));
  for (int x : cols) {
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
                       "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}%</text>\n",
                       x_of(x), kTop, kTop + ph, kTop + ph + 16, x);
  }
  for (double y = y_lo; y <= y_hi + 1e-9; y += 5) {
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
                       "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:.0f}%</text>\n",
                       kLeft, y_of(y), kLeft + pw, kLeft - 6, y_of(y) + 4, y);
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">GPU demand arrived (% of capacity)</text>\n",
                     kLeft + pw / 2, kH - 12);
  svg += fmt::format("<text transform=\"translate(16,{}) rotate(-90)\" text-anchor=\"middle\">GPU allocation ratio</text>\n",
                     kTop + ph / 2);
  for (size_t p = 0; p < outcomes.size(); ++p) {
    const char* color = kColors[p % 8];
    std::string points;
    for (const auto& [x, v] : outcomes[p].alloc_at) {
      points += fmt::format("{:.1f},{:.1f} ", x_of(x), y_of(v));
    }
    svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n",
                       color, points);
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"4\" fill=\"{}\"/>"
                       "<text x=\"{}\" y=\"{}\">{}</text>\n",
                       kLeft + pw + 14, kTop + 10 + 20 * p, color, kLeft + pw + 34,
                       kTop + 15 + 20 * p, XmlEscape(outcomes[p].placement));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace squeeze
