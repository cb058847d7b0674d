#include "core/plugins/node_orders.h"
#include "core/plugins/placement_scores.h"
#include "core/plugins/scored_orders.h"

namespace squeeze {

Rng RandomOrder::DrawsFor(uint64_t what) const {
  // Three SplitMix64 outputs mixed: streams for nearby seeds, arrivals and ids are unrelated.
  Rng mix(seed_);
  uint64_t key = mix.Next();
  key = Rng(key ^ arrivals_).Next();
  return Rng(Rng(key ^ what).Next());
}

std::optional<Placement> RandomOrder::Place(const PlaceRequest& req,
                                            const ClusterState& cluster) const {
  if (NeedsSeveralNodes(req, cluster)) return ConsolidationOrder().Place(req, cluster);
  const std::vector<Feasible>& feasible = ScoreFeasibleNodes(req, cluster);
  if (feasible.empty()) return std::nullopt;
  Rng draws = DrawsFor(static_cast<uint64_t>(req.job->id));
  return PlaceOn(feasible[draws.UniformInt(feasible.size())].node, req, cluster);
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
  uint64_t what = 0xcbf29ce484222325ULL;  // FNV-1a over the free milli of each GPU
  for (int l : node.free_milli) what = (what ^ static_cast<uint64_t>(l)) * 0x100000001b3ULL;
  Rng draws = DrawsFor(what);
  return {fitting[draws.UniformInt(fitting.size())]};
}

}  // namespace squeeze
