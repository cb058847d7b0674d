#include "core/reservation.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace squeeze {
namespace {

struct NodeNeed {
  int node;
  int need;
};

// Free whole GPUs of a node once `extra` more are released.
int FreeWith(const CycleContext& c, const std::unordered_map<int, int>& extra, int node) {
  auto it = extra.find(node);
  return c.s.cluster.node(node).whole_free + (it == extra.end() ? 0 : it->second);
}

// `want` GPUs over the groups' nodes (those of one topology domain when `node_domain` is
// given), most free once `extra` is released first, within one group; nullopt if none holds it.
std::optional<std::vector<NodeNeed>> GreedyNeeds(const CycleContext& c,
                                                 const std::vector<int>& groups,
                                                 const std::unordered_map<int, int>& extra,
                                                 int want, const std::vector<int>* node_domain,
                                                 int domain) {
  for (int g : groups) {
    const NodeGroup& group = c.s.cluster.group(g);
    if (want <= group.max_gpus_per_node) continue;
    std::vector<std::pair<int, int>> order;  // (-free, node)
    for (int ni : group.nodes) {
      if (node_domain != nullptr && (*node_domain)[ni] != domain) continue;
      const int f = FreeWith(c, extra, ni);
      if (f > 0) order.push_back({-f, ni});
    }
    std::sort(order.begin(), order.end());
    std::vector<NodeNeed> needs;
    int remaining = want;
    for (const auto& [neg_free, ni] : order) {
      const int take = std::min(remaining, -neg_free);
      needs.push_back({ni, take});
      remaining -= take;
      if (remaining == 0) return needs;
    }
  }
  return std::nullopt;
}

// Where the job would go if `extra` GPUs were released: nodes and how many GPUs on each.
// Single-node jobs take the best-fitting node; bigger ones whole nodes, most free first, inside
// one domain of the topology when one holds them (and only there when the job requires it).
std::optional<std::vector<NodeNeed>> FitWith(const CycleContext& c, const Job& job,
                                             const std::vector<int>& groups,
                                             const std::unordered_map<int, int>& extra) {
  const int want = job.spec.gpus;
  int best = -1, best_free = 0;
  // The job did not fit before anything was released, so only released-on nodes can hold it.
  for (const auto& [ni, more] : extra) {
    const NodeState& n = c.s.cluster.node(ni);
    if (want > n.gpus) continue;
    const int f = n.whole_free + more;
    if (f >= want && (best < 0 || f < best_free || (f == best_free && ni < best))) {
      best = ni;
      best_free = f;
    }
  }
  if (best >= 0) return std::vector<NodeNeed>{{best, want}};
  // Several nodes: inside one block or rack first, as the placement goes (cycle_topology.cc).
  const ClusterState& cs = c.s.cluster;
  const TopologyRequest& asked = job.spec.topology;
  const bool required = asked.mode == TopologyMode::kRequired;
  int widest = -1;
  if (cs.TopologyLevels() > 0 && asked.mode != TopologyMode::kUnconstrained &&
      (required || c.s.policy.topology_aware)) {
    widest = required ? cs.spec().topology.LevelIndex(asked.level) : cs.TopologyLevels() - 1;
  }
  for (int level = 0; level <= widest; ++level) {
    std::vector<std::pair<int, int>> fits;  // (free once released, domain): fewest first
    for (size_t d = 0; d < cs.Domains(level).size(); ++d) {
      int free = 0;
      for (int ni : cs.Domains(level)[d]) free += FreeWith(c, extra, ni);
      if (free >= want) fits.emplace_back(free, static_cast<int>(d));
    }
    std::sort(fits.begin(), fits.end());
    for (const auto& [free, d] : fits) {
      if (auto needs = GreedyNeeds(c, groups, extra, want, &cs.NodeDomains(level), d)) return needs;
    }
  }
  if (required && widest >= 0) return std::nullopt;
  return GreedyNeeds(c, groups, extra, want, nullptr, -1);
}

// Without estimates nothing says when the job fits: hold the nodes closest to holding it
// (most free GPUs, lowest index first).
std::optional<std::vector<NodeNeed>> ClosestNodes(const CycleContext& c, const Job& job,
                                                  const std::vector<int>& groups) {
  const int want = job.spec.gpus;
  int best = -1, best_free = -1;
  for (int g : groups) {
    const NodeGroup& group = c.s.cluster.group(g);
    if (want > group.max_gpus_per_node) continue;
    for (int k = group.max_gpus_per_node; k > best_free && k >= 0; --k) {
      for (int ni : group.by_whole_free[k]) {
        if (c.s.cluster.node(ni).gpus < want) continue;
        if (k > best_free || ni < best) {
          best = ni;
          best_free = k;
        }
        break;
      }
    }
  }
  if (best >= 0) return std::vector<NodeNeed>{{best, want}};
  std::vector<std::pair<int, int>> order;  // (-free, node)
  for (int g : groups) {
    for (int ni : c.s.cluster.group(g).nodes) {
      order.push_back({-c.s.cluster.node(ni).whole_free, ni});
    }
  }
  std::sort(order.begin(), order.end());
  std::vector<NodeNeed> needs;
  int remaining = want;
  for (const auto& [neg_free, ni] : order) {
    const int take = std::min(remaining, c.s.cluster.node(ni).gpus);
    if (take <= 0) continue;
    needs.push_back({ni, take});
    remaining -= take;
    if (remaining == 0) return needs;
  }
  return std::nullopt;
}

// The running jobs in the groups with an expected end, soonest first.
std::vector<std::pair<Time, JobId>> ExpectedEnds(const CycleContext& c,
                                                 const std::vector<int>& groups,
                                                 const std::vector<bool>& in_groups) {
  std::vector<std::pair<Time, JobId>> ends;
  if (!c.s.policy.learned_estimates) {
    for (const auto& [end, id] : c.s.estimated_ends) {
      const Job& j = c.s.jobs.at(id);
      if (!j.placement.empty() && in_groups[c.s.cluster.node(j.placement.shares[0].node).group]) {
        ends.push_back({end, id});
      }
    }
    return ends;
  }
  for (int g : groups) {
    for (int ni : c.s.cluster.group(g).nodes) {
      for (JobId id : c.s.node_jobs[ni]) {
        const Job& j = c.s.jobs.at(id);
        if (j.state != JobState::kRunning || j.placement.shares[0].node != ni) continue;
        const Time end = c.ExpectedEnd(j);
        if (end != kNever) ends.push_back({end, id});
      }
    }
  }
  std::sort(ends.begin(), ends.end());
  return ends;
}

}  // namespace

std::optional<Reservation> ComputeReservation(const CycleContext& c, const Job& job) {
  if (job.spec.gpus <= 0 || !job.spec.WholeGpus()) return std::nullopt;
  const std::vector<int> groups = c.GroupsFor(job.spec);
  std::vector<bool> in_groups(c.s.cluster.groups().size(), false);
  for (int g : groups) in_groups[g] = true;

  std::unordered_map<int, int> extra;
  Reservation r;
  r.job = job.spec.id;
  r.scope = c.ScopeOf(job.spec);
  std::optional<std::vector<NodeNeed>> fit;
  for (const auto& [end, id] : ExpectedEnds(c, groups, in_groups)) {
    const Job& running = c.s.jobs.at(id);
    bool touched = false;
    for (const auto& share : running.placement.shares) {
      if (!in_groups[c.s.cluster.node(share.node).group]) continue;
      if (share.milli_per_gpu != kMilliPerGpu) continue;
      extra[share.node] += static_cast<int>(share.gpus.size());
      touched = true;
    }
    if (!touched) continue;
    fit = FitWith(c, job, groups, extra);
    if (fit) {
      r.shadow = std::max(end, c.now);
      break;
    }
  }
  if (!fit) {
    extra.clear();
    fit = ClosestNodes(c, job, groups);
    if (!fit) return std::nullopt;
    r.shadow = kNever;
  }
  for (const NodeNeed& n : *fit) {
    r.caps[n.node] = std::max(0, FreeWith(c, extra, n.node) - n.need);
  }
  return r;
}

}  // namespace squeeze
