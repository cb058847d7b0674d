// Placement by network topology (core/topology_spec.h; docs/policies.md, "Blocks and racks"):
// where a placement's nodes are spread, and how fast a job goes there.
#ifndef SQUEEZE_CORE_TOPOLOGY_H_
#define SQUEEZE_CORE_TOPOLOGY_H_

#include "core/cluster_state.h"
#include "core/job.h"
#include "core/status.h"
#include "core/placement.h"

namespace squeeze {

// The widest level at which the placement's nodes are in more than one domain (a node in no
// domain counts as one of its own); -1 when they are all inside one domain of every level (one
// node, or a cluster without topology).
int SpreadLevel(const ClusterState& cluster, const Placement& placement);
// How fast a job goes on the placement, relative to inside one domain: the lowest
// spread_speed of the levels it is spread at (1 when it is not).
double TopologySpeed(const ClusterState& cluster, const Placement& placement);
// A job's topology request can ever be met: its level is one of the cluster's, and a job that
// requires one domain of it fits the largest (the error names the level and the sizes).
Status CheckTopologyFits(const ClusterState& cluster, const JobSpec& spec);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_TOPOLOGY_H_
