#include "core/cluster_spec.h"

#include <set>

namespace squeeze {

Status ClusterSpec::Validate() const {
  if (pools.empty()) return Status::Error("cluster: no pools");
  std::set<std::string> pool_names;
  for (const auto& p : pools) {
    if (p.name.empty()) return Status::Error("cluster: a pool has an empty name");
    if (!pool_names.insert(p.name).second) {
      return Status::Error("cluster: pool '" + p.name + "' is defined twice");
    }
    if (p.price_per_gpu_hour < 0) {
      return Status::Error("cluster: pool '" + p.name + "': price_per_gpu_hour " +
                           std::to_string(p.price_per_gpu_hour) + " is negative");
    }
    for (const auto& [team, q] : p.team_quota_gpus) {
      if (q < 0) {
        return Status::Error("cluster: pool '" + p.name + "': quota of team '" + team + "' is " +
                             std::to_string(q));
      }
    }
  }
  std::set<std::string> node_names;
  for (const auto& n : nodes) {
    if (n.name.empty()) return Status::Error("cluster: a node has an empty name");
    if (!node_names.insert(n.name).second) {
      return Status::Error("cluster: node '" + n.name + "' is defined twice");
    }
    if (!pool_names.count(n.pool)) {
      return Status::Error("cluster: node '" + n.name + "': pool '" + n.pool + "' is not defined");
    }
    if (n.gpus < 0 || n.gpus > 64) {
      return Status::Error("cluster: node '" + n.name + "': gpus " + std::to_string(n.gpus) +
                           " is out of range 0..64");
    }
    if (n.cpu_milli < 0 || n.memory_mib < 0 || n.gpu_memory_mib < 0) {
      return Status::Error("cluster: node '" + n.name + "': negative cpu or memory");
    }
  }
  if (nodes.empty()) return Status::Error("cluster: no nodes");
  return Status::Ok();
}

int ClusterSpec::TotalGpus() const {
  int total = 0;
  for (const auto& n : nodes) total += n.gpus;
  return total;
}

int ClusterSpec::PoolIndex(const std::string& name) const {
  for (size_t i = 0; i < pools.size(); ++i) {
    if (pools[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace squeeze
