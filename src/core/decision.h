// What a scheduling cycle tells its driver to do. The scheduler has already applied the
// decision to its own state; the driver makes it happen (start a process, send a signal,
// schedule a simulated completion) and reports back through the Scheduler's calls.
#ifndef SQUEEZE_CORE_DECISION_H_
#define SQUEEZE_CORE_DECISION_H_

#include <string>

#include "core/placement.h"
#include "core/types.h"

namespace squeeze {

struct Decision {
  enum class Kind {
    kStart,  // run the job on `placement`; it resumes from its checkpoint when `resume`
    kStop,   // ask the job to checkpoint (if it can) and stop; then call Scheduler::Stopped
  };
  Kind kind = Kind::kStart;
  JobId job = 0;
  Placement placement;
  bool resume = false;
  Time overhead = 0;         // restart overhead charged to this run
  Time slice_end = kNever;   // when the scheduler will reconsider this run
  bool borrowed = false;     // runs on capacity lent by another pool or team
  // kStart: the periodic checkpoint interval asked of this run (0: the job's own, none) and
  // its speed against a dedicated GPU (below 1 on a GPU shared with inference, or when
  // periodic checkpoints take time).
  Time checkpoint_interval = 0;
  double speed = 1;
  // kStop: why ("preempted by 42", "slice end", ...); kStart: why it starts outside its home
  // region ("moved from us-east to us-west: ..."), else empty.
  std::string reason;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_DECISION_H_
