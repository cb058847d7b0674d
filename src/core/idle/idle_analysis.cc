#include "core/idle/idle_analysis.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

namespace squeeze {
namespace {

// The state of one hour of one week for a GPU, a node or a pool.
enum HourState : uint8_t { kUnobserved = 0, kBusy = 1, kIdle = 2 };
using StateGrid = std::vector<uint8_t>;  // [week * 168 + hour]

// Below this difference two probabilities are equal (3 of 5 weeks reaches p = 0.6).
constexpr double kEpsilon = 1e-9;

Status CheckOptions(const IdleOptions& o) {
  auto out_of = [](const char* name, double v, const char* range) {
    return Status::Error(std::string(name) + " " + std::to_string(v) + " is out of range " +
                         range);
  };
  if (!(o.threshold > 0 && o.threshold <= 1)) return out_of("threshold", o.threshold, "(0, 1]");
  if (!(o.min_coverage > 0 && o.min_coverage <= 1)) {
    return out_of("min_coverage", o.min_coverage, "(0, 1]");
  }
  if (!(o.probability > 0 && o.probability <= 1)) {
    return out_of("probability", o.probability, "(0, 1]");
  }
  if (o.min_weeks < 1) return out_of("min_weeks", o.min_weeks, ">= 1");
  if (o.sample_period < 0 || o.sample_period > kHour) {
    return out_of("sample_period", ToSeconds(o.sample_period), "[0, 3600] seconds");
  }
  return Status::Ok();
}

using GpuKey = std::pair<std::string, int>;
// A sample's time, utilization and how long it stands for (GpuSample::covers; 0: the period).
using GpuPoint = std::tuple<Time, double, Time>;
using GpuSeries = std::map<GpuKey, std::vector<GpuPoint>>;

// The median gap between consecutive raw samples (covers 0) of a GPU, at most an hour; an hour
// when no GPU has two.
Time MedianGap(const GpuSeries& series) {
  std::vector<Time> gaps;
  for (const auto& [key, points] : series) {
    for (size_t i = 1; i < points.size(); ++i) {
      const auto& [t0, u0, covers0] = points[i - 1];
      const auto& [t1, u1, covers1] = points[i];
      if (covers0 == 0 && covers1 == 0 && t1 > t0) gaps.push_back(t1 - t0);
    }
  }
  if (gaps.empty()) return kHour;
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  return std::min(gaps[gaps.size() / 2], kHour);
}

// Each hour's mean utilization, weighted by the seconds each sample stands for.
StateGrid GpuStates(const std::vector<GpuPoint>& points, int64_t first_week, int weeks,
                    Time period, const IdleOptions& o) {
  const size_t cells = static_cast<size_t>(weeks) * kHoursPerWeek;
  std::vector<double> sum(cells, 0);
  std::vector<double> seconds(cells, 0);
  for (const auto& [t, u, covers] : points) {
    const size_t cell = static_cast<size_t>(WeekIndex(t) - first_week) * kHoursPerWeek +
                        static_cast<size_t>(HourOfWeek(t));
    const double w = ToSeconds(covers > 0 ? covers : period);
    sum[cell] += u * w;
    seconds[cell] += w;
  }
  StateGrid states(cells, kUnobserved);
  for (size_t c = 0; c < cells; ++c) {
    const double covered = seconds[c] / ToSeconds(kHour);
    if (seconds[c] <= 0 || covered + kEpsilon < o.min_coverage) continue;
    states[c] = sum[c] / seconds[c] < o.threshold ? kIdle : kBusy;
  }
  return states;
}

// Every part idle -> idle; any part unobserved -> unobserved; else busy.
StateGrid AllIdle(const std::vector<const StateGrid*>& parts, size_t cells) {
  StateGrid out(cells, kIdle);
  for (const StateGrid* p : parts) {
    for (size_t c = 0; c < cells; ++c) {
      if ((*p)[c] == kUnobserved || out[c] == kUnobserved) {
        out[c] = kUnobserved;
      } else if ((*p)[c] == kBusy) {
        out[c] = kBusy;
      }
    }
  }
  return out;
}

HourProfile ProfileOf(const StateGrid& states, int weeks) {
  HourProfile p;
  for (int w = 0; w < weeks; ++w) {
    for (int h = 0; h < kHoursPerWeek; ++h) {
      const uint8_t s = states[static_cast<size_t>(w) * kHoursPerWeek + h];
      if (s != kUnobserved) ++p.observed_weeks[h];
      if (s == kIdle) ++p.idle_weeks[h];
    }
  }
  return p;
}

struct NodeGrids {
  NodeIdle node;
  std::vector<StateGrid> gpu_states;
  StateGrid states;
};

void AddPools(const std::map<std::string, NodeGrids>& grids, int weeks, const IdleOptions& o,
              IdleAnalysis& out) {
  std::map<std::string, std::vector<const NodeGrids*>> by_pool;
  for (const auto& [name, g] : grids) by_pool[g.node.pool].push_back(&g);
  const size_t cells = static_cast<size_t>(weeks) * kHoursPerWeek;
  for (const auto& [pool_name, members] : by_pool) {
    PoolIdle pool;
    pool.name = pool_name;
    std::vector<const StateGrid*> parts;
    for (const NodeGrids* g : members) {
      pool.nodes.push_back(g->node.name);
      parts.push_back(&g->states);
      for (const GpuIdle& gpu : g->node.gpus) {
        ++pool.gpu_count;
        for (int h = 0; h < kHoursPerWeek; ++h) pool.mean_gpu_probability[h] += gpu.profile.Probability(h);
      }
    }
    for (double& p : pool.mean_gpu_probability) p /= std::max(1, pool.gpu_count);
    pool.profile = ProfileOf(AllIdle(parts, cells), weeks);
    pool.windows = FindWindows(pool.profile, o);
    out.pools.push_back(std::move(pool));
  }
}

}  // namespace

double HourProfile::Probability(int hour) const {
  if (observed_weeks[hour] == 0) return 0;
  return static_cast<double>(idle_weeks[hour]) / observed_weeks[hour];
}

std::vector<IdleWindow> FindWindows(const HourProfile& profile, const IdleOptions& o) {
  std::array<bool, kHoursPerWeek> in{};
  bool all = true;
  for (int h = 0; h < kHoursPerWeek; ++h) {
    const int n = profile.observed_weeks[h];
    in[h] = n >= o.min_weeks && profile.idle_weeks[h] + kEpsilon >= o.probability * n;
    all = all && in[h];
  }
  auto window_at = [&](int start, int length) {
    IdleWindow w{start, length, profile.idle_weeks[start], profile.observed_weeks[start]};
    for (int i = 0; i < length; ++i) {
      const int h = (start + i) % kHoursPerWeek;
      w.idle_weeks = std::min(w.idle_weeks, profile.idle_weeks[h]);
      w.observed_weeks = std::max(w.observed_weeks, profile.observed_weeks[h]);
    }
    return w;
  };
  if (all) return {window_at(0, kHoursPerWeek)};
  std::vector<IdleWindow> windows;
  for (int h = 0; h < kHoursPerWeek; ++h) {
    if (!in[h] || in[(h + kHoursPerWeek - 1) % kHoursPerWeek]) continue;
    int length = 1;
    while (in[(h + length) % kHoursPerWeek]) ++length;
    windows.push_back(window_at(h, length));
  }
  return windows;
}

Result<IdleAnalysis> AnalyseIdle(const std::vector<GpuSample>& samples, const IdleOptions& o,
                                 const std::map<std::string, std::string>& pool_of_node) {
  if (Status st = CheckOptions(o); !st.ok()) return st;
  if (samples.empty()) return Status::Error("no samples to analyse");
  GpuSeries series;
  IdleAnalysis out;
  out.options = o;
  out.first_sample = samples.front().time;
  out.last_sample = samples.front().time;
  for (const GpuSample& s : samples) {
    series[{s.node, s.gpu}].emplace_back(s.time, s.utilization, std::max<Time>(0, s.covers));
    out.first_sample = std::min(out.first_sample, s.time);
    out.last_sample = std::max(out.last_sample, s.time);
  }
  for (auto& [key, points] : series) std::sort(points.begin(), points.end());
  out.sample_period = o.sample_period > 0 ? o.sample_period : MedianGap(series);
  const int64_t first_week = WeekIndex(out.first_sample);
  out.weeks = static_cast<int>(WeekIndex(out.last_sample) - first_week + 1);
  const size_t cells = static_cast<size_t>(out.weeks) * kHoursPerWeek;
  std::map<std::string, NodeGrids> grids;
  for (const auto& [key, points] : series) {
    NodeGrids& g = grids[key.first];
    if (g.node.name.empty()) {
      g.node.name = key.first;
      if (pool_of_node.empty()) {
        g.node.pool = "all";
      } else if (auto it = pool_of_node.find(key.first); it != pool_of_node.end()) {
        g.node.pool = it->second;
      } else {
        return Status::Error("node '" + key.first +
                             "' of the samples is not in the cluster file");
      }
    }
    g.gpu_states.push_back(GpuStates(points, first_week, out.weeks, out.sample_period, o));
    GpuIdle gpu{key.second, ProfileOf(g.gpu_states.back(), out.weeks), {}};
    gpu.windows = FindWindows(gpu.profile, o);
    g.node.gpus.push_back(std::move(gpu));
  }
  for (auto& [name, g] : grids) {
    std::vector<const StateGrid*> parts;
    for (const StateGrid& s : g.gpu_states) parts.push_back(&s);
    g.states = AllIdle(parts, cells);
    g.node.profile = ProfileOf(g.states, out.weeks);
    g.node.windows = FindWindows(g.node.profile, o);
  }
  AddPools(grids, out.weeks, o, out);
  for (auto& [name, g] : grids) out.nodes.push_back(std::move(g.node));
  return out;
}

std::optional<Time> IdleWindowEnd(const std::vector<IdleWindow>& windows, Time t) {
  const int hour = HourOfWeek(t);
  const Time hour_start = t - ((t % kHour) + kHour) % kHour;
  for (const IdleWindow& w : windows) {
    const int offset = (hour - w.start_hour + kHoursPerWeek) % kHoursPerWeek;
    if (offset < w.length_hours) return hour_start + Time{w.length_hours - offset} * kHour;
  }
  return std::nullopt;
}

std::optional<Time> NodeIdleUntil(const IdleAnalysis& analysis, const std::string& node, Time t) {
  for (const NodeIdle& n : analysis.nodes) {
    if (n.name == node) return IdleWindowEnd(n.windows, t);
  }
  return std::nullopt;
}

}  // namespace squeeze
