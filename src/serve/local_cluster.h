// The cluster `squeeze serve` schedules on this machine: the GPUs it found (or was told to
// pretend, --virtual-gpus) as nodes of pools, and which CUDA index each node GPU is. Without a
// config file, one pool "local" with one node per GPU model (named after the host). With one
// (the cluster file the simulator reads, docs/cluster-file.md), the GPUs are handed out in
// order to the nodes of its `backend: local` pools, which must not declare more GPUs than the
// machine has; the nodes of its `backend: slurm` pools keep the GPUs the file (or sinfo) gives
// them, numbered from kRemoteSlotBase. Plain data and pure functions; thread-safe.
#ifndef SQUEEZE_SERVE_LOCAL_CLUSTER_H_
#define SQUEEZE_SERVE_LOCAL_CLUSTER_H_

#include <optional>
#include <string>
#include <vector>

#include "exec/local_run_env.h"  // ShortHostName, the `host` callers give
#include "core/cluster_spec.h"
#include "core/placement.h"
#include "core/status.h"
#include "exec/gpu_discovery.h"

namespace squeeze {

// The GPUs of nodes that a cluster manager runs (pools of backend slurm) have no CUDA index
// here; they are numbered from this base so that a run's GPUs can be stored and found again.
constexpr int kRemoteSlotBase = 100000;

struct LocalGpu {
  int node = 0;          // index into the cluster's nodes
  int gpu_on_node = 0;   // the scheduler's GPU index on that node
  GpuDevice device;      // index = CUDA_VISIBLE_DEVICES's number (kRemoteSlotBase.. elsewhere)
};

struct LocalCluster {
  ClusterSpec spec;
  std::vector<LocalGpu> gpus;  // every schedulable GPU
  std::string source;          // "nvml", "nvidia-smi", "virtual" or "none"

  // The CUDA indices of a placement's GPUs, in the placement's order (slots for remote nodes).
  std::vector<int> CudaIndices(const Placement& placement) const;
  // The placement that holds these CUDA indices, each `milli` of a GPU; nullopt when an index
  // is not one of this cluster's GPUs (the machine changed since the job started).
  std::optional<Placement> PlacementOf(const std::vector<int>& cuda_indices, int milli) const;
  // The names of the nodes that hold these CUDA indices (or remote slots), each once, in the
  // order they first appear; an index of no GPU is skipped.
  std::vector<std::string> NodeNamesOf(const std::vector<int>& cuda_indices) const;
  // The GPU at (node, gpu_on_node), or nullptr.
  const LocalGpu* Find(int node, int gpu_on_node) const;
};

// `config`: a loaded cluster file, or nullopt for the default. `host`: the node name to use.
// Errors: no GPU at all, or the config's local nodes need more GPUs than were found.
Result<LocalCluster> BuildLocalCluster(const GpuInventory& found,
                                       const std::optional<ClusterSpec>& config,
                                       const std::string& host);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_LOCAL_CLUSTER_H_
