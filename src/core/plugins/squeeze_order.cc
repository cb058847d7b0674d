#include <algorithm>
#include <cmath>
#include <string>

#include "core/plugins/node_orders.h"
#include "core/plugins/placement_scores.h"
#include "core/plugins/scored_orders.h"

namespace squeeze {
namespace {

constexpr int kReweighEvery = 200;      // arrivals between refreshes of the weights
constexpr double kScarcityPower = 3.0;  // weight x (room when empty / room now)^3
constexpr double kFgdShare = 0.5;       // of FGD's fragmentation in the waste measure

// floor(100 sigmoid(-growth / 1000)): FGD's scale, so that growth below ~40 milli ties.
int SigmoidScore(double growth) {
  return static_cast<int>(std::floor(100.0 / (1.0 + std::exp(growth / 1000.0))));
}

NodeView EmptyView(const NodeSpec& spec) {
  NodeView v;
  v.cpu_free = spec.cpu_milli;
  v.free_milli.assign(spec.gpus, kMilliPerGpu);
  v.gpu_model = spec.gpu_model;
  return v;
}

}  // namespace

void SqueezePlacementOrder::SetTargets(const std::vector<PodSpec>& pods) {
  fgd_ = FragmentationCalculator(TargetWorkload(pods));
  TargetWorkload::Options every;
  every.coverage = 1.0;
  all_shapes_ = TargetWorkload(pods, every);
  waste_ = FragmentationCalculator(all_shapes_);
  whole_gpus_only_ = true;
  for (const auto& e : all_shapes_.entries()) {
    const PodSpec& m = e.spec;
    if (m.cpu_milli > 0 || (!m.CpuOnly() && m.gpu_milli < kMilliPerGpu)) whole_gpus_only_ = false;
  }
  room_stamp_.clear();  // the shapes changed: room is counted afresh
  arrivals_ = 0;        // and the weights refreshed at the next arrival
  ++epoch_;
  ForgetScores();
}

void SqueezePlacementOrder::SetWorkloadHistory(const std::vector<PodSpec>& pods) {
  if (pods.empty()) return;
  history_given_ = true;
  SetTargets(pods);
}

void SqueezePlacementOrder::ObserveArrival(const JobSpec& job, const ClusterState& cluster) {
  if (!history_given_ && recent_.Add(PodOf(job))) SetTargets(recent_.shapes());
  // Place uses the weights only for a workload of shapes other than whole GPUs.
  if (all_shapes_.entries().empty() || whole_gpus_only_) return;
  if (arrivals_++ % kReweighEvery == 0) Reweigh(cluster);
}

void SqueezePlacementOrder::Reweigh(const ClusterState& cluster) {
  const auto& shapes = all_shapes_.entries();
  const auto& nodes = cluster.nodes();
  if (room_stamp_.size() != nodes.size()) {
    room_stamp_.assign(nodes.size(), 0);
    room_.assign(nodes.size(), std::vector<int64_t>(shapes.size(), 0));
    room_total_.assign(shapes.size(), 0);
    room_when_empty_.assign(shapes.size(), 0);
    for (const NodeSpec& spec : cluster.spec().nodes) {
      const NodeView v = EmptyView(spec);
      for (size_t i = 0; i < shapes.size(); ++i) room_when_empty_[i] += waste_.Room(v, i);
    }
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (room_stamp_[n] == nodes[n].stamp) continue;
    const NodeView v = ViewOf(nodes[n], cluster.group(nodes[n].group));
    for (size_t i = 0; i < shapes.size(); ++i) {
      const int64_t r = waste_.Room(v, i);
      room_total_[i] += r - room_[n][i];
      room_[n][i] = r;
    }
    room_stamp_[n] = nodes[n].stamp;
  }
  std::vector<double> weights(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    const double scarcity = static_cast<double>(room_when_empty_[i] + 1) /
                            static_cast<double>(room_total_[i] + 1);
    weights[i] = shapes[i].p * std::pow(scarcity, kScarcityPower);
  }
  waste_ = FragmentationCalculator(all_shapes_.Reweighted(weights));
  ++epoch_;
}

int64_t SqueezePlacementOrder::Score(const NodeView& node, const PodSpec& pod) const {
  return FgdScore(node, pod, fgd_).score;
}

std::vector<int> SqueezePlacementOrder::Gpus(const NodeView& node, const PodSpec& pod) const {
  return FgdScore(node, pod, fgd_).gpus;
}

int SqueezePlacementOrder::WasteScore(const NodeView& node, const PodSpec& pod) const {
  auto waste = [&](const NodeView& v) {
    return waste_.MixedWaste(v, kFgdShare);
  };
  const double before = waste(node);
  auto growth = [&](const std::vector<int>& gpus) {
    return waste(AfterPlacement(node, pod, gpus)) - before;
  };
  if (pod.CpuOnly()) return SigmoidScore(growth({}));
  if (pod.gpus > 1 || pod.gpu_milli >= kMilliPerGpu) {
    return SigmoidScore(growth(LowestFreeGpus(node, pod.gpus)));
  }
  double best = 0;
  bool found = false;
  for (int i = 0; i < node.Gpus(); ++i) {
    if (node.free_milli[i] < pod.gpu_milli) continue;
    if (std::find(node.free_milli.begin(), node.free_milli.begin() + i, node.free_milli[i]) !=
        node.free_milli.begin() + i) {
      continue;  // an earlier GPU with the same free milli gives the same growth
    }
    const double g = growth({i});
    if (!found || g < best) best = g;
    found = true;
  }
  return SigmoidScore(best);
}

std::optional<Placement> SqueezePlacementOrder::Place(const PlaceRequest& req,
                                                      const ClusterState& cluster) const {
  // Jobs bigger than a node, and a workload of whole GPUs without CPU demands, where free
  // capacity is just whole GPUs and best fit is what keeps them together (measured on the
  // Philly trace: it queues less than the fragmentation scores there).
  if (NeedsSeveralNodes(req, cluster) || whole_gpus_only_) {
    return ConsolidationOrder().Place(req, cluster);
  }
  if (all_shapes_.entries().empty()) return ScoredNodeOrder::Place(req, cluster);
  const std::vector<Feasible>& feasible = ScoreFeasibleNodes(req, cluster);
  if (feasible.empty()) return std::nullopt;
  int64_t top = feasible.front().score;
  for (const Feasible& f : feasible) top = std::max(top, f.score);

  const PodSpec pod = PodOf(*req.job);
  const int shape = LastShapeId();  // the shape ScoreFeasibleNodes just scored
  if (static_cast<int>(waste_cache_.size()) <= shape) waste_cache_.resize(shape + 1);
  std::vector<Cached>& cache = waste_cache_[shape];
  if (static_cast<int>(waste_memo_.size()) <= shape) waste_memo_.resize(shape + 1);
  auto& [memo_epoch, memo] = waste_memo_[shape];
  if (memo_epoch != epoch_) {
    memo.clear();
    memo_epoch = epoch_;
  }
  if (cache.size() < cluster.nodes().size()) cache.resize(cluster.nodes().size());
  int best_node = -1;
  int best_score = -1;
  for (const Feasible& f : feasible) {
    if (f.score != top) continue;
    const NodeState& n = cluster.node(f.node);
    Cached& c = cache[f.node];
    if (c.stamp != n.stamp || c.epoch != epoch_) {
      NodeView v = CappedView(ViewOf(n, cluster.group(n.group)), req.Usable(n));
      PodSpec p = pod;
      if (!n.cpu_tracked) p.cpu_milli = 0;
      // Nodes in the same state score the same: many do (all the free nodes of a kind).
      std::string key = std::to_string(n.group) + ':' + std::to_string(v.cpu_free) + ':' +
                        std::to_string(n.cpu_tracked);
      for (int l : v.free_milli) key += ',' + std::to_string(l);
      auto [it, inserted] = memo.emplace(std::move(key), 0);
      if (inserted) it->second = WasteScore(v, p);
      c = {n.stamp, epoch_, it->second};
      if (req.Usable(n) < n.whole_free) c.stamp = 0;  // a capped view is not cached
    }
    if (c.score > best_score || (c.score == best_score && RankOf(f.node) < RankOf(best_node))) {
      best_node = f.node;
      best_score = c.score;
    }
  }
  return PlaceOn(best_node, req, cluster);
}

}  // namespace squeeze
