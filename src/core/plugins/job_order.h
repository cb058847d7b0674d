// Job order plugins: the key that ranks pending jobs. A key is computed when a job becomes
// pending and stays fixed while it waits (attained service and remaining work do not change
// while a job waits); dynamic judgements (urgency bands, deadline risk, fair share) are applied
// by the PendingQueue on top of it. Every ordering ends in (submit time, id).
#ifndef SQUEEZE_CORE_PLUGINS_JOB_ORDER_H_
#define SQUEEZE_CORE_PLUGINS_JOB_ORDER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"
#include "core/status.h"

namespace squeeze {

class JobOrder {
 public:
  virtual ~JobOrder() = default;
  virtual std::string_view name() const = 0;
  // Smaller runs first. `now` is when the key is taken.
  virtual double Key(const Job& job, Time now) const = 0;
};

struct JobOrderOptions {
  // Attained-service thresholds (GPU-seconds) separating the LAS levels, ascending.
  std::vector<double> las_thresholds = {3600.0, 36000.0, 360000.0};
  // LAS counts attained GPU-seconds (Tiresias' 2D service); false: seconds of running time.
  bool las_gpu_weighted = true;
};

// fifo, sjf, las, srtf.
Result<std::unique_ptr<JobOrder>> MakeJobOrder(std::string_view name,
                                               const JobOrderOptions& options);
std::vector<std::string> JobOrderNames();

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLUGINS_JOB_ORDER_H_
