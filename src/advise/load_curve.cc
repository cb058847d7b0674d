#include "advise/load_curve.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace squeeze {

double LoadDurationCurve::Fraction(int k) const {
  if (k < 1 || k > Peak() || Span() <= 0) return 0;
  return busy_s[k - 1] / ToSeconds(Span());
}

LoadDurationCurve BuildLoadDurationCurve(const std::vector<HistoryJob>& jobs,
                                         const std::map<std::string, int>& covered) {
  LoadDurationCurve curve;
  // Pools with GPUs of their own, by index; -1 for the rest.
  std::vector<int> capacity;
  std::map<std::string, int> index;
  for (const auto& [pool, gpus] : covered) {
    index[pool] = static_cast<int>(capacity.size());
    capacity.push_back(gpus);
  }
  std::vector<int> pool_level(capacity.size(), 0);
  // (time, GPU change, pool index or -1); ends sort before starts at the same time.
  std::vector<std::tuple<Time, int, int>> raw;
  raw.reserve(2 * jobs.size());
  for (const HistoryJob& j : jobs) {
    if (j.end <= j.start) continue;
    auto it = index.find(j.pool);
    const int p = it == index.end() ? -1 : it->second;
    raw.emplace_back(j.start, j.gpus, p);
    raw.emplace_back(j.end, -j.gpus, p);
  }
  std::sort(raw.begin(), raw.end());
  // The same as changes of the uncovered demand.
  std::vector<std::pair<Time, int>> events;
  events.reserve(raw.size());
  for (const auto& [t, change, p] : raw) {
    if (p < 0) {
      events.emplace_back(t, change);
      continue;
    }
    const int before = std::max(0, pool_level[p] - capacity[p]);
    pool_level[p] += change;
    events.emplace_back(t, std::max(0, pool_level[p] - capacity[p]) - before);
  }
  if (events.empty()) return curve;
  curve.begin = events.front().first;
  curve.end = events.back().first;
  std::vector<double> at_level;  // at_level[L]: seconds with exactly L GPUs busy
  int level = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    level += events[i].second;
    if (static_cast<int>(at_level.size()) <= level) at_level.resize(level + 1, 0);
    if (i + 1 < events.size()) {
      const double dt = ToSeconds(events[i + 1].first - events[i].first);
      at_level[level] += dt;
      curve.gpu_seconds += dt * level;
    }
  }
  while (!at_level.empty() && at_level.back() == 0) at_level.pop_back();
  const int peak = at_level.empty() ? 0 : static_cast<int>(at_level.size()) - 1;
  curve.busy_s.assign(peak, 0);
  double above = 0;
  for (int k = peak; k >= 1; --k) {
    above += at_level[k];
    curve.busy_s[k - 1] = above;
  }
  return curve;
}

}  // namespace squeeze
