// Whether a trace's jobs find their home pools in a cluster: checked before a replay, so that a
// cluster file whose pools are not the trace's is refused at once instead of rejecting every
// job one by one. Pure; plain data.
#ifndef SQUEEZE_SIM_TRACE_POOLS_H_
#define SQUEEZE_SIM_TRACE_POOLS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "core/status.h"
#include "sim/trace.h"

namespace squeeze {

// A pool the trace's jobs name that the cluster does not have, and how many jobs name it.
struct MissingPool {
  std::string name;
  int64_t jobs = 0;
};

// The pools named by the trace's jobs and absent from the cluster, most jobs first (ties by
// name). Jobs of no pool (an empty pool) may run anywhere and are never missing.
std::vector<MissingPool> PoolsMissingFrom(const Trace& trace, const ClusterSpec& cluster);

// An error when every job of the trace names a pool the cluster does not have (nothing could
// run): one message naming those pools (with their job counts), the cluster's pools, and the
// two fixes (--ignore-pools, or the pools named in the cluster file). Ok otherwise, also when
// only some jobs' pools are missing (a replay of some pools' jobs: the others are rejected).
// `cluster_name` (e.g. its file) is put in the message.
Status CheckTracePools(const Trace& trace, const ClusterSpec& cluster,
                       const std::string& cluster_name);

// When only some jobs name pools the cluster lacks: a note naming those pools, how many jobs
// that rejects and the fix; "" when none does (or all do: CheckTracePools refuses that).
std::string MissingPoolsNote(const Trace& trace, const ClusterSpec& cluster,
                             const std::string& cluster_name);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_TRACE_POOLS_H_
