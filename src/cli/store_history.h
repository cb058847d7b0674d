// A daemon's store (store/job_store.h) read as a job history for `squeeze advise`: its finished
// jobs with their recorded submit, start and end, and the same jobs as a trace the what-if
// simulations replay. Opens the store read-mostly; never creates one.
#ifndef SQUEEZE_CLI_STORE_HISTORY_H_
#define SQUEEZE_CLI_STORE_HISTORY_H_

#include <string>

#include "advise/history.h"
#include "core/status.h"
#include "sim/trace.h"

namespace squeeze {

struct StoreHistory {
  History history;
  Trace trace;  // submit times from the earliest submit; duration = end - start of the last run
};

// `path`: the daemon's data directory or its squeeze.db. An error when there is no store there
// or it holds no finished job that ran.
Result<StoreHistory> ReadStoreHistory(const std::string& path);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_STORE_HISTORY_H_
