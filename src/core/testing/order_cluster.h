// A ClusterState with pods already on it, for tests of the node order plugins: pods are put
// on given GPUs with Take, and Place asks an order where a job would go, as text. Test-only
// and header-only; not thread-safe.
#ifndef SQUEEZE_CORE_TESTING_ORDER_CLUSTER_H_
#define SQUEEZE_CORE_TESTING_ORDER_CLUSTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/cluster_spec.h"
#include "core/cluster_state.h"
#include "core/plugins/node_order.h"
#include "core/testing/scenario.h"

namespace squeeze::testing {

class OrderCluster {
 public:
  explicit OrderCluster(const ClusterSpec& spec) : state_(spec) {}

  // Puts a pod on `node`: `milli` of each GPU in `gpus` (none: a CPU-only pod), with `cpu`
  // milli-cores and `memory` MiB.
  OrderCluster& Take(int node, std::vector<int> gpus, int milli = kMilliPerGpu, int64_t cpu = 0,
                     int64_t memory = 0) {
    NodeShare s;
    s.node = node;
    s.gpus = std::move(gpus);
    s.milli_per_gpu = s.gpus.empty() ? 0 : milli;
    s.cpu_milli = cpu;
    s.memory_mib = memory;
    Placement p;
    p.shares.push_back(std::move(s));
    state_.Allocate(p);
    return *this;
  }

  // Where `order` puts `job`, offered every node group: "a1:0 milli=500" (see
  // DescribePlacement; "a1:" for a CPU-only job), or "none".
  std::string Place(const NodeOrder& order, const JobSpec& job,
                    const std::unordered_map<int, int>* caps = nullptr) const {
    return Describe(Placed(order, job, caps));
  }

  // Place, and the placement (if any) is allocated.
  std::string PlaceAndTake(const NodeOrder& order, const JobSpec& job) {
    std::optional<Placement> p = Placed(order, job, nullptr);
    if (p) state_.Allocate(*p);
    return Describe(p);
  }

  ClusterState& state() { return state_; }
  const ClusterState& state() const { return state_; }

 private:
  std::optional<Placement> Placed(const NodeOrder& order, const JobSpec& job,
                                  const std::unordered_map<int, int>* caps) const {
    PlaceRequest req;
    req.job = &job;
    for (size_t g = 0; g < state_.groups().size(); ++g) req.groups.push_back(static_cast<int>(g));
    req.node_gpu_cap = caps;
    return order.Place(req, state_);
  }
  std::string Describe(const std::optional<Placement>& p) const {
    return p ? DescribePlacement(*p, state_.spec()) : "none";
  }

  ClusterState state_;
};

}  // namespace squeeze::testing

#endif  // SQUEEZE_CORE_TESTING_ORDER_CLUSTER_H_
