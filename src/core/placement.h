// Where a job runs: for each node it uses, which GPUs and how much of each.
#ifndef SQUEEZE_CORE_PLACEMENT_H_
#define SQUEEZE_CORE_PLACEMENT_H_

#include <cstdint>
#include <vector>

namespace squeeze {

struct NodeShare {
  int node = -1;              // index into the cluster's nodes
  std::vector<int> gpus;      // GPU indices on that node
  int milli_per_gpu = 1000;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
};

struct Placement {
  std::vector<NodeShare> shares;
  bool empty() const { return shares.empty(); }
  int GpuCount() const {
    int n = 0;
    for (const auto& s : shares) n += static_cast<int>(s.gpus.size());
    return n;
  }
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLACEMENT_H_
