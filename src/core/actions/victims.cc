#include <algorithm>

#include "core/actions/actions.h"

namespace squeeze {
namespace {

struct Candidate {
  double cost;
  Time at_risk;  // work since its last checkpoint, where the driver reports them (else 0)
  JobId id;
  int frees;  // GPUs (or milli, for a fractional job) it frees where it matters
  bool operator<(const Candidate& o) const {
    if (cost != o.cost) return cost < o.cost;
    return at_risk != o.at_risk ? at_risk < o.at_risk : id < o.id;
  }
};

struct NodePlan {
  double cost = 0;
  std::vector<JobId> victims;
};

// What a victim costs, lowest first: the GPU-seconds of work it loses (least_lost), or, in
// Kueue's and Volcano's order (priority_newest), its urgency class and then how recently it
// started (the newest first), as one number that sums over a node's victims.
double VictimCost(const CycleContext& c, const Job& v) {
  if (c.s.policy.victim_order == "priority_newest") {
    constexpr double kClassWeight = 1e12;  // more seconds than any trace's span or unix time
    return static_cast<double>(c.BandOf(v)) * kClassWeight - ToSeconds(v.run_start);
  }
  return v.LostGpuSecondsIfStopped(c.now);
}

// What stopping `v` frees on GPU `gpu` of `node` (milli), or whole GPUs on the node (gpu < 0).
int Frees(const CycleContext& c, const Job& v, int node, int gpu) {
  const NodeState& n = c.s.cluster.node(node);
  int freed = 0;
  for (const auto& share : v.placement.shares) {
    if (share.node != node) continue;
    for (int g : share.gpus) {
      if (gpu >= 0) {
        if (g == gpu) freed += share.milli_per_gpu;
      } else if (n.free_milli[g] + share.milli_per_gpu == kMilliPerGpu) {
        ++freed;
      }
    }
  }
  return freed;
}

// The cheapest victims on `node` (and GPU `gpu`, for a fractional job) that free `need` more.
std::optional<NodePlan> PlanOnNode(const CycleContext& c, int node, int gpu, int need,
                                   const std::function<bool(const Job&)>& eligible) {
  std::vector<Candidate> cands;
  for (JobId id : c.s.node_jobs[node]) {
    const Job& v = c.s.jobs.at(id);
    if (v.state != JobState::kRunning || !eligible(v)) continue;
    const int frees = Frees(c, v, node, gpu);
    if (frees > 0) {
      cands.push_back({VictimCost(c, v),
                       v.UncheckpointedSeconds(c.now, c.s.checkpoints_reported), id, frees});
    }
  }
  std::sort(cands.begin(), cands.end());
  NodePlan plan;
  for (const Candidate& cand : cands) {
    if (need <= 0) break;
    plan.cost += cand.cost;
    plan.victims.push_back(cand.id);
    need -= cand.frees;
  }
  if (need > 0) return std::nullopt;
  return plan;
}

std::vector<JobId> VictimsForWholeNodes(const CycleContext& c, const Job& job,
                                        const std::vector<int>& groups,
                                        const std::function<bool(const Job&)>& eligible) {
  std::vector<std::pair<NodePlan, int>> plans;  // whole free node plans with their GPU count
  for (int g : groups) {
    for (int ni : c.s.cluster.group(g).nodes) {
      const NodeState& n = c.s.cluster.node(ni);
      if (auto plan = PlanOnNode(c, ni, -1, n.gpus - n.whole_free, eligible)) {
        plans.push_back({std::move(*plan), n.gpus});
      }
    }
  }
  std::stable_sort(plans.begin(), plans.end(), [](const auto& a, const auto& b) {
    return a.first.cost < b.first.cost;
  });
  std::vector<JobId> victims;
  int have = 0;
  for (const auto& [plan, gpus] : plans) {
    if (have >= job.spec.gpus) break;
    victims.insert(victims.end(), plan.victims.begin(), plan.victims.end());
    have += gpus;
  }
  if (have < job.spec.gpus) return {};
  std::sort(victims.begin(), victims.end());
  victims.erase(std::unique(victims.begin(), victims.end()), victims.end());
  return victims;
}

}  // namespace

std::vector<std::vector<JobId>> VictimSets(const CycleContext& c, const Job& job,
                                           const std::vector<int>& groups,
                                           const std::function<bool(const Job&)>& eligible,
                                           size_t max) {
  const JobSpec& spec = job.spec;
  if (spec.gpus <= 0 || max == 0) return {};
  std::vector<NodePlan> plans;
  bool single_node_possible = false;
  for (int g : groups) {
    const NodeGroup& group = c.s.cluster.group(g);
    for (int ni : group.nodes) {
      const NodeState& n = c.s.cluster.node(ni);
      if (!spec.WholeGpus()) {
        for (int k = 0; k < n.gpus; ++k) {
          if (n.free_milli[k] >= spec.gpu_milli) return {};
          single_node_possible = true;
          auto plan = PlanOnNode(c, ni, k, spec.gpu_milli - n.free_milli[k], eligible);
          if (plan) plans.push_back(std::move(*plan));
        }
        continue;
      }
      if (n.gpus < spec.gpus) continue;
      single_node_possible = true;
      if (n.whole_free >= spec.gpus) return {};
      auto plan = PlanOnNode(c, ni, -1, spec.gpus - n.whole_free, eligible);
      if (plan) plans.push_back(std::move(*plan));
    }
  }
  if (!single_node_possible) {
    std::vector<JobId> victims = VictimsForWholeNodes(c, job, groups, eligible);
    if (victims.empty()) return {};
    return {std::move(victims)};
  }
  // Cheapest first; among equals, the node found first.
  std::stable_sort(plans.begin(), plans.end(), [](const NodePlan& a, const NodePlan& b) {
    if (a.cost != b.cost) return a.cost < b.cost;
    return a.victims.size() < b.victims.size();
  });
  std::vector<std::vector<JobId>> out;
  for (NodePlan& plan : plans) {
    if (out.size() >= max) break;
    out.push_back(std::move(plan.victims));
  }
  return out;
}

std::vector<JobId> EvictFor(CycleContext& c, const Job& job, int pool,
                            const std::vector<std::vector<JobId>>& sets,
                            const std::unordered_map<int, int>& caps, const std::string& why,
                            StopKind kind) {
  const std::string reason = why + " " + std::to_string(job.spec.id);
  for (const std::vector<JobId>& victims : sets) {
    Statement st(c);
    for (JobId v : victims) st.Evict(v, reason, kind, job.spec.id);
    auto placed = pool < 0 ? PlaceAtHome(c, job, &caps) : PlaceInPool(c, job, pool, &caps);
    if (placed) {
      st.Pipeline(job.spec.id, std::move(placed->placement), placed->borrowed);
      st.Commit();
      return victims;
    }
    st.Discard();
  }
  return {};
}

}  // namespace squeeze
