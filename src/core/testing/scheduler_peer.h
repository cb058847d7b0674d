// A core test's way to the engine state a Scheduler keeps to itself (to open a Statement on
// it, or compare it with StateText). Test-only and header-only.
#ifndef SQUEEZE_CORE_TESTING_SCHEDULER_PEER_H_
#define SQUEEZE_CORE_TESTING_SCHEDULER_PEER_H_

#include "core/engine_state.h"
#include "core/scheduler.h"

namespace squeeze::testing {

class SchedulerPeer {
 public:
  static EngineState& State(Scheduler& s) { return *s.state_; }
};

}  // namespace squeeze::testing

#endif  // SQUEEZE_CORE_TESTING_SCHEDULER_PEER_H_
