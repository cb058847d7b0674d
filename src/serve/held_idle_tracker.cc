#include "serve/held_idle_tracker.h"

#include <algorithm>

namespace squeeze {

void HeldIdleTracker::Record(int node, int gpu, Time time, double utilization) {
  auto [it, added] = gpus_.try_emplace({node, gpu});
  GpuSpell& g = it->second;
  if (!added && time < g.last) return;
  g.last = time;
  g.last_utilization = utilization;
  if (utilization >= options_.threshold) {
    g = GpuSpell{false, 0, time, 0, 0, utilization};
    return;
  }
  if (!g.idle) {
    g.idle = true;
    g.idle_since = time;
    g.sum = 0;
    g.count = 0;
  }
  g.sum += utilization;
  ++g.count;
}

std::optional<HeldIdleTracker::Reading> HeldIdleTracker::Latest(int node, int gpu) const {
  const auto it = gpus_.find({node, gpu});
  if (it == gpus_.end()) return std::nullopt;
  return Reading{it->second.last, it->second.last_utilization};
}

std::optional<HeldIdleTracker::Spell> HeldIdleTracker::IdleSpell(
    const std::vector<std::pair<int, int>>& gpus, Time run_start, Time now) const {
  if (gpus.empty()) return std::nullopt;
  Spell spell{run_start, 0};
  Time latest_common = kNever;
  double sum = 0;
  int64_t count = 0;
  for (const auto& key : gpus) {
    auto it = gpus_.find(key);
    if (it == gpus_.end() || !it->second.idle) return std::nullopt;
    const GpuSpell& g = it->second;
    if (g.last < now - options_.window) return std::nullopt;  // stale: no recent reading
    spell.since = std::max(spell.since, g.idle_since);
    latest_common = std::min(latest_common, g.last);
    sum += g.sum;
    count += g.count;
  }
  if (latest_common - spell.since < options_.window) return std::nullopt;
  spell.mean_utilization = count > 0 ? sum / static_cast<double>(count) : 0;
  return spell;
}

}  // namespace squeeze
