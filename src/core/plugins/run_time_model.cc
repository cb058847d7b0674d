#include "core/plugins/run_time_model.h"

#include <algorithm>
#include <cmath>

namespace squeeze {
namespace {

constexpr size_t kMaxEndPoints = 128;  // candidate end points tried per grid point

}  // namespace

void RunTimeModel::Observe(Time run_time, Time end, size_t window) {
  ended_.push_back({run_time, end});
  const double t = ToSeconds(run_time);
  ended_sorted_.insert(std::upper_bound(ended_sorted_.begin(), ended_sorted_.end(), t), t);
  while (ended_.size() > window) {
    const double old = ToSeconds(ended_.front().run_time);
    ended_sorted_.erase(std::lower_bound(ended_sorted_.begin(), ended_sorted_.end(), old));
    watched_from_ = ended_.front().end;
    ended_.pop_front();
  }
}

void RunTimeModel::Estimate(std::vector<Unfinished> unfinished) {
  // Once the window is full, a job is watched from the attained time it had when the window
  // began (each taken to have run without a break up to when it last ran). An unfinished job
  // that last ran before then was not watched: it says nothing the window saw.
  auto entry = [&](double exit, Time at) {
    return std::max(0.0, exit - ToSeconds(std::max<Time>(0, at - *watched_from_)));
  };
  std::erase_if(unfinished, [&](const Unfinished& u) {
    return u.attained <= 0 || (watched_from_ && u.at <= *watched_from_);
  });
  std::vector<double> running;
  running.reserve(unfinished.size());
  for (const Unfinished& u : unfinished) running.push_back(u.attained);
  std::sort(running.begin(), running.end());
  // Until the window is full every job is watched from 0 (no entries to sort).
  std::vector<double> entries;
  if (watched_from_) {
    entries.reserve(ended_.size() + unfinished.size());
    for (const Ended& e : ended_) entries.push_back(entry(ToSeconds(e.run_time), e.end));
    for (const Unfinished& u : unfinished) entries.push_back(entry(u.attained, u.at));
    std::sort(entries.begin(), entries.end());
  }

  points_.clear();
  masses_.clear();
  double survival = 1;
  // The ended and the running in order of exit, the ended first at a tie.
  const std::vector<double>& ended = ended_sorted_;
  size_t ei = 0, ri = 0, gone = 0;
  double last = 0;
  while (ei < ended.size() || ri < running.size()) {
    const double t = ri == running.size() || (ei < ended.size() && ended[ei] <= running[ri])
                         ? ended[ei]
                         : running[ri];
    size_t d = 0, c = 0;
    while (ei < ended.size() && ended[ei] == t) ++ei, ++d;
    while (ri < running.size() && running[ri] == t) ++ri, ++c;
    // At risk at t: watched by t and not gone before t (every job ending at t is).
    const size_t watched =
        watched_from_ ? std::upper_bound(entries.begin(), entries.end(), t) - entries.begin()
                      : ended.size() + running.size();
    if (d > 0) {
      const double at_risk = static_cast<double>(watched - gone);
      const double mass = survival * static_cast<double>(d) / at_risk;
      survival -= mass;
      points_.push_back(t);
      masses_.push_back(mass);
    }
    gone += d + c;
    last = t;
  }
  // The longest jobs have not ended: what is left ends at the last observation (Efron).
  if (gone > 0 && survival > 1e-12) {
    if (points_.empty() || points_.back() != last) {
      points_.push_back(last);
      masses_.push_back(0);
    }
    masses_.back() += survival;
  }
}

void RunTimeModel::Rebuild(const std::vector<double>& grid, std::vector<Unfinished> unfinished) {
  Estimate(std::move(unfinished));
  const std::vector<double>& v = points_;
  const size_t n = v.size();
  std::vector<double>& mass = cumulative_;  // prefix sums of mass, and of mass x time
  mass.assign(n + 1, 0);
  std::vector<double> work(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    mass[i + 1] = mass[i] + masses_[i];
    work[i + 1] = work[i] + masses_[i] * v[i];
  }
  table_.assign(grid.size(), 0);
  for (size_t gi = 0; gi < grid.size(); ++gi) {
    const double a = grid[gi];
    const size_t i0 = std::upper_bound(v.begin(), v.end(), a) - v.begin();
    if (i0 == n) {
      // Outlived every observation: nothing says when it ends; rank it by what it attained.
      table_[gi] = std::max(a, n ? v.back() : 1.0);
      continue;
    }
    const double left = mass[n] - mass[i0];
    double best = HUGE_VAL;
    const size_t step = std::max<size_t>(1, (n - i0) / kMaxEndPoints);
    for (size_t k = i0; k < n; k += step) {
      // Run until the k-th point: the expected seconds spent per unit of chance to end.
      const double done = mass[k + 1] - mass[i0];
      const double spent = (work[k + 1] - work[i0]) - done * a + (left - done) * (v[k] - a);
      best = std::min(best, spent / done);
    }
    table_[gi] = std::max(best, 1.0);
  }
}

double RunTimeModel::Rank(double attained, const std::vector<double>& grid) const {
  if (table_.empty()) return 0;
  const size_t i = std::upper_bound(grid.begin(), grid.end(), attained) - grid.begin();
  return table_[i == 0 ? 0 : i - 1];
}

std::optional<double> RunTimeModel::MedianRemaining(double attained) const {
  const size_t i0 = std::upper_bound(points_.begin(), points_.end(), attained) - points_.begin();
  if (i0 == points_.size()) return std::nullopt;
  // The upper median: the first point by which more than half of what is left has ended.
  const double before = cumulative_[i0];
  const double half = before + (cumulative_.back() - before) * (0.5 + 1e-9);
  const size_t k = std::upper_bound(cumulative_.begin() + i0 + 1, cumulative_.end(), half) -
                   cumulative_.begin();
  return points_[std::min(k, points_.size()) - 1] - attained;
}

}  // namespace squeeze
