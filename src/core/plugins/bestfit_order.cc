#include "core/plugins/placement_scores.h"
#include "core/plugins/scored_orders.h"

namespace squeeze {

int64_t BestFitScoreOrder::Score(const NodeView& node, const PodSpec& pod) const {
  return BestFitRawScore(node, pod);
}

}  // namespace squeeze
