// Which GPUs have stayed nearly unused, from the utilization readings telemetry reports: for
// each GPU only its current spell below the threshold (when it began, the sum and count of its
// readings, the latest reading's time), so the state is one small entry per GPU reported.
// Pure (time is passed in); not thread-safe (LiveQueue holds it under its lock).
#ifndef SQUEEZE_SERVE_HELD_IDLE_TRACKER_H_
#define SQUEEZE_SERVE_HELD_IDLE_TRACKER_H_

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/types.h"

namespace squeeze {

struct HeldIdleOptions {
  double threshold = 0.10;  // a GPU below this utilization (0..1) counts as idle
  Time window = 30 * kMinute;  // ... when it stays so for at least this long
};

class HeldIdleTracker {
 public:
  explicit HeldIdleTracker(HeldIdleOptions options) : options_(options) {}

  // GPU `gpu` of node index `node` was `utilization` busy at `time`. A reading older than the
  // GPU's latest one is ignored (it is still stored; the spell follows the newest readings).
  void Record(int node, int gpu, Time time, double utilization);

  struct Spell {
    Time since = 0;               // when the last of the GPUs became idle (or the run began)
    double mean_utilization = 0;  // over the readings of the GPUs' idle spells
  };
  // The idle spell of a run on `gpus` ((node, gpu) pairs) that began at `run_start`: every GPU
  // below the threshold from `since` on, read again at least `window` after `since` and within
  // the last `window` before `now`. nullopt when any GPU is busy, unreported or stale.
  std::optional<Spell> IdleSpell(const std::vector<std::pair<int, int>>& gpus, Time run_start,
                                 Time now) const;

  struct Reading {
    Time time = 0;
    double utilization = 0;
  };
  // The newest reading of a GPU; nullopt when it was never reported.
  std::optional<Reading> Latest(int node, int gpu) const;

  const HeldIdleOptions& options() const { return options_; }
  size_t gpus_tracked() const { return gpus_.size(); }

 private:
  struct GpuSpell {
    bool idle = false;
    Time idle_since = 0;
    Time last = 0;
    double sum = 0;
    int64_t count = 0;
    double last_utilization = 0;
  };

  HeldIdleOptions options_;
  std::map<std::pair<int, int>, GpuSpell> gpus_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_HELD_IDLE_TRACKER_H_
