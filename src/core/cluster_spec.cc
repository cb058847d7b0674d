#include "core/cluster_spec.h"

#include <algorithm>
#include <set>

namespace squeeze {

namespace {

// The spot and colocation settings are sane (the cluster file's reader refuses a map given to a
// pool of another kind; other pools ignore them).
Status ValidateCapacitySettings(const PoolSpec& p) {
  const std::string what = "cluster: pool '" + p.name + "': ";
  if (p.spot.warning < 0 || p.spot.mean_reclaim_interval < 0 || p.spot.outage < 0) {
    return Status::Error(what + "spot: durations must not be negative");
  }
  if (!(p.colocation.cap > 0 && p.colocation.cap <= 1)) {
    return Status::Error(what + "colocation.cap " + std::to_string(p.colocation.cap) +
                         " is not in (0, 1]");
  }
  if (!(p.colocation.training_speed >= 0 && p.colocation.training_speed <= 1)) {
    return Status::Error(what + "colocation.training_speed " +
                         std::to_string(p.colocation.training_speed) + " is not in (0, 1]");
  }
  if (p.colocation.evict_within < 0) {
    return Status::Error(what + "colocation.evict_within must not be negative");
  }
  return Status::Ok();
}

}  // namespace

namespace {

// One pool's own settings (its name was checked).
Status ValidatePool(const PoolSpec& p) {
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
  if (Status st = ValidateCapacitySettings(p); !st.ok()) return st;
  for (const auto& [team, q] : p.team_quota_gpus) {
    if (q < 0) {
      return Status::Error("cluster: pool '" + p.name + "': quota of team '" + team + "' is " +
                           std::to_string(q));
    }
  }
  return Status::Ok();
}

// One node's settings, against the pools defined.
Status ValidateNode(const NodeSpec& n, const std::set<std::string>& pool_names) {
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
  return Status::Ok();
}

// The GPU models' table: speeds in (0, 1000], memory not negative.
Status ValidateGpuModels(const ClusterSpec& c) {
  for (const auto& [model, m] : c.gpu_models) {
    const std::string what = "cluster: gpu_models: " + model + ": ";
    if (model.empty()) return Status::Error("cluster: gpu_models: a model has an empty name");
    if (!(m.speed > 0 && m.speed <= 1000)) {
      return Status::Error(what + "speed " + std::to_string(m.speed) + " is not in (0, 1000]");
    }
    if (m.memory_mib < 0) {
      return Status::Error(what + "memory_mib " + std::to_string(m.memory_mib) + " is negative");
    }
  }
  return Status::Ok();
}

// The region links and price factors name regions some pool is in.
Status ValidateRegions(const ClusterSpec& c) {
  std::set<std::string> regions;
  for (const auto& p : c.pools) regions.insert(p.region);
  std::set<std::pair<std::string, std::string>> linked;
  for (const RegionLink& l : c.region_links) {
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
  for (const auto& [region, factor] : c.region_price_factors) {
    if (!regions.count(region)) {
      return Status::Error("cluster: region_price_factors: no pool is in region '" + region + "'");
    }
    if (!(factor > 0)) {
      return Status::Error("cluster: region_price_factors: " + region + ": factor " +
                           std::to_string(factor) + " must be more than 0");
    }
  }
  return Status::Ok();
}

}  // namespace

Status ClusterSpec::Validate() const {
  if (pools.empty()) return Status::Error("cluster: no pools");
  std::set<std::string> pool_names;
  for (const auto& p : pools) {
    if (p.name.empty()) return Status::Error("cluster: a pool has an empty name");
    if (!pool_names.insert(p.name).second) {
      return Status::Error("cluster: pool '" + p.name + "' is defined twice");
    }
    if (Status st = ValidatePool(p); !st.ok()) return st;
  }
  std::set<std::string> node_names;
  for (const auto& n : nodes) {
    if (n.name.empty()) return Status::Error("cluster: a node has an empty name");
    if (!node_names.insert(n.name).second) {
      return Status::Error("cluster: node '" + n.name + "' is defined twice");
    }
    if (Status st = ValidateNode(n, pool_names); !st.ok()) return st;
  }
  // A Slurm pool may leave its nodes to `sinfo` (squeeze serve asks its cluster).
  const bool asks_slurm = std::any_of(pools.begin(), pools.end(), [](const PoolSpec& p) {
    return p.backend == "slurm";
  });
  if (nodes.empty() && !asks_slurm) return Status::Error("cluster: no nodes");
  if (Status st = ValidateGpuModels(*this); !st.ok()) return st;
  if (Status st = ValidateTopology(*this); !st.ok()) return st;
  return ValidateRegions(*this);
}

double ClusterSpec::PricePerGpuHour(int pool) const {
  const PoolSpec& p = pools.at(pool);
  const auto it = region_price_factors.find(p.region);
  return p.price_per_gpu_hour * (it == region_price_factors.end() ? 1.0 : it->second);
}

double ClusterSpec::ModelSpeed(const std::string& model) const {
  const auto it = gpu_models.find(model);
  return it == gpu_models.end() ? 1.0 : it->second.speed;
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
