// The frame the shared-GPU node orders (random, dotprod, packing, clustering, bestfit, fgd,
// squeeze) have in common: a job that fits on one node (a fraction of a GPU, whole GPUs,
// CPU only) is offered to every feasible node it may use, each node gets a score, the
// highest wins and ties go to the node of lowest rank (a seeded permutation the caller passes
// in; node index by default). Jobs bigger than any node go to ConsolidationOrder as a gang.
//
// Scores depend only on the node's free capacity and the pod's shape, so they are cached per
// (node stamp, pod shape): a fill of 10,000 pods on 1,213 nodes recomputes a node's score only
// after that node changed. Not thread-safe (the cache is mutable).
#ifndef SQUEEZE_CORE_PLUGINS_SCORED_ORDER_H_
#define SQUEEZE_CORE_PLUGINS_SCORED_ORDER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/plugins/fragmentation.h"
#include "core/plugins/node_order.h"

namespace squeeze {

// The pod a single-node job is: its CPU and memory are all on that node.
PodSpec PodOf(const JobSpec& job);
// What the scores see of a node: free CPU (0 when the node does not track CPU), memory
// (untracked = unlimited), free milli per GPU, model and the pod classes it hosts.
NodeView ViewOf(const NodeState& node, const NodeGroup& group);

class ScoredNodeOrder : public NodeOrder {
 public:
  std::optional<Placement> Place(const PlaceRequest& request,
                                 const ClusterState& cluster) const override;
  // rank[node index]: lower wins ties. Nodes beyond the vector rank by index after it.
  void SetNodeRank(std::vector<int> rank) override { rank_ = std::move(rank); }

 protected:
  // Score of `pod` on `node`, higher is better; called only where PodFits holds.
  virtual int64_t Score(const NodeView& node, const PodSpec& pod) const = 0;
  // The GPUs of the chosen node the pod gets; by default ChooseGpus (least-free fitting GPU
  // for a fraction, lowest-index free GPUs for whole ones).
  virtual std::vector<int> Gpus(const NodeView& node, const PodSpec& pod) const;
  // BestFit: scores are min-max normalised over the feasible nodes (with truncation) first.
  virtual bool NormalisesScores() const { return false; }
  // Drop every cached score (a plugin whose scores changed for a reason other than a node's
  // free capacity, e.g. a new target workload).
  void ForgetScores() const { cache_.clear(); }
  int RankOf(int node) const;
  // A small id per pod shape (CPU, GPU milli, GPUs, models), for caches keyed by shape.
  int ShapeId(const PodSpec& pod) const;

  struct Feasible {
    int node;
    int64_t score;
  };
  // The shape id of the pod the last ScoreFeasibleNodes call scored.
  int LastShapeId() const { return last_shape_; }
  // Every node of the request's groups where the pod fits, with its score (normalised when
  // the order normalises). The request must fit on one node.
  // The vector is reused by the next call.
  const std::vector<Feasible>& ScoreFeasibleNodes(const PlaceRequest& request,
                                                  const ClusterState& cluster) const;
  // The pod on `node`, on the GPUs Gpus() picks.
  std::optional<Placement> PlaceOn(int node, const PlaceRequest& request,
                                   const ClusterState& cluster) const;

 private:
  struct Cached {
    uint64_t stamp = 0;  // 0 = never computed
    bool fits = false;
    int64_t score = 0;
  };
  std::vector<int> rank_;
  mutable std::vector<Feasible> feasible_;
  mutable int last_shape_ = -1;
  mutable std::map<std::tuple<int64_t, int, int, std::string>, int> shape_ids_;
  mutable std::vector<std::vector<Cached>> cache_;  // [shape][node]
};

// The shapes of the most recent arrivals, for the orders that learn the workload online.
class RecentShapes {
 public:
  static constexpr size_t kWindow = 4096;
  // Adds an arrival; true when the learned workload should be rebuilt: after 1, 2, 4, ...
  // arrivals, then every kWindow.
  bool Add(PodSpec pod);
  const std::vector<PodSpec>& shapes() const { return ring_; }

 private:
  std::vector<PodSpec> ring_;
  size_t next_ = 0;
  uint64_t seen_ = 0;
};

// Whether no single node of the request's groups could hold the job (a gang across nodes).
bool NeedsSeveralNodes(const PlaceRequest& request, const ClusterState& cluster);

// The node's view with whole GPUs beyond `usable` hidden (a reservation cap).
NodeView CappedView(NodeView view, int usable);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLUGINS_SCORED_ORDER_H_
