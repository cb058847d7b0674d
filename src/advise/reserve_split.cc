#include "advise/reserve_split.h"

#include <algorithm>

namespace squeeze {

ReserveSplit SplitReservedOnDemand(const LoadDurationCurve& curve, int owned_gpus,
                                   double reserved_per_gpu_month, double on_demand_per_gpu_hour) {
  ReserveSplit s;
  s.peak = curve.Peak();
  s.owned = std::max(0, owned_gpus);
  s.owned_on_curve = s.owned;
  s.reserved_per_gpu_month = reserved_per_gpu_month;
  s.on_demand_per_gpu_hour = on_demand_per_gpu_hour;
  s.break_even_hours =
      on_demand_per_gpu_hour > 0 ? reserved_per_gpu_month / on_demand_per_gpu_hour : 0;
  s.hours_per_month.reserve(s.peak);
  for (int k = 1; k <= s.peak; ++k) {
    const double hours = curve.Fraction(k) * kHoursPerMonth;
    s.hours_per_month.push_back(hours);
    if (k <= s.owned) {
      s.owned_gpu_hours += hours;
    } else if (hours >= s.break_even_hours && s.reserved == k - s.owned - 1) {
      ++s.reserved;
      s.reserved_gpu_hours += hours;
    } else {
      s.on_demand_gpu_hours += hours;
    }
  }
  const int beyond_owned = std::max(0, s.peak - s.owned);
  s.on_demand_peak = beyond_owned - s.reserved;
  s.cost_split = s.reserved * reserved_per_gpu_month + s.on_demand_gpu_hours * on_demand_per_gpu_hour;
  s.cost_all_on_demand = (s.reserved_gpu_hours + s.on_demand_gpu_hours) * on_demand_per_gpu_hour;
  s.cost_all_reserved = beyond_owned * reserved_per_gpu_month;
  return s;
}

ReserveSplit SplitPastOwnedPools(const LoadDurationCurve& all, const LoadDurationCurve& uncovered,
                                 int owned_gpus, double reserved_per_gpu_month,
                                 double on_demand_per_gpu_hour) {
  ReserveSplit s =
      SplitReservedOnDemand(uncovered, 0, reserved_per_gpu_month, on_demand_per_gpu_hour);
  s.owned = owned_gpus;
  s.owned_by_pool = true;
  const double months = ToSeconds(all.Span()) / (kHoursPerMonth * 3600);
  s.owned_gpu_hours = months > 0 ? (all.gpu_seconds - uncovered.gpu_seconds) / 3600 / months : 0;
  return s;
}

}  // namespace squeeze
