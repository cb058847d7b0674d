// Building blocks the node order plugins share: shares on one node, candidate walks.
#ifndef SQUEEZE_CORE_PLUGINS_PLACEMENT_SEARCH_H_
#define SQUEEZE_CORE_PLUGINS_PLACEMENT_SEARCH_H_

#include <optional>
#include <vector>

#include "core/plugins/node_order.h"

namespace squeeze {

// A share of `gpus` whole GPUs (the lowest-index fully free ones) on `node` with the job's
// CPU and memory in proportion; nullopt if CPU or memory do not fit.
std::optional<NodeShare> WholeShare(const PlaceRequest& req, const ClusterState& cluster,
                                    int node, int gpus);
// A share of one GPU holding `milli`, on GPU `gpu` of `node`; nullopt if CPU/memory don't fit.
std::optional<NodeShare> FractionShare(const PlaceRequest& req, const ClusterState& cluster,
                                       int node, int gpu);
// Placement of a job with no GPUs on the first node with room for its CPU and memory.
std::optional<Placement> PlaceCpuOnly(const PlaceRequest& req, const ClusterState& cluster);

enum class FitRule { kFirst, kBest };
// A single-node placement of the job's whole GPUs by the rule: kFirst = lowest node index,
// kBest = fewest usable free GPUs that suffice (ties to the lowest index).
std::optional<Placement> PlaceOnOneNode(const PlaceRequest& req, const ClusterState& cluster,
                                        FitRule rule);
// A fractional job (one GPU, part of it) on the GPU by the rule: kFirst = first node and GPU
// that fit, kBest = the fitting GPU with the least free milli.
std::optional<Placement> PlaceFraction(const PlaceRequest& req, const ClusterState& cluster,
                                       FitRule rule);

struct NodeFree {
  int node;
  int usable;
};
// Nodes of the group with usable whole GPUs, most usable first, ties to the lowest index.
std::vector<NodeFree> NodesByFreeDescending(const PlaceRequest& req, const ClusterState& cluster,
                                            int group);
// A placement of the job's whole GPUs as the same number on each of its nodes, within one group
// (what Slurm can express: --nodes=K --gres=gpu:G): the fewest nodes that allow it, each the
// best fit (fewest usable GPUs that suffice, ties to the lowest index); nullopt when no such
// shape fits. A job that fits one node is placed on one node.
std::optional<Placement> PlaceEvenly(const PlaceRequest& req, const ClusterState& cluster);
// Whether every node of `p` holds the same number of GPUs.
bool EvenShares(const Placement& p);

// True if the group cannot possibly hold `gpus` whole GPUs (a cheap test before a search).
bool GroupTooSmall(const NodeGroup& group, int gpus);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLUGINS_PLACEMENT_SEARCH_H_
