// Why each waiting job waits, in one word as Slurm's REASON codes say it (squeue's
// NODELIST(REASON) column): the short answer the queue shows for every waiting job, where
// `squeeze why` gives the long one. Pure; computed in one pass over the queue.
#ifndef SQUEEZE_CORE_WAIT_REASONS_H_
#define SQUEEZE_CORE_WAIT_REASONS_H_

#include <string_view>
#include <utility>
#include <vector>

#include "core/types.h"

namespace squeeze {

class Scheduler;

enum class WaitReason : uint8_t {
  kResources,    // first in line for the GPUs it may use; they are not free
  kPriority,     // jobs ahead of it wait for the same GPUs
  kReservation,  // enough GPUs are free, but a reservation of a job ahead holds them
  kQuotaLimit,   // its team has used its quota of its home pool
  kArrayLimit,   // its array has as many tasks running or queued as its limit (%N)
};
std::string_view WaitReasonName(WaitReason r);  // "Resources", "Priority", ...

// The reason of every job the scheduler holds waiting, in queue order, then the array tasks
// parked at their array's limit.
std::vector<std::pair<JobId, WaitReason>> WaitReasons(const Scheduler& scheduler);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_WAIT_REASONS_H_
