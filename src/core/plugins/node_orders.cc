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

}  // namespace squeeze
