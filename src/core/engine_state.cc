#include "core/engine_state.h"

#include <algorithm>

namespace squeeze {

int BaseBand(const Policy& policy, const Job& job) {
  const int urgency = policy.priority ? static_cast<int>(job.spec.urgency) : 0;
  return urgency * 2 + (job.boosted ? 1 : 0);
}

void IndexRunning(EngineState& s, const Job& job) {
  if (job.slice_end != kNever) s.slice_ends.insert({job.slice_end, job.spec.id});
  if (job.spec.estimate) s.estimated_ends.insert({job.EstimatedEnd(), job.spec.id});
  if (job.spec.preemptible) {
    const int band = BaseBand(s.policy, job);
    if (static_cast<int>(s.running_preemptible_by_band.size()) <= band) {
      s.running_preemptible_by_band.resize(band + 1, 0);
    }
    ++s.running_preemptible_by_band[band];
  }
}

void UnindexRunning(EngineState& s, const Job& job) {
  if (job.slice_end != kNever) s.slice_ends.erase({job.slice_end, job.spec.id});
  if (job.spec.estimate) s.estimated_ends.erase({job.EstimatedEnd(), job.spec.id});
  if (job.spec.preemptible) --s.running_preemptible_by_band[BaseBand(s.policy, job)];
}

void HoldCapacity(EngineState& s, const Job& job) {
  s.cluster.Allocate(job.placement);
  for (const auto& share : job.placement.shares) {
    s.node_jobs[share.node].push_back(job.spec.id);
    const int pool = s.cluster.node(share.node).pool;
    s.team_pool_gpus[{pool, job.spec.team}] += static_cast<int>(share.gpus.size());
  }
  s.team_running_milli[job.spec.team] += job.spec.TotalMilli();
}

void ReleaseCapacity(EngineState& s, const Job& job) {
  s.cluster.Release(job.placement);
  for (const auto& share : job.placement.shares) {
    auto& on_node = s.node_jobs[share.node];
    on_node.erase(std::find(on_node.begin(), on_node.end(), job.spec.id));
    const int pool = s.cluster.node(share.node).pool;
    s.team_pool_gpus[{pool, job.spec.team}] -= static_cast<int>(share.gpus.size());
  }
  s.team_running_milli[job.spec.team] -= job.spec.TotalMilli();
}

void DropMove(EngineState& s, JobId id) {
  auto it = s.moves.find(id);
  if (it == s.moves.end()) return;
  s.cluster.Release(it->second.to);
  s.moves.erase(it);
}

}  // namespace squeeze
