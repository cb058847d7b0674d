// The load-duration curve of a history: for each k, how long at least k GPUs were busy at
// once. The k-th GPU of a cluster sized to the demand is busy that long, so the curve says
// which GPUs are worth owning or reserving and which are better rented by the hour. Pure.
#ifndef SQUEEZE_ADVISE_LOAD_CURVE_H_
#define SQUEEZE_ADVISE_LOAD_CURVE_H_

#include <map>
#include <string>
#include <vector>

#include "advise/history.h"
#include "core/types.h"

namespace squeeze {

struct LoadDurationCurve {
  Time begin = 0;  // the first start
  Time end = 0;    // the last end
  // busy_s[k - 1]: seconds during which at least k GPUs were busy; non-increasing.
  std::vector<double> busy_s;
  double gpu_seconds = 0;  // the area under the demand

  int Peak() const { return static_cast<int>(busy_s.size()); }
  Time Span() const { return end - begin; }
  // u_k: the fraction of the span the k-th GPU is busy (k from 1; 0 beyond the peak).
  double Fraction(int k) const;
};

// Demand at each moment = the GPUs of the jobs between their start and end. With `covered`
// (pool -> GPUs it owns), the demand left over: a pool's jobs use its own GPUs first, and only
// what exceeds them counts (jobs of other pools, or of none, count whole).
LoadDurationCurve BuildLoadDurationCurve(const std::vector<HistoryJob>& jobs,
                                         const std::map<std::string, int>& covered = {});

}  // namespace squeeze

#endif  // SQUEEZE_ADVISE_LOAD_CURVE_H_
