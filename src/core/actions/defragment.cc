// The defrag action. When the first waiting job of a pool is blocked only by fragmentation
// (the free GPUs it may use add up to its demand, but no placement exists), it looks for
// checkpointable, preemptible jobs whose moving to other nodes lets the job fit, and moves
// them if the wait the job is expected to save outweighs what the moves lose. A move is a
// stop (checkpoint) now and, once the job has stopped, a start on GPUs held for it meanwhile;
// the blocked job claims the room as a preemptor does.
#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/actions/actions.h"
#include "core/reservation.h"

namespace squeeze {
namespace {

// The search stays small whatever the cluster: the cheapest movable jobs of a node, the best
// sets of them per node, and how many plans are checked against the cluster per blocked job.
constexpr int kMaxCandidatesPerNode = 8;
constexpr size_t kPlansPerNode = 2;
constexpr int kMaxPlansChecked = 16;

// Jobs to move and the nodes they make room on (where no moved job may go).
struct Plan {
  std::vector<JobId> movers;
  std::vector<int> targets;
  double cost = 0;  // GPU-seconds the moves lose: checkpoint, restart, work since the last save
  bool Before(const Plan& o) const {
    if (movers.size() != o.movers.size()) return movers.size() < o.movers.size();
    if (cost != o.cost) return cost < o.cost;
    if (targets != o.targets) return targets < o.targets;
    return movers < o.movers;
  }
};

struct Candidate {
  JobId id;
  int gpus;
  double cost;
};

bool Movable(const CycleContext& c, const Job& v) {
  return v.state == JobState::kRunning && v.spec.preemptible && v.spec.checkpointable &&
         v.spec.gpus > 0 && v.spec.WholeGpus() && v.placement.shares.size() == 1 &&
         c.now >= v.min_runtime_until &&
         v.MovesSince(c.now - kHour) < c.s.policy.defrag_max_moves_per_hour;
}

// The movable jobs on a node, cheapest first; `all` tells whether they are all its jobs.
std::vector<Candidate> Candidates(const CycleContext& c, int node, bool* all) {
  std::vector<Candidate> out;
  *all = true;
  for (JobId id : c.s.node_jobs[node]) {
    const Job& v = c.s.jobs.at(id);
    if (Movable(c, v)) out.push_back({id, v.spec.gpus, v.LostGpuSecondsIfStopped(c.now)});
    else *all = false;
  }
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    return a.cost != b.cost ? a.cost < b.cost : a.id < b.id;
  });
  if (out.size() > kMaxCandidatesPerNode) {
    out.resize(kMaxCandidatesPerNode);
    *all = false;
  }
  return out;
}

Plan Merge(Plan a, const Plan& b) {
  a.movers.insert(a.movers.end(), b.movers.begin(), b.movers.end());
  a.targets.insert(a.targets.end(), b.targets.begin(), b.targets.end());
  a.cost += b.cost;
  return a;
}

void SortPlans(std::vector<Plan>& plans) {
  std::sort(plans.begin(), plans.end(), [](const Plan& a, const Plan& b) { return a.Before(b); });
}

// The best sets of `cands` (jobs on `node`) whose moving frees `need` more GPUs there: no job
// in a set is needed for it, fewest jobs first, then least lost.
std::vector<Plan> PlansOnNode(int node, int need, const std::vector<Candidate>& cands) {
  const int n = static_cast<int>(cands.size());
  std::vector<int> gpus(1u << n, 0);
  std::vector<double> cost(1u << n, 0);
  std::vector<Plan> plans;
  for (unsigned mask = 1; mask < (1u << n); ++mask) {
    const int low = std::countr_zero(mask);
    gpus[mask] = gpus[mask & (mask - 1)] + cands[low].gpus;
    cost[mask] = cost[mask & (mask - 1)] + cands[low].cost;
    if (gpus[mask] < need) continue;
    bool minimal = true;
    for (int i = 0; i < n && minimal; ++i) {
      if ((mask >> i & 1u) && gpus[mask ^ (1u << i)] >= need) minimal = false;
    }
    if (!minimal) continue;
    Plan p;
    p.targets = {node};
    p.cost = cost[mask];
    for (int i = 0; i < n; ++i) {
      if (mask >> i & 1u) p.movers.push_back(cands[i].id);
    }
    plans.push_back(std::move(p));
  }
  SortPlans(plans);
  if (plans.size() > kPlansPerNode) plans.resize(kPlansPerNode);
  return plans;
}

// A job of one node's GPUs: free enough of one node.
void OneNodePlans(const CycleContext& c, int want, const NodeGroup& group,
                  std::vector<Plan>* out) {
  for (int ni : group.nodes) {
    const NodeState& n = c.s.cluster.node(ni);
    if (n.gpus < want || n.whole_free >= want) continue;
    bool all = false;
    const std::vector<Candidate> cands = Candidates(c, ni, &all);
    int movable = 0;
    for (const Candidate& cand : cands) movable += cand.gpus;
    if (n.whole_free + movable < want) continue;
    for (Plan& p : PlansOnNode(ni, want - n.whole_free, cands)) out->push_back(std::move(p));
  }
}

// A bigger job, placed on whole free nodes and its remainder on one more node: empty the
// nodes cheapest to empty, and free the remainder where that is cheapest (or empty one more).
void WholeNodePlans(const CycleContext& c, int want, const NodeGroup& group,
                    std::vector<Plan>* out) {
  const int per_node = group.max_gpus_per_node;
  const size_t full = static_cast<size_t>(want / per_node);
  const int rest = want % per_node;
  std::vector<Plan> empties;
  std::vector<std::pair<int, std::vector<Candidate>>> partial;  // nodes for the remainder
  for (int ni : group.nodes) {
    const NodeState& n = c.s.cluster.node(ni);
    bool all = false;
    std::vector<Candidate> cands = Candidates(c, ni, &all);
    if (n.gpus == per_node && all) {
      Plan p;
      p.targets = {ni};
      for (const Candidate& cand : cands) {
        p.movers.push_back(cand.id);
        p.cost += cand.cost;
      }
      empties.push_back(std::move(p));
    }
    if (rest > 0) partial.push_back({ni, std::move(cands)});
  }
  SortPlans(empties);
  if (empties.size() < full) return;
  Plan base;
  for (size_t i = 0; i < full; ++i) base = Merge(std::move(base), empties[i]);
  if (rest == 0) {
    out->push_back(std::move(base));
    return;
  }
  if (empties.size() > full) out->push_back(Merge(base, empties[full]));
  std::vector<Plan> remainders;
  for (const auto& [ni, cands] : partial) {
    if (std::find(base.targets.begin(), base.targets.end(), ni) != base.targets.end()) continue;
    const int free = c.s.cluster.node(ni).whole_free;
    if (free >= rest) {
      Plan p;
      p.targets = {ni};
      remainders.push_back(std::move(p));
      continue;
    }
    auto plans = PlansOnNode(ni, rest - free, cands);
    if (!plans.empty()) remainders.push_back(std::move(plans.front()));
  }
  SortPlans(remainders);
  if (!remainders.empty()) out->push_back(Merge(std::move(base), remainders.front()));
}

std::vector<Plan> Plans(const CycleContext& c, const Job& head) {
  std::vector<Plan> plans;
  const int want = head.spec.gpus;
  for (int g : c.GroupsFor(head.spec)) {
    const NodeGroup& group = c.s.cluster.group(g);
    if (group.whole_free < want && want > group.max_gpus_per_node) continue;
    if (want <= group.max_gpus_per_node) OneNodePlans(c, want, group, &plans);
    else WholeNodePlans(c, want, group, &plans);
  }
  plans.erase(std::remove_if(plans.begin(), plans.end(),
                             [](const Plan& p) { return p.movers.empty(); }),
              plans.end());
  SortPlans(plans);
  return plans;
}

// Carries out a plan in one statement: the jobs on its targets are asked to stop, each to
// restart on GPUs held for it elsewhere (never on a target), and the blocked job's nodes are
// held for it; committed only when every moved job finds its place and the blocked job then
// fits. Whether it was.
bool TryPlan(CycleContext& c, const Job& head, const Plan& plan, std::unordered_map<int, int> caps,
             const std::unordered_map<int, int>& head_caps, double gain) {
  for (int node : plan.targets) caps[node] = 0;
  std::vector<const Job*> movers;
  for (JobId id : plan.movers) movers.push_back(&c.job(id));
  std::sort(movers.begin(), movers.end(), [](const Job* a, const Job* b) {
    return a->spec.gpus != b->spec.gpus ? a->spec.gpus > b->spec.gpus : a->spec.id < b->spec.id;
  });
  const std::string why = "defrag: move to consolidate " + std::to_string(head.spec.gpus) +
                          " GPUs for job " + std::to_string(head.spec.id) + " (gain " +
                          std::to_string(std::llround(gain)) + " GPU-s > cost " +
                          std::to_string(std::llround(plan.cost)) + " GPU-s)";
  Statement st(c);
  for (const Job* v : movers) st.Evict(v->spec.id, why, StopKind::kOther, head.spec.id);
  for (const Job* v : movers) {
    const int pool = c.s.cluster.node(v->placement.shares[0].node).pool;
    auto to = c.Place(*v, c.GroupsFor(v->spec, pool), &caps);
    if (!to) return false;
    st.MoveTo(v->spec.id, std::move(*to), v->borrowed, MoveKind::kDefrag);
  }
  auto placed = PlaceAtHome(c, head, &head_caps);
  if (!placed) return false;
  std::vector<int> nodes;
  for (const NodeShare& share : placed->placement.shares) nodes.push_back(share.node);
  st.HoldNodes(head.spec.id, nodes);
  st.Commit();
  return true;
}

void MakeRoom(CycleContext& c, const Job& head) {
  const JobSpec& spec = head.spec;
  if (spec.gpus <= 0 || !spec.WholeGpus()) return;
  int free = 0;
  for (int g : c.GroupsFor(spec)) free += c.s.cluster.group(g).whole_free;
  if (free < spec.gpus) return;  // short of GPUs, not fragmented
  const auto head_caps = c.CapsExcept(spec.id, false);
  if (PlaceAtHome(c, head, &head_caps)) return;  // it fits: what holds it back is not fragmentation
  auto reservation = ComputeReservation(c, head);
  if (!reservation || reservation->shadow == kNever) return;  // no telling what it would save
  const std::vector<Plan> plans = Plans(c, head);
  if (plans.empty()) return;
  const auto mover_caps = c.CapsExcept(spec.id, true);
  int checked = 0;
  for (const Plan& plan : plans) {
    Time checkpoint = 0;
    for (JobId id : plan.movers) {
      checkpoint = std::max(checkpoint, c.s.jobs.at(id).spec.checkpoint_cost);
    }
    // GPU-seconds, as the plan's cost (Job::LostGpuSecondsIfStopped).
    const double gain = ToSeconds(reservation->shadow - c.now - checkpoint) *
                        static_cast<double>(spec.TotalMilli()) / kMilliPerGpu;
    if (gain <= plan.cost) continue;
    if (++checked > kMaxPlansChecked) return;
    if (TryPlan(c, head, plan, mover_caps, head_caps, gain)) return;
  }
}

bool AnyPreemptibleRunning(const CycleContext& c) {
  for (int n : c.s.running_preemptible_by_band) {
    if (n > 0) return true;
  }
  return false;
}

}  // namespace

void RunDefrag(CycleContext& c) {
  if (c.s.policy.defrag_max_moves_per_hour <= 0 || !AnyPreemptibleRunning(c)) return;
  c.s.pending.Walk(
      [&](const QueuePosition& p) {
        const Job& head = c.job(p.entry.id);
        if (!c.s.awaiting_stops.count(head.spec.id)) MakeRoom(c, head);
        return PendingQueue::Visit::kSkipScope;
      },
      FairShareMeasure(c));
}

void ResumeMoves(CycleContext& c) {
  std::vector<JobId> stopped;
  for (const auto& [id, move] : c.s.moves) {
    if (c.job(id).state == JobState::kPending) stopped.push_back(id);
  }
  for (JobId id : stopped) {
    Statement st(c);
    st.ResumeMove(id);
    st.Commit();
  }
  c.FlushStarted();
  for (const auto& [job, nodes] : c.s.defrag_holds) {
    for (int node : nodes) c.caps[node] = 0;
  }
}

}  // namespace squeeze
