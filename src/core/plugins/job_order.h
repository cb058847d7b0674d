// Job order plugins: the key that ranks jobs. A key is taken when a job becomes pending and
// stays fixed while it waits (attained service and remaining work do not change while a job
// waits), unless the plugin learns something from a finished job (Observe), when every
// waiting job's key is taken anew. A running job's key is taken when it is compared. Dynamic
// judgements (urgency bands, deadline risk, fair share) are applied by the PendingQueue on
// top of it. Every ordering ends in (submit time, id).
#ifndef SQUEEZE_CORE_PLUGINS_JOB_ORDER_H_
#define SQUEEZE_CORE_PLUGINS_JOB_ORDER_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/job.h"
#include "core/status.h"

namespace squeeze {

class JobOrder {
 public:
  virtual ~JobOrder() = default;
  virtual std::string_view name() const = 0;
  // A copy with everything it has learned (a forecast runs on a copy of the scheduler).
  virtual std::unique_ptr<JobOrder> Clone() const = 0;
  // Smaller runs first. `now` is when the key is taken.
  virtual double Key(const Job& job, Time now) const = 0;
  // What a plugin that learns reads besides the job that ended: when it ended, and the jobs
  // that have not (each one that has run lasts at least its attained time: a censored
  // observation of its run time).
  struct Context {
    Time now = 0;
    const std::unordered_map<JobId, Job>* unfinished = nullptr;  // null: none
  };
  // Learns from a job that left the system; true when keys of waiting jobs may have changed
  // (the scheduler then takes them anew).
  virtual bool Observe(const Job& finished, const Context& context) { return false; }
  // Learns that a job stopped before its end (preempted): what it has run is a censored
  // observation the plugin may take in now, not at the next job's end. Returns as Observe.
  virtual bool ObservePreempted(const Job& stopped, const Context& context) { return false; }
  // What the plugin has learned of how much longer the job will run, if anything.
  virtual std::optional<Time> PredictRemaining(const Job& job, Time now) const {
    return std::nullopt;
  }
};

struct JobOrderOptions {
  // Attained-service thresholds (GPU-seconds) separating the LAS levels, ascending.
  std::vector<double> las_thresholds = {3600.0, 36000.0, 360000.0};
  // LAS counts attained GPU-seconds (Tiresias' 2D service); false: seconds of running time.
  bool las_gpu_weighted = true;
  // Gittins: multiply the rank by the job's GPU count (rank GPU-time, not time).
  bool gittins_gpu_weighted = false;
  // Gittins: how many recent run times of a class of jobs the model keeps.
  size_t gittins_window = 1000;
};

// fifo, sjf, las, srtf.
Result<std::unique_ptr<JobOrder>> MakeJobOrder(std::string_view name,
                                               const JobOrderOptions& options);
std::vector<std::string> JobOrderNames();

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLUGINS_JOB_ORDER_H_
