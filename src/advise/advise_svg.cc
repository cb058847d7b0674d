#include "advise/advise_svg.h"

#include <algorithm>
#include <fmt/format.h>

#include "advise/advise_sections.h"
#include "sim/xml_escape.h"

namespace squeeze {
namespace {

constexpr int kWidth = 760, kHeight = 400;
constexpr int kLeft = 70, kRight = 20, kTop = 40, kBottom = 50;

std::string Open(int height, const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"22\" font-size=\"15\">{3}</text>\n",
      kWidth, height, kLeft, XmlEscape(title));
}

}  // namespace

std::string LoadCurveSvg(const ReserveSplit& s) {
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const double max_k = std::max(1, s.peak);
  auto x_of = [&](double k) { return kLeft + plot_w * k / max_k; };
  auto y_of = [&](double h) { return kTop + plot_h * (1 - h / kHoursPerMonth); };
  std::string svg = Open(kHeight, "Load-duration curve: hours a month the k-th GPU is busy");
  const int owned = std::min(s.owned_on_curve, s.peak);
  const int reserved_end = owned + s.reserved;
  auto band = [&](double from, double to, const char* color, const char* label) {
    if (to <= from) return std::string();
    return fmt::format(
        "<rect class=\"band\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{:.0f}\" "
        "fill=\"{}\" fill-opacity=\"0.25\"/><text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">"
        "{}</text>\n",
        x_of(from), kTop, x_of(to) - x_of(from), plot_h, color, (x_of(from) + x_of(to)) / 2,
        kTop + 14, label);
  };
  svg += band(0, owned, "#999999", "owned");
  svg += band(owned, reserved_end, "#2ca02c", "reserved");
  svg += band(reserved_end, s.peak, "#ff7f0e", "on demand");
  for (int i = 0; i <= 4; ++i) {
    const double h = kHoursPerMonth * i / 4;
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:.0f}</text>\n",
        kLeft, y_of(h), kWidth - kRight, kLeft - 6, y_of(h) + 4, h);
  }
  for (int i = 0; i <= 5; ++i) {
    const double k = max_k * i / 5;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x_of(k),
                       kHeight - kBottom + 16, Grouped(k));
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">k-th GPU of the demand</text>\n",
                     kLeft + plot_w / 2, kHeight - 12);
  svg += fmt::format("<text transform=\"translate(16,{}) rotate(-90)\" text-anchor=\"middle\">"
                     "hours a month busy</text>\n", kTop + plot_h / 2);
  std::string points = fmt::format("{:.1f},{:.1f} ", x_of(0), y_of(s.hours_per_month.empty() ? 0 : s.hours_per_month[0]));
  const size_t step = std::max<size_t>(1, s.hours_per_month.size() / 1500);
  for (size_t k = 0; k < s.hours_per_month.size(); k += step) {
    points += fmt::format("{:.1f},{:.1f} ", x_of(k + 1.0), y_of(s.hours_per_month[k]));
  }
  if (!s.hours_per_month.empty()) {
    points += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f}", x_of(max_k), y_of(s.hours_per_month.back()),
                          x_of(max_k), y_of(0));
  }
  svg += fmt::format("<polyline class=\"load-curve\" fill=\"none\" stroke=\"#1f77b4\" "
                     "stroke-width=\"2\" points=\"{}\"/>\n", points);
  const double be = std::min(s.break_even_hours, kHoursPerMonth);
  svg += fmt::format(
      "<line class=\"break-even\" x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" "
      "stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"6,4\"/>"
      "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\" fill=\"#d62728\">break-even {5:.0f} h "
      "a month</text>\n",
      kLeft, y_of(be), kWidth - kRight, kWidth - kRight - 4, y_of(be) - 5, s.break_even_hours);
  return svg + "</svg>";
}

std::string WhatIfWaitsSvg(const std::vector<WhatIfOutcome>& runs) {
  const int bar = 26, gap = 12, label_w = 260;
  const int height = kTop + static_cast<int>(runs.size()) * (bar + gap) + 30;
  std::string svg = Open(height, "Mean queueing delay of each what-if run");
  double max_wait = 1;
  for (const auto& r : runs) max_wait = std::max(max_wait, r.summary.avg_queue_s);
  const double plot_w = kWidth - label_w - kRight - 150;
  for (size_t i = 0; i < runs.size(); ++i) {
    const double y = kTop + static_cast<double>(i) * (bar + gap);
    const double w = plot_w * runs[i].summary.avg_queue_s / max_wait;
    svg += fmt::format(
        "<text x=\"{0}\" y=\"{1:.1f}\" text-anchor=\"end\">{2}</text>"
        "<rect class=\"wait-bar\" x=\"{3}\" y=\"{4:.1f}\" width=\"{5:.1f}\" height=\"{6}\" "
        "fill=\"{7}\"/><text x=\"{8:.1f}\" y=\"{1:.1f}\">{9} s, {10} a month</text>\n",
        label_w - 8, y + bar / 2.0 + 4, XmlEscape(runs[i].label), label_w, y, w, bar,
        i == 0 ? "#999999" : "#1f77b4", label_w + w + 6, Grouped(runs[i].summary.avg_queue_s),
        Grouped(runs[i].cost_per_month));
  }
  return svg + "</svg>";
}

}  // namespace squeeze
