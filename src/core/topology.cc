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

}  // namespace squeeze
