#include "core/plugins/node_orders.h"

#include <algorithm>

#include "core/plugins/placement_search.h"

namespace squeeze {
namespace {

enum class Remainder { kNextInOrder, kBestFit };

// Whole free nodes, most free first, then the remainder on one more node.
std::optional<Placement> PlaceOnWholeNodes(const PlaceRequest& req, const ClusterState& cluster,
                                           int group, Remainder remainder_rule) {
  std::vector<NodeFree> order = NodesByFreeDescending(req, cluster, group);
  Placement p;
  int remaining = req.job->gpus;
  size_t i = 0;
  for (; i < order.size() && remaining > 0; ++i) {
    const int node_gpus = cluster.node(order[i].node).gpus;
    if (order[i].usable != node_gpus || remaining < node_gpus) break;
    auto share = WholeShare(req, cluster, order[i].node, node_gpus);
    if (!share) return std::nullopt;
    p.shares.push_back(std::move(*share));
    remaining -= node_gpus;
  }
  if (remaining == 0) return p;
  int pick = -1;
  if (remainder_rule == Remainder::kNextInOrder) {
    if (i < order.size() && order[i].usable >= remaining) pick = order[i].node;
  } else {
    int best = 0;
    for (size_t j = i; j < order.size(); ++j) {
      if (order[j].usable >= remaining && (pick < 0 || order[j].usable < best)) {
        pick = order[j].node;
        best = order[j].usable;
      }
    }
  }
  if (pick < 0) return std::nullopt;
  auto share = WholeShare(req, cluster, pick, remaining);
  if (!share) return std::nullopt;
  p.shares.push_back(std::move(*share));
  return p;
}

std::optional<Placement> PlaceScattered(const PlaceRequest& req, const ClusterState& cluster,
                                        int group) {
  Placement p;
  int remaining = req.job->gpus;
  for (int ni : cluster.group(group).nodes) {
    const int take = std::min(remaining, req.Usable(cluster.node(ni)));
    if (take <= 0) continue;
    auto share = WholeShare(req, cluster, ni, take);
    if (!share) continue;
    p.shares.push_back(std::move(*share));
    remaining -= take;
    if (remaining == 0) return p;
  }
  return std::nullopt;
}

template <typename MultiNode>
std::optional<Placement> PlaceWith(const PlaceRequest& req, const ClusterState& cluster,
                                   FitRule rule, MultiNode multi_node) {
  const JobSpec& job = *req.job;
  if (job.gpus <= 0) return PlaceCpuOnly(req, cluster);
  if (!job.WholeGpus()) return PlaceFraction(req, cluster, rule);
  if (auto p = PlaceOnOneNode(req, cluster, rule)) return p;
  for (int gi : req.groups) {
    const NodeGroup& g = cluster.group(gi);
    if (job.gpus <= g.max_gpus_per_node || GroupTooSmall(g, job.gpus)) continue;
    if (auto p = multi_node(gi)) return p;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Placement> FirstFitOrder::Place(const PlaceRequest& req,
                                              const ClusterState& cluster) const {
  return PlaceWith(req, cluster, FitRule::kFirst,
                   [&](int g) { return PlaceScattered(req, cluster, g); });
}

std::optional<Placement> BestFitOrder::Place(const PlaceRequest& req,
                                             const ClusterState& cluster) const {
  return PlaceWith(req, cluster, FitRule::kBest, [&](int g) {
    return PlaceOnWholeNodes(req, cluster, g, Remainder::kBestFit);
  });
}

std::optional<Placement> ConsolidationOrder::Place(const PlaceRequest& req,
                                                   const ClusterState& cluster) const {
  return PlaceWith(req, cluster, FitRule::kBest, [&](int g) {
    return PlaceOnWholeNodes(req, cluster, g, Remainder::kNextInOrder);
  });
}

namespace {

std::optional<Placement> MostFreeOneNode(const PlaceRequest& req, const ClusterState& cluster) {
  int best_node = -1;
  int best_usable = 0;
  for (int gi : req.groups) {
    const NodeGroup& g = cluster.group(gi);
    if (req.job->gpus > g.max_gpus_per_node) continue;
    for (const NodeFree& f : NodesByFreeDescending(req, cluster, gi)) {
      if (f.usable < req.job->gpus || f.usable < best_usable) break;  // most usable first
      if (f.usable == best_usable && f.node > best_node) break;
      if (!WholeShare(req, cluster, f.node, req.job->gpus)) continue;
      best_node = f.node;
      best_usable = f.usable;
      break;
    }
  }
  if (best_node < 0) return std::nullopt;
  Placement p;
  p.shares.push_back(*WholeShare(req, cluster, best_node, req.job->gpus));
  return p;
}

std::optional<Placement> MostFreeFraction(const PlaceRequest& req, const ClusterState& cluster) {
  int best_node = -1, best_gpu = -1, best_free = -1;
  for (int gi : req.groups) {
    for (int ni : cluster.group(gi).nodes) {
      const NodeState& n = cluster.node(ni);
      for (int k = 0; k < n.gpus; ++k) {
        const int f = n.free_milli[k];
        if (f < req.job->gpu_milli || f <= best_free) continue;
        if (f == kMilliPerGpu && req.Usable(n) < 1) continue;
        if (!FractionShare(req, cluster, ni, k)) continue;
        best_node = ni;
        best_gpu = k;
        best_free = f;
      }
    }
  }
  if (best_node < 0) return std::nullopt;
  Placement p;
  p.shares.push_back(*FractionShare(req, cluster, best_node, best_gpu));
  return p;
}

}  // namespace

std::optional<Placement> LeastAllocatedOrder::Place(const PlaceRequest& req,
                                                    const ClusterState& cluster) const {
  const JobSpec& job = *req.job;
  if (job.gpus <= 0) return PlaceCpuOnly(req, cluster);
  if (!job.WholeGpus()) return MostFreeFraction(req, cluster);
  if (auto p = MostFreeOneNode(req, cluster)) return p;
  for (int gi : req.groups) {
    const NodeGroup& g = cluster.group(gi);
    if (job.gpus <= g.max_gpus_per_node || GroupTooSmall(g, job.gpus)) continue;
    if (auto p = PlaceOnWholeNodes(req, cluster, gi, Remainder::kNextInOrder)) return p;
  }
  return std::nullopt;
}

}  // namespace squeeze
