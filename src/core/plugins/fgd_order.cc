#include "core/plugins/placement_scores.h"
#include "core/plugins/scored_orders.h"

namespace squeeze {

void FgdOrder::SetWorkloadHistory(const std::vector<PodSpec>& pods) {
  calculator_ = FragmentationCalculator(TargetWorkload(pods));
  target_given_ = true;
  ForgetScores();
}

void FgdOrder::ObserveArrival(const JobSpec& job, const ClusterState&) {
  if (target_given_) return;
  if (!recent_.Add(PodOf(job))) return;
  calculator_ = FragmentationCalculator(TargetWorkload(recent_.shapes()));
  ForgetScores();
}

int64_t FgdOrder::Score(const NodeView& node, const PodSpec& pod) const {
  return FgdScore(node, pod, calculator_).score;
}

std::vector<int> FgdOrder::Gpus(const NodeView& node, const PodSpec& pod) const {
  return FgdScore(node, pod, calculator_).gpus;
}

}  // namespace squeeze
