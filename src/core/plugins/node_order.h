// Node order plugins: given a job and the free capacity, choose the GPUs it would run on.
// Each plugin is a judgement: Place is a query that changes nothing an answer depends on (the
// same request on the same capacity gets the same answer however often it is asked, so trial
// placements, reservations and the fragmentation meter leave later answers alone); whatever an
// order learns it learns in the hooks below, from events. The actions decide whether to commit
// what it proposes.
#ifndef SQUEEZE_CORE_PLUGINS_NODE_ORDER_H_
#define SQUEEZE_CORE_PLUGINS_NODE_ORDER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/cluster_state.h"
#include "core/job.h"
#include "core/plugins/fragmentation.h"
#include "core/placement.h"
#include "core/status.h"

namespace squeeze {

// What a placement may use: candidate node groups (in preference order) and, for a few nodes,
// a cap on the whole GPUs a job may take there (how reservations protect capacity).
struct PlaceRequest {
  const JobSpec* job = nullptr;
  std::vector<int> groups;
  const std::unordered_map<int, int>* node_gpu_cap = nullptr;
  // Only the nodes of one topology domain (a block, a rack): those with
  // (*node_domain)[node] == domain (ClusterState::NodeDomains); null = any node.
  const std::vector<int>* node_domain = nullptr;
  int domain = -1;

  // Whole GPUs of `node` this request may use.
  int Usable(const NodeState& node) const;
};

class NodeOrder {
 public:
  virtual ~NodeOrder() = default;
  virtual std::string_view name() const = 0;
  // A copy with everything it has learned (a forecast runs on a copy of the scheduler).
  virtual std::unique_ptr<NodeOrder> Clone() const = 0;
  // A placement for the job on free capacity, or nullopt when it does not fit.
  virtual std::optional<Placement> Place(const PlaceRequest& request,
                                         const ClusterState& cluster) const = 0;

  // Ties between equally good nodes go to the lowest rank[node] (a permutation the caller
  // draws; the core has no randomness of its own). Orders that tie-break by index ignore it.
  virtual void SetNodeRank(std::vector<int> rank) {}
  // The seed of the `random` order's draws; others ignore it.
  virtual void SetSeed(uint64_t seed) {}
  // The pods seen in the past (a trace, the last weeks' submissions): the fragmentation-aware
  // orders derive the workload they expect from it; others ignore it.
  virtual void SetWorkloadHistory(const std::vector<PodSpec>& pods) {}
  // A job arrived (submitted, or adopted where it runs), `cluster` as it is then. Orders that
  // learn the expected workload online watch the arrivals; orders that refresh what they judge
  // by (squeeze's scarcity weights, the random order's draws) do it here, never in Place.
  virtual void ObserveArrival(const JobSpec& job, const ClusterState& cluster) {}
};

// first-fit, best-fit, consolidation.
Result<std::unique_ptr<NodeOrder>> MakeNodeOrder(std::string_view name);
std::vector<std::string> NodeOrderNames();

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLUGINS_NODE_ORDER_H_
