#include "sim/idle_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/idle/idle_lines.h"

namespace squeeze {
namespace {

std::string Percent(double v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%g%%", v * 100);
  return buf;
}

std::string Count(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

void Section(std::string& out, const std::string& title, const std::vector<std::string>& lines,
             const std::vector<std::string>& without) {
  out += title + "\n";
  for (const std::string& l : lines) out += "  " + l + "\n";
  if (without.empty()) return;
  out += "  no window:";
  for (size_t i = 0; i < without.size(); ++i) out += (i ? ", " : " ") + without[i];
  out += "\n";
}

nlohmann::json WindowsJson(const std::vector<IdleWindow>& windows) {
  nlohmann::json out = nlohmann::json::array();
  for (const IdleWindow& w : windows) {
    out.push_back({{"start_hour_of_week", w.start_hour},
                   {"start", DayName(w.start_hour / 24) + " " + HourText(w.start_hour % 24)},
                   {"length_hours", w.length_hours},
                   {"idle_weeks", w.idle_weeks},
                   {"observed_weeks", w.observed_weeks}});
  }
  return out;
}

nlohmann::json LinesJson(const std::vector<IdleWindow>& windows) {
  nlohmann::json out = nlohmann::json::array();
  for (const IdleLine& l : MergeDaily(windows)) out.push_back(l.Text());
  return out;
}

nlohmann::json ProbabilitiesJson(const HourProfile& p) {
  nlohmann::json out = nlohmann::json::array();
  for (int h = 0; h < kHoursPerWeek; ++h) out.push_back(p.Probability(h));
  return out;
}

}  // namespace

std::string FormatIdleText(const IdleAnalysis& a) {
  const IdleOptions& o = a.options;
  int gpus = 0;
  for (const NodeIdle& n : a.nodes) gpus += static_cast<int>(n.gpus.size());
  std::string out = "Idle windows (UTC). An hour is idle when the mean utilization is below " +
                    Percent(o.threshold) + " and samples cover at least " +
                    Percent(o.min_coverage) + " of it;\na window's hours are idle in at least " +
                    Percent(o.probability) + " of the weeks observed, at least " +
                    std::to_string(o.min_weeks) + " weeks.\n";
  out += "Samples: " + IsoTime(a.first_sample) + " to " + IsoTime(a.last_sample) + " (" +
         std::to_string(a.weeks) + " calendar weeks), " + std::to_string(a.nodes.size()) +
         " nodes, " + std::to_string(gpus) + " GPUs, one sample per " +
         std::to_string(WholeSeconds(a.sample_period)) + " s\n\n";
  std::vector<std::string> lines, without;
  for (const NodeIdle& n : a.nodes) {
    auto l = GpuGroupLines(n);
    if (l.empty()) without.push_back(n.name);
    lines.insert(lines.end(), l.begin(), l.end());
  }
  Section(out, "By GPU group:", lines, without);
  lines.clear();
  without.clear();
  for (const NodeIdle& n : a.nodes) {
    auto l = IdleLinesOf(n.name, n.windows);
    if (l.empty()) without.push_back(n.name);
    lines.insert(lines.end(), l.begin(), l.end());
  }
  Section(out, "Whole nodes (every GPU idle):", lines, without);
  lines.clear();
  without.clear();
  for (const PoolIdle& p : a.pools) {
    const std::string who = p.name + " (" + Count(p.nodes.size(), "node") + ", " +
                            Count(p.gpu_count, "GPU") + ")";
    auto l = IdleLinesOf(who, p.windows);
    if (l.empty()) without.push_back(who);
    lines.insert(lines.end(), l.begin(), l.end());
  }
  Section(out, "Pools (every GPU of the pool idle):", lines, without);
  return out;
}

std::string FormatIdleJson(const IdleAnalysis& a) {
  const IdleOptions& o = a.options;
  nlohmann::json j;
  j["options"] = {{"threshold", o.threshold},
                  {"min_coverage", o.min_coverage},
                  {"probability", o.probability},
                  {"min_weeks", o.min_weeks}};
  j["first_sample"] = IsoTime(a.first_sample);
  j["last_sample"] = IsoTime(a.last_sample);
  j["weeks"] = a.weeks;
  j["sample_period_s"] = WholeSeconds(a.sample_period);
  j["nodes"] = nlohmann::json::array();
  for (const NodeIdle& n : a.nodes) {
    nlohmann::json groups = nlohmann::json::array();
    for (const GpuGroup& g : GroupGpus(n)) {
      groups.push_back({{"gpus", g.gpus}, {"windows", WindowsJson(g.windows)},
                        {"lines", LinesJson(g.windows)}});
    }
    j["nodes"].push_back({{"name", n.name},
                          {"pool", n.pool},
                          {"gpu_count", n.gpus.size()},
                          {"gpu_groups", groups},
                          {"windows", WindowsJson(n.windows)},
                          {"lines", LinesJson(n.windows)},
                          {"idle_probability", ProbabilitiesJson(n.profile)}});
  }
  j["pools"] = nlohmann::json::array();
  for (const PoolIdle& p : a.pools) {
    j["pools"].push_back({{"name", p.name},
                          {"nodes", p.nodes},
                          {"gpu_count", p.gpu_count},
                          {"windows", WindowsJson(p.windows)},
                          {"lines", LinesJson(p.windows)},
                          {"idle_probability", ProbabilitiesJson(p.profile)},
                          {"mean_gpu_idle_probability", p.mean_gpu_probability}});
  }
  return j.dump(2) + "\n";
}

}  // namespace squeeze
