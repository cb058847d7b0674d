// The node orders the FGD paper (Weng et al., ATC '23) compares, on the ScoredNodeOrder frame:
// random, dotprod, packing, clustering, bestfit and fgd, as ../shared/traces/openb/PROTOCOL.md
// section 5 defines them. Each lives in its own file (<name>_order.cc). Not thread-safe.
#ifndef SQUEEZE_CORE_PLUGINS_SCORED_ORDERS_H_
#define SQUEEZE_CORE_PLUGINS_SCORED_ORDERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/plugins/fragmentation.h"
#include "core/plugins/scored_order.h"
#include "core/rng.h"

namespace squeeze {

// A uniformly random feasible node; a fraction of a GPU goes on a uniformly random fitting
// GPU. Each draw is a function of the seed, the arrivals seen so far and what is drawn for
// (the job; the node's free GPUs), so asking again without an arrival between draws the same.
class RandomOrder : public ScoredNodeOrder {
 public:
  std::string_view name() const override { return "random"; }
  std::unique_ptr<NodeOrder> Clone() const override { return std::make_unique<RandomOrder>(*this); }
  std::optional<Placement> Place(const PlaceRequest& request,
                                 const ClusterState& cluster) const override;
  void SetSeed(uint64_t seed) override {
    seed_ = seed;
    arrivals_ = 0;
  }
  void ObserveArrival(const JobSpec&, const ClusterState&) override { ++arrivals_; }

 protected:
  int64_t Score(const NodeView&, const PodSpec&) const override { return 0; }
  std::vector<int> Gpus(const NodeView& node, const PodSpec& pod) const override;

 private:
  // The draws for `what` (a job id, a node's free GPUs) at this point of the stream.
  Rng DrawsFor(uint64_t what) const;

  uint64_t seed_ = 0;
  uint64_t arrivals_ = 0;
};

// The smallest dot product of the node's free (CPU, GPU) and the pod's demand.
class DotProdOrder : public ScoredNodeOrder {
 public:
  std::string_view name() const override { return "dotprod"; }
  std::unique_ptr<NodeOrder> Clone() const override { return std::make_unique<DotProdOrder>(*this); }

 protected:
  int64_t Score(const NodeView& node, const PodSpec& pod) const override;
};

// GPU packing: partly used GPUs first, then partly used nodes, then free nodes.
class PackingOrder : public ScoredNodeOrder {
 public:
  std::string_view name() const override { return "packing"; }
  std::unique_ptr<NodeOrder> Clone() const override { return std::make_unique<PackingOrder>(*this); }

 protected:
  int64_t Score(const NodeView& node, const PodSpec& pod) const override;
};

// GPU clustering: nodes already hosting pods of the same class (share / k-gpu).
class ClusteringOrder : public ScoredNodeOrder {
 public:
  std::string_view name() const override { return "clustering"; }
  std::unique_ptr<NodeOrder> Clone() const override { return std::make_unique<ClusteringOrder>(*this); }

 protected:
  int64_t Score(const NodeView& node, const PodSpec& pod) const override;
};

// Best fit: the least CPU and GPU left over, min-max normalised over the feasible nodes.
class BestFitScoreOrder : public ScoredNodeOrder {
 public:
  std::string_view name() const override { return "bestfit"; }
  std::unique_ptr<NodeOrder> Clone() const override { return std::make_unique<BestFitScoreOrder>(*this); }

 protected:
  int64_t Score(const NodeView& node, const PodSpec& pod) const override;
  bool NormalisesScores() const override { return true; }
};

// FGD: the node whose expected fragmentation (against the target workload) grows least.
// The target is built from the history SetWorkloadHistory gives (the reference's way: top
// specs covering 95% of the pods); without one, it is learned from the recent arrivals
// (ObserveArrival; RecentShapes).
class FgdOrder : public ScoredNodeOrder {
 public:
  std::string_view name() const override { return "fgd"; }
  std::unique_ptr<NodeOrder> Clone() const override { return std::make_unique<FgdOrder>(*this); }
  void SetWorkloadHistory(const std::vector<PodSpec>& pods) override;
  void ObserveArrival(const JobSpec& job, const ClusterState& cluster) override;
  const TargetWorkload& target() const { return calculator_.target(); }

 protected:
  int64_t Score(const NodeView& node, const PodSpec& pod) const override;
  std::vector<int> Gpus(const NodeView& node, const PodSpec& pod) const override;

 private:
  FragmentationCalculator calculator_;
  bool target_given_ = false;
  RecentShapes recent_;
};

// squeeze's own placement. FGD decides first (its score: how much the node's expected
// fragmentation for the next pod grows). Among the nodes FGD rates equal, which are many, the
// node wins where the *waste* grows least: half FGD's fragmentation, half the capacity that
// a stream of each expected pod shape could never fill there (what each pod strands on its
// GPU, GPUs without CPU left to use them), over every shape seen, each weighted by how scarce
// room for it has become since the cluster was empty (cubed), so that the last nodes able to
// host a rare big shape are kept for it. Then the node rank. The weights are refreshed at
// every 200th arrival (and when the shapes change), from the cluster as it is then; a query
// never refreshes them. The expected shapes come from the
// history given, else from the recent arrivals (RecentShapes). A workload
// of whole GPUs without CPU demands, and jobs bigger than a node, are placed as
// ConsolidationOrder does (best fit on whole GPUs), which queues less there.
class SqueezePlacementOrder : public ScoredNodeOrder {
 public:
  std::string_view name() const override { return "squeeze"; }
  std::unique_ptr<NodeOrder> Clone() const override { return std::make_unique<SqueezePlacementOrder>(*this); }
  std::optional<Placement> Place(const PlaceRequest& request,
                                 const ClusterState& cluster) const override;
  void SetWorkloadHistory(const std::vector<PodSpec>& pods) override;
  void ObserveArrival(const JobSpec& job, const ClusterState& cluster) override;

 protected:
  int64_t Score(const NodeView& node, const PodSpec& pod) const override;
  std::vector<int> Gpus(const NodeView& node, const PodSpec& pod) const override;

 private:
  struct Cached {
    uint64_t stamp = 0;
    uint64_t epoch = 0;
    int score = 0;
  };
  void SetTargets(const std::vector<PodSpec>& pods);
  // Refreshes the room each shape has left and the scarcity weights of the waste measure.
  void Reweigh(const ClusterState& cluster);
  int WasteScore(const NodeView& node, const PodSpec& pod) const;

  FragmentationCalculator fgd_;     // FGD's target: the top shapes covering 95% of pods
  TargetWorkload all_shapes_;       // every shape, by count
  FragmentationCalculator waste_;  // all_shapes_ weighted by scarcity
  bool history_given_ = false;
  bool whole_gpus_only_ = false;  // no shape asks for CPU or part of a GPU
  RecentShapes recent_;

  std::vector<uint64_t> room_stamp_;           // [node]
  std::vector<std::vector<int64_t>> room_;     // [node][shape]
  std::vector<int64_t> room_total_, room_when_empty_;  // [shape]
  int64_t arrivals_ = 0;  // since the weights were last refreshed on schedule
  uint64_t epoch_ = 1;    // changes with the weights
  // Memos of Place (pure functions of a node's state and the epoch), not what it answers by.
  mutable std::vector<std::vector<Cached>> waste_cache_;  // [pod shape][node]
  // [pod shape] -> (epoch, node state -> score): nodes in the same state share a score.
  mutable std::vector<std::pair<uint64_t, std::unordered_map<std::string, int>>> waste_memo_;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLUGINS_SCORED_ORDERS_H_
