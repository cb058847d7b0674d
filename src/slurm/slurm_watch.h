// SlurmWatch keeps the latest look at one Slurm cluster: its nodes (`sinfo --json`) and its
// jobs (`squeue --json`), or that its controller does not answer and since when. With an
// interval it looks on a thread of its own, so a controller that is down (each Slurm command
// then takes ~9 s to fail) never holds up the daemon; without one, Look() looks at once.
// Thread-safe: the thread writes the latest look, any thread reads it.
#ifndef SQUEEZE_SLURM_SLURM_WATCH_H_
#define SQUEEZE_SLURM_SLURM_WATCH_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/types.h"
#include "slurm/slurm_output.h"

namespace squeeze {

struct SlurmLook {
  int64_t seq = 0;              // 1, 2, ... one per look
  int64_t began_ms = 0;         // steady clock (ms) when squeue was started
  Time at = 0;                  // wall clock when the look ended
  bool reachable = false;       // both commands answered and their output parsed
  std::string error;            // why not
  std::optional<Time> unreachable_since;  // first look of the current outage
  std::vector<SlurmNode> nodes;
  std::vector<SlurmJob> jobs;
};

struct SlurmWatchOptions {
  std::string cluster;   // for messages
  std::string conf;      // SLURM_CONF; empty = Slurm's default
  int timeout_ms = 8000; // each command's limit
  int interval_ms = 0;   // 0: no thread, Look() looks synchronously
};

class SlurmWatch {
 public:
  explicit SlurmWatch(SlurmWatchOptions options);
  ~SlurmWatch();  // stops the thread
  SlurmWatch(const SlurmWatch&) = delete;
  SlurmWatch& operator=(const SlurmWatch&) = delete;

  // The latest look; the first call (or every call, without an interval) looks now.
  std::shared_ptr<const SlurmLook> Look();
  // The latest look without ever looking; nullptr before the first.
  std::shared_ptr<const SlurmLook> Latest() const;
  // Steady clock in ms, as SlurmLook::began_ms counts it.
  static int64_t SteadyMs();

 private:
  std::shared_ptr<const SlurmLook> LookNow();
  void Loop();

  const SlurmWatchOptions options_;
  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::shared_ptr<const SlurmLook> latest_;
  std::mutex look_mu_;  // one look at a time
  std::thread thread_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SLURM_SLURM_WATCH_H_
