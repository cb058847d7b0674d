// Which classes of jobs suit spot capacity, and at what checkpoint interval. Jobs are grouped
// by team (when the history names teams) or GPU count (1, 2-8, >8), by length (<1h, 1-12h,
// >12h), and apart when they cannot survive an interruption. A job on spot checkpoints at
// Daly's interval for its checkpoint cost and the pool's mean time between reclaims, and needs
// ExpectedRunTime (core/spot_math.h) instead of its run time. A class suits spot when the rules
// allow each of its jobs there and that expected time at the spot price costs less than its
// run time at the on-demand price. Pure.
#ifndef SQUEEZE_ADVISE_SPOT_FIT_H_
#define SQUEEZE_ADVISE_SPOT_FIT_H_

#include <string>
#include <vector>

#include "advise/history.h"
#include "core/types.h"

namespace squeeze {

struct SpotRules {
  // No job longer than this on spot unless it checkpoints at least every `long_job_checkpoint`.
  Time max_length = 12 * kHour;
  Time long_job_checkpoint = 5 * kMinute;
  // A longer checkpointable job goes all the same when squeeze may ask it for checkpoints
  // every `long_job_checkpoint`: their pauses take at most this share of its time (policy
  // spot_long_job_comply; asynchronous checkpoints pause it for their stall only).
  double long_job_comply = 0.1;
  // Fault-tolerant work prefers spot: only jobs that checkpoint go there. When false, the
  // others are costed restarting from zero at every reclaim and go when still cheaper.
  bool fault_tolerant_only = true;
  // A job's checkpoint cost when the history gives none.
  Time default_checkpoint_cost = kMinute;
};

struct SpotTerms {
  double spot_per_gpu_hour = 0;
  double on_demand_per_gpu_hour = 0;
  Time mean_reclaim_interval = 0;  // M
};

struct SpotClass {
  std::string group;   // "1 GPU", "2-8 GPUs", ">8 GPUs" or "team NAME"
  std::string length;  // "<1h", "1-12h", ">12h"
  bool fault_tolerant = true;
  int64_t jobs = 0;
  int64_t jobs_ruled_out = 0;  // jobs the rules keep off spot
  double gpu_hours = 0;           // work, GPU-hours
  double expected_gpu_hours = 0;  // on spot, reclaims and checkpoints included
  double checkpoint_cost_s = 0;   // mean over the class, GPU-hour weighted
  double interval_s = 0;          // Daly interval (or the job's own), GPU-hour weighted
  double slowdown = 0;            // expected_gpu_hours / gpu_hours
  double cost_spot = 0;           // expected_gpu_hours x spot price
  double cost_on_demand = 0;      // gpu_hours x on-demand price
  bool suits_spot = false;
  std::string reason;

  std::string Name() const;
};

std::vector<SpotClass> FitSpot(const History& history, const SpotTerms& terms,
                               const SpotRules& rules);

}  // namespace squeeze

#endif  // SQUEEZE_ADVISE_SPOT_FIT_H_
