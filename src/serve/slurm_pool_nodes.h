// squeeze serve's Slurm pools: the nodes of a pool the cluster file lists without nodes, as
// `sinfo --json` reports them, and every Slurm pool's switches from `scontrol show topology`
// when the file gives no topology of its own.
#ifndef SQUEEZE_SERVE_SLURM_POOL_NODES_H_
#define SQUEEZE_SERVE_SLURM_POOL_NODES_H_

#include <functional>
#include <string>

#include "core/cluster_spec.h"
#include "core/status.h"

namespace squeeze {

using SayFn = std::function<void(const std::string&)>;

// Adds them to `spec` (what is left out, and why, is said through `say`); then validates it.
Status AddSlurmInventory(ClusterSpec& spec, const SayFn& say);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_SLURM_POOL_NODES_H_
