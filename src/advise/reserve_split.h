// How many GPUs to reserve rather than rent by the hour. The k-th GPU of the demand beyond the
// owned ones is busy u_k of the time (advise/load_curve.h); reserving it costs R a month,
// renting it P per hour used, so it is worth reserving iff u_k x kHoursPerMonth >= R / P (the
// break-even hours a month). The curve is non-increasing, so the reserved GPUs are the first
// ones after the owned. Pure.
#ifndef SQUEEZE_ADVISE_RESERVE_SPLIT_H_
#define SQUEEZE_ADVISE_RESERVE_SPLIT_H_

#include <vector>

#include "advise/load_curve.h"

namespace squeeze {

// Hours in a month for the advice: 365 days x 24 h / 12.
constexpr double kHoursPerMonth = 730;

struct ReserveSplit {
  int peak = 0;      // GPUs busy at the busiest moment
  int owned = 0;     // GPUs already owned
  // The first GPUs of the curve the owned ones cover: `owned`, or 0 when the curve is already
  // the demand the owned pools leave over (owned_by_pool).
  int owned_on_curve = 0;
  bool owned_by_pool = false;
  int reserved = 0;  // GPUs to reserve, after the owned ones
  int on_demand_peak = 0;  // GPUs rented at the busiest moment: peak - owned - reserved
  double reserved_per_gpu_month = 0;  // R
  double on_demand_per_gpu_hour = 0;  // P
  double break_even_hours = 0;        // R / P, per month
  // GPU-hours a month of demand served by each kind.
  double owned_gpu_hours = 0;
  double reserved_gpu_hours = 0;
  double on_demand_gpu_hours = 0;
  // Monthly cost of the demand beyond the owned GPUs.
  double cost_split = 0;           // reserved x R + on_demand_gpu_hours x P
  double cost_all_on_demand = 0;   // (reserved_gpu_hours + on_demand_gpu_hours) x P
  double cost_all_reserved = 0;    // (peak - owned) x R
  std::vector<double> hours_per_month;  // u_k x kHoursPerMonth, for k = 1..peak
};

ReserveSplit SplitReservedOnDemand(const LoadDurationCurve& curve, int owned_gpus,
                                   double reserved_per_gpu_month, double on_demand_per_gpu_hour);

// The same when each owned pool serves its own jobs first: `uncovered` is the demand they leave
// over (BuildLoadDurationCurve with the owned pools' GPUs), `all` the whole demand.
ReserveSplit SplitPastOwnedPools(const LoadDurationCurve& all, const LoadDurationCurve& uncovered,
                                 int owned_gpus, double reserved_per_gpu_month,
                                 double on_demand_per_gpu_hour);

}  // namespace squeeze

#endif  // SQUEEZE_ADVISE_RESERVE_SPLIT_H_
