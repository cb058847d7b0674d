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

// Ok when every pool the trace names is in the cluster; else one error naming the missing
// pools (with their job counts), the cluster's pools, and the two fixes (--ignore-pools, or
// the pools named in the cluster file). `cluster_name` (e.g. its file) is put in the message.
Status CheckTracePools(const Trace& trace, const ClusterSpec& cluster,
                       const std::string& cluster_name);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_TRACE_POOLS_H_
