#include "core/actions/actions.h"

namespace squeeze {
namespace {

// Whole GPUs of `pool` that other teams are guaranteed but do not use now.
int UnusedGuarantees(const CycleContext& c, int pool, const std::string& except_team) {
  int unused = 0;
  for (const auto& [team, quota] : c.s.cluster.spec().pools[pool].team_quota_gpus) {
    if (team == except_team) continue;
    auto it = c.s.team_pool_gpus.find({pool, team});
    const int used = it == c.s.team_pool_gpus.end() ? 0 : it->second;
    unused += std::max(0, quota - used);
  }
  return unused;
}

int PoolWholeFree(const CycleContext& c, int pool) {
  int free = 0;
  for (int g : c.s.cluster.PoolGroups(pool)) free += c.s.cluster.group(g).whole_free;
  return free;
}

}  // namespace

Admission AdmitToPool(const CycleContext& c, const Job& job, int pool) {
  if (job.home_pool >= 0 && job.home_pool != pool) return Admission::kBorrowed;
  if (c.WithinQuota(job.spec, pool)) return Admission::kOwn;
  if (job.spec.preemptible) return Admission::kBorrowed;
  if (PoolWholeFree(c, pool) - job.spec.gpus < UnusedGuarantees(c, pool, job.spec.team)) {
    return Admission::kRefused;
  }
  return Admission::kOwn;
}

std::optional<PoolPlacement> PlaceInPool(const CycleContext& c, const Job& job, int pool,
                                         const std::unordered_map<int, int>* caps) {
  const Admission admission = AdmitToPool(c, job, pool);
  if (admission == Admission::kRefused) return std::nullopt;
  auto placement = c.Place(job, c.GroupsFor(job.spec, pool), caps);
  if (!placement) return std::nullopt;
  return PoolPlacement{std::move(*placement), admission == Admission::kBorrowed};
}

std::optional<PoolPlacement> PlaceAtHome(const CycleContext& c, const Job& job,
                                         const std::unordered_map<int, int>* caps) {
  if (job.home_pool >= 0) return PlaceInPool(c, job, job.home_pool, caps);
  // Capacity that may be taken away is for the spot and colocate actions to give.
  bool any_firm = false;
  for (int pool = 0; pool < c.s.cluster.PoolCount(); ++pool) any_firm |= !Opportunistic(c.s, pool);
  for (int pool = 0; pool < c.s.cluster.PoolCount(); ++pool) {
    if (any_firm && Opportunistic(c.s, pool)) continue;
    if (auto p = PlaceInPool(c, job, pool, caps)) return p;
  }
  return std::nullopt;
}

void StartPlaced(CycleContext& c, JobId id, PoolPlacement placed, bool charge_caps) {
  StartOptions how;
  how.borrowed = placed.borrowed;
  how.charge_caps = charge_caps;
  Statement st(c);
  st.Start(id, std::move(placed.placement), how);
  st.Commit();
}

PendingQueue::TeamMeasure FairShareMeasure(const CycleContext& c) {
  if (!c.s.policy.fair_share) return nullptr;
  const EngineState* s = &c.s;
  return [s](const std::string& team) -> double {
    auto it = s->team_running_milli.find(team);
    return it == s->team_running_milli.end() ? 0.0 : static_cast<double>(it->second);
  };
}

}  // namespace squeeze
