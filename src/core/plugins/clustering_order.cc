#include "core/plugins/placement_scores.h"
#include "core/plugins/scored_orders.h"

namespace squeeze {

int64_t ClusteringOrder::Score(const NodeView& node, const PodSpec& pod) const {
  return GpuClusteringScore(node, pod);
}

}  // namespace squeeze
