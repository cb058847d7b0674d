#include "core/idle_forecast.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace squeeze {

void RecordOpenPeriod(EngineState& s, int64_t key, Time from, Time to) {
  if (to <= from) return;
  auto& periods = s.open_history[key];
  periods.emplace_back(from, to);
  const Time horizon = to - (kIdleHistoryWeeks + 1) * kWeek;
  auto stale = std::find_if(periods.begin(), periods.end(),
                            [&](const auto& p) { return p.second >= horizon; });
  periods.erase(periods.begin(), stale);
}

std::optional<Time> PredictedOpenFor(const EngineState& s, int64_t key, Time now, double share) {
  const auto open = s.in_service_since.find(key);
  const auto known = s.load_known_since.find(key);
  if (open == s.in_service_since.end() || known == s.load_known_since.end()) return std::nullopt;
  static const std::vector<std::pair<Time, Time>> kNone;
  const auto history = s.open_history.find(key);
  const auto& periods = history == s.open_history.end() ? kNone : history->second;
  std::vector<Time> lasted;  // per past week: how long it stayed open from the same moment
  for (int week = 1; week <= kIdleHistoryWeeks; ++week) {
    const Time then = now - week * kWeek;
    if (then < known->second) break;
    Time left = 0;
    if (open->second <= then) {
      left = now - then;  // open ever since: at least until now
    } else {
      // The period holding `then`: the last one that started at or before it.
      auto it = std::upper_bound(periods.begin(), periods.end(), then,
                                 [](Time t, const auto& p) { return t < p.first; });
      if (it != periods.begin() && std::prev(it)->second > then) left = std::prev(it)->second - then;
    }
    lasted.push_back(left);
  }
  if (lasted.size() < 2) return std::nullopt;
  std::sort(lasted.begin(), lasted.end());
  // At least ceil(share * n) weeks lasted this long or longer.
  const size_t need = static_cast<size_t>(std::ceil(share * static_cast<double>(lasted.size()) - 1e-9));
  return lasted[lasted.size() - std::max<size_t>(1, need)];
}

}  // namespace squeeze
