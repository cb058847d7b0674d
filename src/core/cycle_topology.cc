// Topology-aware placement (core/topology.h, docs/policies.md "Blocks and racks"): a job of
// several nodes inside one domain of the narrowest level that holds it (a block, else a rack),
// the domain with the fewest free GPUs that suffice first (best fit, as Kueue's TAS), and what
// a job requires honoured whatever the policy.
#include <algorithm>
#include <set>

#include "core/cycle.h"
#include "core/plugins/placement_search.h"
#include "core/topology.h"

namespace squeeze {

std::optional<Placement> CycleContext::PlaceInTopology(const Job& job, PlaceRequest req,
                                                       std::optional<Placement> anywhere,
                                                       bool even) const {
  const TopologyRequest& want = job.spec.topology;
  const ClusterState& c = s.cluster;
  if (!anywhere || c.TopologyLevels() == 0 || want.mode == TopologyMode::kUnconstrained) {
    return anywhere;
  }
  const bool required = want.mode == TopologyMode::kRequired;
  const int spread = SpreadLevel(c, *anywhere);
  if (spread < 0 || (!required && !s.policy.topology_aware)) return anywhere;
  const int named = want.level.empty() ? -1 : c.spec().topology.LevelIndex(want.level);
  const int widest = required ? named : c.TopologyLevels() - 1;
  if (required && named < 0) return anywhere;  // a level this cluster lacks (refused at submit)
  // The kinds of card the placement found use (the hardware rule chose them).
  std::set<int> groups;
  for (const NodeShare& share : anywhere->shares) groups.insert(c.node(share.node).group);
  req.groups.assign(groups.begin(), groups.end());
  for (int level = 0; level <= widest; ++level) {
    if (spread < level) return anywhere;  // inside one domain of this level already
    std::vector<std::pair<int, int>> fits;  // (usable free GPUs, domain)
    for (size_t d = 0; d < c.Domains(level).size(); ++d) {
      int free = 0;
      for (int ni : c.Domains(level)[d]) {
        const NodeState& n = c.node(ni);
        if (groups.count(n.group)) free += req.Usable(n);
      }
      if (free >= job.spec.gpus) fits.emplace_back(free, static_cast<int>(d));
    }
    std::sort(fits.begin(), fits.end());
    req.node_domain = &c.NodeDomains(level);
    for (const auto& [free, d] : fits) {
      req.domain = d;
      std::optional<Placement> p = s.node_order->Place(req, c);
      if (p && even && !EvenShares(*p)) p = PlaceEvenly(req, c);
      if (p) return p;
    }
    req.node_domain = nullptr;
  }
  if (required) return std::nullopt;  // it waits for room inside one domain
  return anywhere;
}

}  // namespace squeeze
