#include "core/cluster_spec.h"

#include <algorithm>
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
    if (p.monthly_cost < 0) {
      return Status::Error("cluster: pool '" + p.name + "': monthly_cost " +
                           std::to_string(p.monthly_cost) + " is negative");
    }
    if (p.backend != "local" && p.backend != "slurm") {
      return Status::Error("cluster: pool '" + p.name + "': backend '" + p.backend +
                           "' is not local or slurm");
    }
    if (p.backend == "slurm" && p.slurm.conf.empty()) {
      return Status::Error("cluster: pool '" + p.name +
                           "': backend slurm needs slurm.conf (the path of its slurm.conf)");
    }
    if (p.backend != "slurm" && (!p.slurm.conf.empty() || !p.slurm.cluster.empty() ||
                                 !p.slurm.partition.empty() || !p.slurm.user.empty())) {
      return Status::Error("cluster: pool '" + p.name + "': a slurm map needs backend: slurm");
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
  // A Slurm pool may leave its nodes to `sinfo` (squeeze serve asks its cluster).
  const bool asks_slurm = std::any_of(pools.begin(), pools.end(), [](const PoolSpec& p) {
    return p.backend == "slurm";
  });
  if (nodes.empty() && !asks_slurm) return Status::Error("cluster: no nodes");
  std::set<std::string> regions;
  for (const auto& p : pools) regions.insert(p.region);
  std::set<std::pair<std::string, std::string>> linked;
  for (const RegionLink& l : region_links) {
    const std::string what = "cluster: region link " + l.from + " - " + l.to;
    for (const std::string& r : {l.from, l.to}) {
      if (!regions.count(r)) return Status::Error(what + ": no pool is in region '" + r + "'");
    }
    if (l.from == l.to) return Status::Error(what + ": links two different regions");
    if (!(l.bandwidth_gbps > 0)) return Status::Error(what + ": bandwidth_gbps must be more than 0");
    if (l.price_per_gb < 0) return Status::Error(what + ": price_per_gb is negative");
    if (!linked.insert(std::minmax(l.from, l.to)).second) {
      return Status::Error(what + ": given twice (a link goes both ways)");
    }
  }
  return Status::Ok();
}

const RegionLink* ClusterSpec::LinkBetween(const std::string& a, const std::string& b) const {
  for (const RegionLink& l : region_links) {
    if ((l.from == a && l.to == b) || (l.from == b && l.to == a)) return &l;
  }
  return nullptr;
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
