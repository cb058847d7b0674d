#include "serve/history_views.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/duration.h"
#include "core/idle/idle_lines.h"

namespace squeeze {
namespace {

constexpr Time kMinHistoryStep = kMinute;
constexpr double kSecondsPerMonth = 30.0 * 86400;

// The GPUs of "attempt N on GPUs [0,1] in pool P": the number of entries in the brackets.
int GpuCountOf(const std::string& text) {
  const size_t open = text.find('[');
  const size_t close = text.find(']', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos || close == open + 1) return 0;
  return static_cast<int>(std::count(text.begin() + open, text.begin() + close, ',')) + 1;
}

std::string PoolOf(const std::string& text) {
  static const std::string kMark = " in pool ";
  const size_t at = text.rfind(kMark);
  return at == std::string::npos ? "" : text.substr(at + kMark.size());
}

Time Overlap(Time a0, Time a1, Time b0, Time b1) {
  return std::max<Time>(0, std::min(a1, b1) - std::max(a0, b0));
}

}  // namespace

std::vector<RunSpan> RunSpansFromEvents(const std::vector<JobEvent>& events, Time now) {
  std::vector<RunSpan> runs;
  std::map<JobId, Time> ready_since;  // when the job last became ready to run
  std::map<JobId, size_t> open;       // index into runs of the job's run still going
  for (const JobEvent& e : events) {
    if (e.kind == "submit") {
      ready_since[e.job] = e.at;
    } else if (e.kind == "start") {
      const auto ready = ready_since.find(e.job);
      const Time waited = ready == ready_since.end() ? 0 : std::max<Time>(0, e.at - ready->second);
      open[e.job] = runs.size();
      runs.push_back({e.job, e.at, now, GpuCountOf(e.text), PoolOf(e.text), waited});
    } else if (e.kind == "exit" || e.kind == "end") {
      if (auto it = open.find(e.job); it != open.end()) {
        runs[it->second].end = std::max(runs[it->second].start, e.at);
        open.erase(it);
      }
      ready_since[e.job] = e.at;
    }
  }
  return runs;
}

Result<Time> ParseSince(const std::map<std::string, std::string>& query, Time default_since) {
  const auto it = query.find("since");
  if (it == query.end()) return default_since;
  auto d = ParseDuration(it->second);
  if (!d.ok() || *d <= 0) {
    return Status::Error("since: '" + it->second + "' is not a positive duration (7d, 12h, 90m)");
  }
  return *d;
}

HistoryRange RangeSince(Time now, Time since) {
  return {now + kSecond - since, now + kSecond, since};
}

Result<HistoryRange> ParseHistoryRange(const std::map<std::string, std::string>& query, Time now,
                                       Time default_since) {
  HistoryRange r;
  auto parsed = ParseSince(query, default_since);
  if (!parsed.ok()) return parsed.status();
  const Time since = *parsed;
  if (auto it = query.find("step"); it != query.end()) {
    auto d = ParseDuration(it->second);
    if (!d.ok() || *d < kMinHistoryStep) {
      return Status::Error("step: '" + it->second + "' is not a duration of at least 1m");
    }
    r.step = *d;
  }
  r.to = now + kSecond;  // exclusive: what happened in the current second counts
  r.from = now - since;
  r.from -= ((r.from % r.step) + r.step) % r.step;
  if ((r.to - r.from + r.step - 1) / r.step > kMaxHistoryPoints) {
    return Status::Error("step: '" + FormatDuration(r.step) + "' gives more than " +
                         std::to_string(kMaxHistoryPoints) + " points over " +
                         FormatDuration(since) + "; take a longer step");
  }
  return r;
}

nlohmann::json HistoryJson(const std::vector<RunSpan>& runs, const std::vector<GpuSample>& samples,
                           const HistoryRange& range, int total_gpus) {
  const size_t n = static_cast<size_t>(std::max<Time>(1, (range.to - range.from + range.step - 1) /
                                                             range.step));
  std::vector<int64_t> started(n, 0);
  std::vector<double> waited(n, 0), busy_seconds(n, 0), util_sum(n, 0);
  std::vector<int64_t> util_count(n, 0);
  auto step_of = [&](Time t) { return static_cast<size_t>((t - range.from) / range.step); };
  for (const RunSpan& r : runs) {
    if (r.start >= range.from && r.start < range.to) {
      ++started[step_of(r.start)];
      waited[step_of(r.start)] += ToSeconds(r.waited);
    }
    const Time a = std::max(r.start, range.from), b = std::min(r.end, range.to);
    for (Time t = a; t < b;) {
      const size_t i = step_of(t);
      const Time step_end = range.from + static_cast<Time>(i + 1) * range.step;
      const Time until = std::min(b, step_end);
      busy_seconds[i] += ToSeconds(until - t) * r.gpus;
      t = until;
    }
  }
  for (const GpuSample& s : samples) {
    if (s.time < range.from || s.time >= range.to) continue;
    util_sum[step_of(s.time)] += s.utilization;
    ++util_count[step_of(s.time)];
  }
  nlohmann::json points = nlohmann::json::array();
  for (size_t i = 0; i < n; ++i) {
    const Time start = range.from + static_cast<Time>(i) * range.step;
    const Time length = std::min(range.to, start + range.step) - start;
    nlohmann::json p = {{"time", WholeSeconds(start)},
                        {"jobs_started", started[i]},
                        {"mean_wait_s", nullptr},
                        {"gpus", total_gpus},
                        {"gpus_busy", length > 0 ? busy_seconds[i] / ToSeconds(length) : 0.0},
                        {"utilization", nullptr}};
    if (started[i] > 0) p["mean_wait_s"] = waited[i] / static_cast<double>(started[i]);
    if (util_count[i] > 0) p["utilization"] = 100.0 * util_sum[i] / static_cast<double>(util_count[i]);
    points.push_back(std::move(p));
  }
  return {{"from", WholeSeconds(range.from)},
          {"to", WholeSeconds(range.to)},
          {"step_s", WholeSeconds(range.step)},
          {"points", points}};
}

nlohmann::json CostJson(const std::vector<RunSpan>& runs, const std::vector<PoolPrice>& pools,
                        const HistoryRange& range) {
  std::map<std::string, double> gpu_seconds;
  for (const RunSpan& r : runs) {
    gpu_seconds[r.pool] += ToSeconds(Overlap(r.start, r.end, range.from, range.to)) * r.gpus;
  }
  const double months = ToSeconds(range.to - range.from) / kSecondsPerMonth;
  nlohmann::json out = nlohmann::json::array();
  double total = 0;
  auto add = [&](const std::string& name, const std::string& kind, double price, double monthly) {
    const auto it = gpu_seconds.find(name);
    const double hours = it == gpu_seconds.end() ? 0 : it->second / 3600.0;
    const double cost = hours * price + monthly * months;
    total += cost;
    out.push_back({{"pool", name},
                   {"kind", kind},
                   {"price_per_gpu_hour", price},
                   {"gpu_hours", hours},
                   {"cost", cost}});
  };
  for (const PoolPrice& p : pools) {
    add(p.name, p.kind, p.price_per_gpu_hour, p.monthly_cost);
    gpu_seconds.erase(p.name);
  }
  for (const auto& [name, seconds] : std::map<std::string, double>(gpu_seconds)) {
    if (seconds > 0) add(name.empty() ? "(not recorded)" : name, "unknown", 0, 0);
  }
  return {{"from", WholeSeconds(range.from)},
          {"to", WholeSeconds(range.to)},
          {"pools", out},
          {"total_cost", total}};
}

namespace {

// The analysis with its windows moved `hours` east (a local week's hours; the heatmap's
// idle_share stays in UTC).
IdleAnalysis WindowsMoved(IdleAnalysis a, int hours) {
  auto move = [hours](std::vector<IdleWindow>& windows) {
    for (IdleWindow& w : windows) {
      w.start_hour = ((w.start_hour + hours) % kHoursPerWeek + kHoursPerWeek) % kHoursPerWeek;
    }
  };
  for (NodeIdle& n : a.nodes) {
    move(n.windows);
    for (GpuIdle& g : n.gpus) move(g.windows);
  }
  for (PoolIdle& p : a.pools) move(p.windows);
  return a;
}

std::string ZoneText(int east_minutes) {
  if (east_minutes == 0) return "UTC";
  const int a = std::abs(east_minutes);
  char text[16];
  std::snprintf(text, sizeof text, "UTC%c%02d:%02d", east_minutes < 0 ? '-' : '+', a / 60, a % 60);
  return text;
}

}  // namespace

nlohmann::json IdleWindowsJson(const IdleAnalysis& analysis, Time from, Time to,
                               int east_minutes) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const NodeIdle& node : analysis.nodes) {
    for (const GpuIdle& g : node.gpus) {
      nlohmann::json share = nlohmann::json::array();
      for (int h = 0; h < kHoursPerWeek; ++h) {
        share.push_back(g.profile.observed_weeks[h] == 0 ? nlohmann::json()
                                                          : nlohmann::json(g.profile.Probability(h)));
      }
      gpus.push_back({{"node", node.name}, {"index", g.gpu}, {"pool", node.pool}, {"idle_share", share}});
    }
  }
  nlohmann::json windows = nlohmann::json::array();
  // Whole hours, as the windows are: UTC+05:30 rounds to 6 hours.
  const int hours = static_cast<int>(std::lround(east_minutes / 60.0));
  for (const std::string& line : IdleWindowLines(WindowsMoved(analysis, hours))) {
    windows.push_back({{"text", line}});
  }
  return {{"from", WholeSeconds(from)},
          {"to", WholeSeconds(to)},
          {"threshold", analysis.options.threshold},
          {"weeks", analysis.weeks},
          {"gpus", gpus},
          {"windows", windows},
          {"windows_zone", ZoneText(east_minutes) + (east_minutes % 60 != 0 ? ", to the nearest hour" : "")}};
}

}  // namespace squeeze
