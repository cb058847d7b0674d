// What the store keeps about one job of the live queue: the request as submitted, who owns it,
// and its lifecycle (state, runs, exit, checkpoints). Plain data, returned by value.
#ifndef SQUEEZE_STORE_JOB_RECORD_H_
#define SQUEEZE_STORE_JOB_RECORD_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/job_request.h"
#include "core/types.h"

namespace squeeze {

struct StoredJob {
  JobId id = 0;
  JobRequest request;  // request.spec.id and request.spec.submit_time mirror id, submitted_at
  std::string owner;
  JobState state = JobState::kPending;
  Time submitted_at = 0;
  std::optional<Time> started_at;  // start of the current or last run
  std::optional<Time> ended_at;
  std::optional<int> exit_code;  // shell convention: 128 + signal for a job a signal ended
  int attempts = 0;              // runs started so far
  int preemptions = 0;
  std::optional<Time> last_checkpoint;
  std::string reason;     // why it is in its state ("preempted by 17", "exit 3", ...)
  // The same reason as its owner and the admins see it, with what is theirs alone (a path, the
  // command, the checkpoint marker's text); empty: the same as `reason`, which every user sees.
  std::string reason_detail;
  std::vector<int> gpus;  // GPU indices of the current or last run
  int failures = 0;       // runs that failed (counted against the job's retry limit)
  std::optional<Time> not_before;  // a retry waits until then (back-off)
  Time waited = 0;  // the waits before each run started so far, summed
  Time ran = 0;     // the ended runs' times, summed
  Time gpu_ran = 0;  // the ended runs' times each times its GPUs, summed (elastic jobs' GPU time)
  std::map<int, Time> ran_by_width;  // the ended runs' times by their GPUs (elastic jobs' widths)
  bool held = false;  // waiting, but not scheduled until released (squeeze hold)
  // When its details (command, environment, ...) were purged after the retention; the rest
  // of the row is kept for history and accounting.
  std::optional<Time> details_purged_at;
};

// One line of a job's history, append-only.
// What happened to a node (not to a job): a spot node reclaimed ("reclaim", text the unix time
// its jobs must be gone by) or back ("return").
struct NodeEvent {
  int64_t seq = 0;
  Time at = 0;
  std::string node;
  std::string kind;
  std::string text;
  bool operator==(const NodeEvent&) const = default;
};

struct JobEvent {
  int64_t seq = 0;  // store-wide order
  JobId job = 0;
  Time at = 0;
  std::string kind;  // "submit", "state", "start", "exit", "checkpoint", "preempt", ...
  std::string text;    // what every user sees
  std::string detail;  // what its owner and the admins see instead; empty: the same as text
};

// The inverse of core's JobStateName.
std::optional<JobState> ParseJobState(std::string_view name);
bool IsFinished(JobState s);  // done, failed or cancelled

}  // namespace squeeze

#endif  // SQUEEZE_STORE_JOB_RECORD_H_
