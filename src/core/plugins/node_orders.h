// The node order plugins squeeze ships. Each places single-node jobs on one node and bigger
// jobs over several; they differ in which nodes they prefer.
#ifndef SQUEEZE_CORE_PLUGINS_NODE_ORDERS_H_
#define SQUEEZE_CORE_PLUGINS_NODE_ORDERS_H_

#include "core/plugins/node_order.h"

namespace squeeze {

// Lowest node index that fits; a multi-node job takes GPUs node by node in index order.
class FirstFitOrder : public NodeOrder {
 public:
  std::string_view name() const override { return "first-fit"; }
  std::unique_ptr<NodeOrder> Clone() const override { return std::make_unique<FirstFitOrder>(*this); }
  std::optional<Placement> Place(const PlaceRequest& request,
                                 const ClusterState& cluster) const override;
};

// The node with the fewest free GPUs that suffice; a multi-node job takes whole free nodes,
// then its remainder on the best-fitting other node.
class BestFitOrder : public NodeOrder {
 public:
  std::string_view name() const override { return "best-fit"; }
  std::unique_ptr<NodeOrder> Clone() const override { return std::make_unique<BestFitOrder>(*this); }
  std::optional<Placement> Place(const PlaceRequest& request,
                                 const ClusterState& cluster) const override;
};

// The reference simulators' "consolidate": a job of up to one node's GPUs on the best-fitting
// node; a bigger job on whole free nodes, as few as possible, its remainder on the next node
// in (most free, lowest index) order and nowhere else.
class ConsolidationOrder : public NodeOrder {
 public:
  std::string_view name() const override { return "consolidation"; }
  std::unique_ptr<NodeOrder> Clone() const override { return std::make_unique<ConsolidationOrder>(*this); }
  std::optional<Placement> Place(const PlaceRequest& request,
                                 const ClusterState& cluster) const override;
};

// kube-scheduler's default scoring (NodeResourcesFit, LeastAllocated): a job that fits one
// node goes to the node with the most free GPUs that fits (ties to the lowest index), spreading
// work out; a bigger job on whole free nodes, its remainder on the next most free node; a
// fraction of a GPU on the GPU with the most free share. Used by the kueue model.
class LeastAllocatedOrder : public NodeOrder {
 public:
  std::string_view name() const override { return "least-allocated"; }
  std::unique_ptr<NodeOrder> Clone() const override { return std::make_unique<LeastAllocatedOrder>(*this); }
  std::optional<Placement> Place(const PlaceRequest& request,
                                 const ClusterState& cluster) const override;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLUGINS_NODE_ORDERS_H_
