// Whether a job could ever run on a cluster, checked when it is submitted so that an impossible
// request is refused at once with the largest request that could run, instead of waiting
// forever. Looks only at the ClusterSpec (capacity, not what is free now). Pure; thread-safe.
#ifndef SQUEEZE_CONFIG_JOB_FEASIBILITY_H_
#define SQUEEZE_CONFIG_JOB_FEASIBILITY_H_

#include "core/cluster_spec.h"
#include "core/job.h"
#include "core/status.h"

namespace squeeze {

// Ok when some group of nodes of one pool and one GPU model (the unit the scheduler places a
// gang in) could hold the job: its pool, regions, GPU models and GPU memory allowed, enough
// GPUs (on one node for a fraction of a GPU), and, for a job on one node, CPU and memory where
// nodes track them. Otherwise an error such as "asks for 64 GPUs; the largest possible request
// is 32 GPUs (pool a100: 4 nodes x 8 A100)".
Status CheckFitsCluster(const JobSpec& spec, const ClusterSpec& cluster);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_JOB_FEASIBILITY_H_
