#include "core/spot_math.h"

#include <algorithm>
#include <cmath>

namespace squeeze {

double YoungInterval(double checkpoint_cost, double mtbi) {
  return std::sqrt(2 * std::max(0.0, checkpoint_cost) * std::max(0.0, mtbi));
}

double DalyInterval(double checkpoint_cost, double mtbi) {
  const double c = std::max(0.0, checkpoint_cost);
  const double m = std::max(0.0, mtbi);
  if (m <= 0) return 1;
  if (c >= 2 * m) return m;
  const double t = std::sqrt(2 * c * m) * (1 + std::sqrt(c / (2 * m)) / 3 + c / (18 * m)) - c;
  return std::max(1.0, t);
}

double ExpectedRunTime(double work, double interval, double checkpoint_cost, double restart,
                       double mtbi) {
  if (work <= 0) return 0;
  const bool periodic = interval > 0 && interval < work;
  const double segment = periodic ? interval : work;
  const double cost = periodic ? std::max(0.0, checkpoint_cost) : 0.0;
  const double segments = work / segment;  // the last may be partial
  if (mtbi <= 0) return work + (periodic ? std::floor(segments) * cost : 0.0);
  const double m = mtbi;
  const double r = std::max(0.0, restart);
  // Expected time of one segment of length s (checkpoint included) with restarts.
  auto one = [&](double s) { return m * std::exp(r / m) * std::expm1(s / m); };
  const double full = std::floor(segments);
  const double rest = work - full * segment;
  return full * one(segment + cost) + (rest > 0 ? one(rest) : 0.0);
}

double ExpectedRunTimeThere(double work, double interval, double checkpoint_cost, double restart,
                            double mtbi, bool on_notice) {
  if (on_notice) return work * (1 + (restart + checkpoint_cost) / mtbi);
  return ExpectedRunTime(work, interval, checkpoint_cost, restart, mtbi);
}

double ExpectedRunTimeAsync(double work, double interval, double pause, double save,
                            double restart, double mtbi) {
  return ExpectedRunTime(work, interval, pause, restart + std::max(0.0, save - pause), mtbi);
}

bool CheckpointsAffordable(double pause, double interval, double max_share) {
  return interval > 0 && pause <= max_share * (interval + pause);
}

double ExpectedRunTimeOf(const JobSpec& spec, double work, double interval, double mtbi,
                         bool on_notice) {
  const double restart = ToSeconds(RestartOverhead(spec));
  if (on_notice) {
    return ExpectedRunTimeThere(work, interval, ToSeconds(spec.checkpoint_cost), restart, mtbi,
                                true);
  }
  return ExpectedRunTimeAsync(work, interval, ToSeconds(PeriodicCheckpointStall(spec)),
                              ToSeconds(spec.checkpoint_cost), restart, mtbi);
}

Time DalyIntervalOf(const JobSpec& spec, double mtbi) {
  // Whole seconds, at least 60.
  const double seconds = DalyInterval(ToSeconds(PeriodicCheckpointStall(spec)), mtbi);
  return Seconds(std::max<int64_t>(60, static_cast<int64_t>(seconds)));
}

}  // namespace squeeze
