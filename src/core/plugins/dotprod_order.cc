#include "core/plugins/placement_scores.h"
#include "core/plugins/scored_orders.h"

namespace squeeze {

int64_t DotProdOrder::Score(const NodeView& node, const PodSpec& pod) const {
  return DotProdScore(node, pod);
}

}  // namespace squeeze
