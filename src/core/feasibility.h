// Whether a job's GPUs could ever be placed on the cluster, with the message a user acts on:
// the one rule that submit and update ask (through Scheduler::CheckFeasible) and the
// simulator rejects a trace's job by. Pure; reads the cluster only.
#ifndef SQUEEZE_CORE_FEASIBILITY_H_
#define SQUEEZE_CORE_FEASIBILITY_H_

#include <string>

#include "core/cycle.h"
#include "core/status.h"

namespace squeeze {

// `home_pool`: the pool the job names (-1: any). Checks, in this order: a GPU model it asks for
// alone that no node has ("asks for GPU model 'H100', which no node has; models: A100, V100");
// no node group it may use at all ("no node has its regions (mars) and GPU memory (at least
// 100000 MiB); models: ..."); more GPUs than the largest group it may use holds ("asks for 64 GPUs;
// the largest possible request is 32 GPUs (pool a100: 4 nodes x 8 A100)"), naming the pools
// that run a job on one node when they limited it. `note` is added to the last two (why spot
// and colocated pools were not counted).
Status CheckGpusFit(const CycleContext& c, const JobSpec& spec, int home_pool,
                    const std::string& note);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_FEASIBILITY_H_
