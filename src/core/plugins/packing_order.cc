#include "core/plugins/placement_scores.h"
#include "core/plugins/scored_orders.h"

namespace squeeze {

int64_t PackingOrder::Score(const NodeView& node, const PodSpec& pod) const {
  return GpuPackingScore(node, pod);
}

}  // namespace squeeze
