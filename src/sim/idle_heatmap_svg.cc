#include "sim/idle_heatmap_svg.h"

#include <array>
#include <cstdio>
#include <functional>

#include "sim/xml_escape.h"

namespace squeeze {
namespace {

constexpr int kCell = 18;
constexpr int kLeft = 48;        // room for the day labels
constexpr int kPanelTitle = 22;  // title line above a grid
constexpr int kAxis = 16;        // hour labels below a grid
constexpr int kPanelGap = 18;
constexpr int kPanelHeight = kPanelTitle + 7 * kCell + kAxis + kPanelGap;
constexpr int kWidth = kLeft + 24 * kCell + 150;  // the legend on the right
constexpr const char* kUnobserved = "#d0d0d0";

// White (never idle) to dark green (always idle).
std::string Colour(double p) {
  const std::array<int, 3> lo = {255, 255, 255}, hi = {0, 109, 44};
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(lo[0] + (hi[0] - lo[0]) * p),
                static_cast<int>(lo[1] + (hi[1] - lo[1]) * p),
                static_cast<int>(lo[2] + (hi[2] - lo[2]) * p));
  return buf;
}

std::string Text(int x, int y, const std::string& s, const char* extra = "") {
  return "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\"" + extra + ">" +
         XmlEscape(s) + "</text>\n";
}

std::string Rect(int x, int y, int w, int h, const std::string& fill, const std::string& title) {
  std::string r = "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) +
                  "\" width=\"" + std::to_string(w) + "\" height=\"" + std::to_string(h) +
                  "\" fill=\"" + fill + "\" stroke=\"#c8c8c8\" stroke-width=\"0.5\"";
  if (title.empty()) return r + "/>\n";
  return r + "><title>" + XmlEscape(title) + "</title></rect>\n";
}

// One 7 x 24 grid; `probability(h)` < 0 = never observed.
std::string Panel(int top, const std::string& title, const std::function<double(int)>& probability) {
  std::string out = Text(kLeft, top + 15, title, " font-weight=\"bold\"");
  const int grid = top + kPanelTitle;
  for (int day = 0; day < 7; ++day) {
    out += Text(6, grid + day * kCell + 13, DayName(day));
    for (int hour = 0; hour < 24; ++hour) {
      const double p = probability(day * 24 + hour);
      char tip[64];
      std::snprintf(tip, sizeof tip, "%s %02d:00 idle probability %.2f", DayName(day).c_str(), hour,
                    p < 0 ? 0.0 : p);
      out += Rect(kLeft + hour * kCell, grid + day * kCell, kCell, kCell,
                  p < 0 ? kUnobserved : Colour(p), p < 0 ? "not observed" : tip);
    }
  }
  for (int hour = 0; hour <= 24; hour += 3) {
    out += Text(kLeft + hour * kCell - 6, grid + 7 * kCell + 12, std::to_string(hour),
                " font-size=\"10\"");
  }
  return out;
}

std::string Legend(int top) {
  const int x = kLeft + 24 * kCell + 20;
  std::string out = Text(x, top + 15, "idle probability");
  for (int i = 0; i <= 10; ++i) {
    const double p = 1.0 - i / 10.0;
    out += Rect(x, top + 24 + i * 12, 16, 12, Colour(p), "");
    if (i % 5 == 0) out += Text(x + 22, top + 34 + i * 12, i == 0 ? "1" : i == 5 ? "0.5" : "0");
  }
  out += Rect(x, top + 24 + 11 * 12 + 8, 16, 12, kUnobserved, "");
  out += Text(x + 22, top + 24 + 11 * 12 + 18, "not observed");
  return out;
}

}  // namespace

std::string FormatIdleHeatmapSvg(const IdleAnalysis& a) {
  const int panels = static_cast<int>(a.nodes.size() + a.pools.size());
  const int height = 40 + panels * kPanelHeight;
  std::string body;
  int top = 34;
  for (const NodeIdle& n : a.nodes) {
    body += Panel(top, "node " + n.name + " (" + std::to_string(n.gpus.size()) +
                           " GPUs): every GPU idle", [&](int h) {
      return n.profile.observed_weeks[h] == 0 ? -1.0 : n.profile.Probability(h);
    });
    top += kPanelHeight;
  }
  for (const PoolIdle& p : a.pools) {
    body += Panel(top, "pool " + p.name + " (" + std::to_string(p.gpu_count) +
                           " GPUs): mean idle probability of its GPUs",
                  [&](int h) { return p.mean_gpu_probability[h]; });
    top += kPanelHeight;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(kWidth) + "\" height=\"" + std::to_string(height) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  out += Text(kLeft, 18, "Idle probability by hour of the week (UTC; rows Mon-Sun, columns hour "
                         "of day)", " font-size=\"14\"");
  out += Legend(34);
  out += body;
  out += "</svg>\n";
  return out;
}

}  // namespace squeeze
