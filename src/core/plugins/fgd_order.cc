#include "core/plugins/placement_scores.h"
#include "core/plugins/scored_orders.h"

namespace squeeze {

void FgdOrder::SetWorkloadHistory(const std::vector<PodSpec>& pods) {
  calculator_ = FragmentationCalculator(TargetWorkload(pods));
  target_given_ = true;
  ForgetScores();
}

void FgdOrder::ObserveArrival(const JobSpec& job) {
  if (target_given_) return;
  arrivals_.push_back(PodOf(job));
  if (arrivals_.size() < 2 * rebuilt_at_) return;
  calculator_ = FragmentationCalculator(TargetWorkload(arrivals_));
  rebuilt_at_ = arrivals_.size();
  ForgetScores();
}

int64_t FgdOrder::Score(const NodeView& node, const PodSpec& pod) const {
  return FgdScore(node, pod, calculator_).score;
}

std::vector<int> FgdOrder::Gpus(const NodeView& node, const PodSpec& pod) const {
  return FgdScore(node, pod, calculator_).gpus;
}

}  // namespace squeeze
