#include "sim/gpu_sample_generator.h"

#include <algorithm>
#include <cstdio>

#include "core/idle/hour_of_week.h"

namespace squeeze {
namespace {

bool PlantedIdle(const SampleSpec& spec, const std::string& node, int gpu, int week, int hour) {
  for (const PlantedWindow& w : spec.windows) {
    if (w.node != node) continue;
    if (!w.gpus.empty() && std::find(w.gpus.begin(), w.gpus.end(), gpu) == w.gpus.end()) continue;
    if (std::find(w.skipped_weeks.begin(), w.skipped_weeks.end(), week) != w.skipped_weeks.end()) {
      continue;
    }
    for (int d = 0; d < w.days; ++d) {
      const int start = ((w.first_day + d) * 24 + w.start_hour) % kHoursPerWeek;
      if ((hour - start + kHoursPerWeek) % kHoursPerWeek < w.hours) return true;
    }
  }
  return false;
}

// Uniform in [lo, hi) from the top 53 bits of one draw: written out rather than
// std::uniform_real_distribution, so that one seed gives the same samples with every standard
// library.
struct Uniform {
  double lo, hi;
  double operator()(std::mt19937_64& rng) const {
    return lo + (hi - lo) * static_cast<double>(rng() >> 11) * 0x1.0p-53;
  }
};

}  // namespace

std::vector<GpuSample> GenerateSamples(const SampleSpec& spec, std::mt19937_64& rng) {
  const Uniform busy{0.40, 0.95};
  const Uniform idle{0.0, 0.05};
  const Uniform memory{0.0, 1.0};
  const Time start = WeekStart(WeekIndex(spec.start));
  const Time end = start + spec.weeks * kWeek;
  std::vector<GpuSample> out;
  for (Time t = start; t < end; t += spec.step) {
    const int week = static_cast<int>((t - start) / kWeek);
    const int hour = HourOfWeek(t);
    for (const auto& [node, gpus] : spec.nodes) {
      for (int g = 0; g < gpus; ++g) {
        const bool is_idle = PlantedIdle(spec, node, g, week, hour);
        GpuSample s{t, node, g, is_idle ? idle(rng) : busy(rng), std::nullopt, 0};
        s.memory_used_mib = is_idle ? 0 : static_cast<double>(static_cast<int>(20000 + 60000 * memory(rng)));
        out.push_back(std::move(s));
      }
    }
  }
  return out;
}

SampleSpec DemoSampleSpec(int weeks) {
  SampleSpec spec;
  spec.weeks = weeks;
  spec.nodes = {{"node-1", 8}, {"node-2", 8}, {"node-3", 8}};
  spec.windows = {
      {"node-1", {}, 0, 5, 1, 6, {}},
      {"node-2", {0, 1, 2, 3}, 5, 2, 0, 24, {}},
      {"node-2", {4, 5, 6, 7}, 2, 1, 12, 4, {1, 3}},
  };
  return spec;
}

std::string SamplesCsv(const std::vector<GpuSample>& samples) {
  std::string out = "time,node,gpu,utilization,memory_used_mib\n";
  char buf[64];
  for (const GpuSample& s : samples) {
    out += IsoTime(s.time);
    out += ',';
    out += s.node;
    std::snprintf(buf, sizeof buf, ",%d,%.3f,", s.gpu, s.utilization);
    out += buf;
    if (s.memory_used_mib) {
      std::snprintf(buf, sizeof buf, "%.0f", *s.memory_used_mib);
      out += buf;
    }
    out += '\n';
  }
  return out;
}

}  // namespace squeeze
