// For tests that run real jobs through the local executor in a data directory: kills the
// process group of every run still going there, what a test (a failed one, say) left behind.
// Test-only.
#ifndef SQUEEZE_SERVE_TESTING_RUN_SWEEPER_H_
#define SQUEEZE_SERVE_TESTING_RUN_SWEEPER_H_

#include <signal.h>

#include <string>

#include "exec/local_executor.h"

namespace squeeze::testing {

inline void KillRunsLeftIn(const std::string& data_dir) {
  LocalExecutor sweeper(ExecutorOptions{data_dir, "", 5000});
  if (auto runs = sweeper.Reattach(); runs.ok()) {
    for (const RunInfo& r : *runs) {
      if (!r.exit) kill(-r.pgid, SIGKILL);
    }
  }
}

}  // namespace squeeze::testing

#endif  // SQUEEZE_SERVE_TESTING_RUN_SWEEPER_H_
