#include "core/topology.h"

#include <algorithm>

namespace squeeze {

int SpreadLevel(const ClusterState& cluster, const Placement& placement) {
  if (placement.shares.size() < 2) return -1;
  const int first = placement.shares.front().node;
  for (int l = cluster.TopologyLevels() - 1; l >= 0; --l) {
    const int d = cluster.DomainOf(l, first);
    for (const NodeShare& share : placement.shares) {
      if (share.node == first) continue;
      if (d < 0 || cluster.DomainOf(l, share.node) != d) return l;
    }
  }
  return -1;
}

double TopologySpeed(const ClusterState& cluster, const Placement& placement) {
  const int spread = SpreadLevel(cluster, placement);
  double speed = 1;
  const auto& levels = cluster.spec().topology.levels;
  for (int l = 0; l <= spread; ++l) speed = std::min(speed, levels[l].spread_speed);
  return speed;
}

Status CheckTopologyFits(const ClusterState& cluster, const JobSpec& spec) {
  const TopologySpec& t = cluster.spec().topology;
  if (Status s = CheckTopologyRequest(spec.topology, t); !s.ok()) return s;
  if (spec.topology.mode != TopologyMode::kRequired || t.empty()) return Status::Ok();
  const int level = t.LevelIndex(spec.topology.level);
  int largest = 0;
  for (const std::vector<int>& domain : cluster.Domains(level)) {
    int gpus = 0;
    for (int n : domain) gpus += cluster.node(n).gpus;
    largest = std::max(largest, gpus);
  }
  if (spec.gpus <= largest) return Status::Ok();
  return Status::Error("topology: it requires one " + spec.topology.level + " for its " +
                       std::to_string(spec.gpus) + " GPUs; the largest " + spec.topology.level +
                       " of the cluster has " + std::to_string(largest));
}

}  // namespace squeeze
