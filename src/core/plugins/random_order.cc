#include "core/plugins/node_orders.h"
#include "core/plugins/placement_scores.h"
#include "core/plugins/scored_orders.h"

namespace squeeze {

std::optional<Placement> RandomOrder::Place(const PlaceRequest& req,
                                            const ClusterState& cluster) const {
  if (NeedsSeveralNodes(req, cluster)) return ConsolidationOrder().Place(req, cluster);
  const std::vector<Feasible>& feasible = ScoreFeasibleNodes(req, cluster);
  if (feasible.empty()) return std::nullopt;
  return PlaceOn(feasible[rng_.UniformInt(feasible.size())].node, req, cluster);
}

std::vector<int> RandomOrder::Gpus(const NodeView& node, const PodSpec& pod) const {
  if (pod.CpuOnly() || pod.gpus != 1 || pod.gpu_milli >= kMilliPerGpu) {
    return ChooseGpus(node, pod);
  }
  std::vector<int> fitting;
  for (int i = 0; i < node.Gpus(); ++i) {
    if (node.free_milli[i] >= pod.gpu_milli) fitting.push_back(i);
  }
  if (fitting.empty()) return {};
  return {fitting[rng_.UniformInt(fitting.size())]};
}

}  // namespace squeeze
