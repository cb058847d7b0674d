#include "core/engine_state.h"

#include <algorithm>
#include <map>

namespace squeeze {
namespace {

// The free capacity of a node's GPUs in `gpus` (a bit per GPU; GPUs past 64 count when bit 63
// is set), by how much of each is free; with its free CPU and memory when asked.
Placement FreeOnNode(const EngineState& s, int node, uint64_t gpus, bool with_cpu_memory) {
  const NodeState& n = s.cluster.node(node);
  std::map<int, std::vector<int>> by_milli;  // free milli -> GPUs with that much free
  for (int g = 0; g < n.gpus; ++g) {
    if ((gpus >> std::min(g, 63) & 1) && n.free_milli[g] > 0) by_milli[n.free_milli[g]].push_back(g);
  }
  Placement take;
  for (auto& [milli, list] : by_milli) {
    NodeShare share;
    share.node = node;
    share.gpus = std::move(list);
    share.milli_per_gpu = milli;
    take.shares.push_back(std::move(share));
  }
  const int64_t cpu = with_cpu_memory && n.cpu_tracked ? n.cpu_free : 0;
  const int64_t memory = with_cpu_memory && n.memory_tracked ? n.memory_free : 0;
  if (cpu > 0 || memory > 0) {
    if (take.shares.empty()) take.shares.push_back(NodeShare{node, {}, kMilliPerGpu, 0, 0});
    take.shares.front().cpu_milli = cpu;
    take.shares.front().memory_mib = memory;
  }
  return take;
}

// Adds `delta` to a count kept only while it is not zero, so that holding and releasing the
// same capacity leaves the map as it was.
template <typename Map, typename Key>
void AddCount(Map& counts, const Key& key, int64_t delta) {
  if (delta == 0) return;
  auto it = counts.try_emplace(key, 0).first;
  it->second += static_cast<typename Map::mapped_type>(delta);
  if (it->second == 0) counts.erase(it);
}

}  // namespace

int BaseBand(const Policy& policy, const Job& job) {
  const int urgency = policy.priority ? static_cast<int>(job.spec.urgency) : 0;
  const int band = urgency * 2 + (job.boosted ? 1 : 0);
  return policy.held_idle_yields && job.held_idle ? std::max(0, band - 2) : band;
}

void IndexRunning(EngineState& s, const Job& job) {
  if (job.slice_end != kNever) s.slice_ends.insert({job.slice_end, job.spec.id});
  if (job.spec.estimate || job.spec.time_limit) {
    s.estimated_ends.insert({job.EstimatedEnd(), job.spec.id});
  }
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
  if (job.spec.estimate || job.spec.time_limit) {
    s.estimated_ends.erase({job.EstimatedEnd(), job.spec.id});
  }
  if (job.spec.preemptible) --s.running_preemptible_by_band[BaseBand(s.policy, job)];
}

void HoldCapacity(EngineState& s, const Job& job) {
  s.cluster.Allocate(job.placement);
  for (const auto& share : job.placement.shares) {
    s.node_jobs[share.node].push_back(job.spec.id);
    const int pool = s.cluster.node(share.node).pool;
    AddCount(s.team_pool_gpus, std::make_pair(pool, job.spec.team),
             static_cast<int64_t>(share.gpus.size()));
  }
  AddCount(s.team_running_milli, job.spec.team, job.spec.TotalMilli());
}

EngineState::EngineState(const ClusterSpec& spec, Policy p)
    : policy(std::move(p)), cluster(spec) {
  for (const PoolSpec& pool : spec.pools) {
    auto it = std::find(regions.begin(), regions.end(), pool.region);
    if (it == regions.end()) it = regions.insert(regions.end(), pool.region);
    pool_region.push_back(static_cast<int>(it - regions.begin()));
  }
}

uint64_t HomeRegionBit(const EngineState& s, const Job& job) {
  if (job.home_pool < 0) return 0;
  const int region = s.pool_region[job.home_pool];
  return region < 64 ? uint64_t{1} << region : 0;
}

void ReleasePlacement(EngineState& s, const Placement& placement) {
  s.cluster.Release(placement);
  for (const auto& share : placement.shares) {
    if (s.unavailable.count(share.node)) HoldUnavailable(s, share.node);
    else if (HeldGpuMask(s, share.node) != 0) HoldClosed(s, share.node);
  }
}

uint64_t HeldGpuMask(const EngineState& s, int node) {
  const auto closed = s.closed_gpus.find(node);
  const auto foreign = s.foreign_gpus.find(node);
  return (closed == s.closed_gpus.end() ? 0 : closed->second) |
         (foreign == s.foreign_gpus.end() ? 0 : foreign->second);
}

void HoldClosed(EngineState& s, int node) {
  const uint64_t mask = HeldGpuMask(s, node);
  if (mask == 0) return;
  Placement take = FreeOnNode(s, node, mask, /*with_cpu_memory=*/false);
  if (take.empty()) return;
  s.cluster.Allocate(take);
  auto& held = s.closed_hold[node].shares;
  held.insert(held.end(), take.shares.begin(), take.shares.end());
}

bool Opportunistic(const EngineState& s, int pool) {
  const PoolKind kind = s.cluster.spec().pools[pool].kind;
  return kind == PoolKind::kSpot || kind == PoolKind::kColocated;
}

void RefreshAvailability(EngineState& s, int node) {
  const bool down = s.reported_down.count(node) || s.banned_until.count(node);
  auto it = s.unavailable.find(node);
  if (down && it == s.unavailable.end()) {
    s.unavailable[node];
    HoldUnavailable(s, node);
  } else if (!down && it != s.unavailable.end()) {
    Placement held = std::move(it->second);
    s.unavailable.erase(it);
    s.cluster.Release(held);
    HoldClosed(s, node);
  }
}

void HoldUnavailable(EngineState& s, int node) {
  Placement take = FreeOnNode(s, node, ~uint64_t{0}, /*with_cpu_memory=*/true);
  if (take.empty()) return;
  s.cluster.Allocate(take);
  auto& held = s.unavailable[node].shares;
  held.insert(held.end(), take.shares.begin(), take.shares.end());
}

void ReleaseCapacity(EngineState& s, const Job& job) {
  ReleasePlacement(s, job.placement);
  UncountHold(s, job);
}

void UncountHold(EngineState& s, const Job& job) {
  for (auto share = job.placement.shares.rbegin(); share != job.placement.shares.rend(); ++share) {
    auto& on_node = s.node_jobs[share->node];
    on_node.erase(std::find(on_node.rbegin(), on_node.rend(), job.spec.id).base() - 1);
    const int pool = s.cluster.node(share->node).pool;
    AddCount(s.team_pool_gpus, std::make_pair(pool, job.spec.team),
             -static_cast<int64_t>(share->gpus.size()));
  }
  AddCount(s.team_running_milli, job.spec.team, -job.spec.TotalMilli());
}

void DropMove(EngineState& s, JobId id) {
  auto it = s.moves.find(id);
  if (it == s.moves.end()) return;
  ReleasePlacement(s, it->second.held);
  s.moves.erase(it);
}

}  // namespace squeeze
