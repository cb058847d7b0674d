// Capacity that can be taken away: spot nodes their provider reclaims, colocated GPUs that
// inference needs back. The scheduler holds what is taken, asks the jobs on it to leave by
// the next cycle, and learns how often each pool's capacity is taken.
#include <algorithm>
#include <set>
#include <cstdio>

#include "core/duration.h"
#include "core/idle_forecast.h"
#include "core/scheduler.h"

namespace squeeze {
namespace {


EngineState::TakeStats* ModelStats(EngineState& s, int node) {
  const int pool = s.cluster.node(node).pool;
  return &s.model_takes[{pool, s.cluster.spec().nodes[node].gpu_model}];
}

// A unit (spot node, colocated GPU) starts or stops counting time in service.
void PutInService(EngineState& s, int node, int64_t key, Time now) {
  if (!s.in_service_since.emplace(key, now).second) return;
  const int pool = s.cluster.node(node).pool;
  for (EngineState::TakeStats* st : {&s.pool_takes[pool], ModelStats(s, node)}) {
    ++st->in_service;
    st->in_service_since_sum += ToSeconds(now);
  }
}

void TakeOutOfService(EngineState& s, int node, int64_t key, Time now) {
  auto it = s.in_service_since.find(key);
  if (it == s.in_service_since.end()) return;
  const int pool = s.cluster.node(node).pool;
  for (EngineState::TakeStats* st : {&s.pool_takes[pool], ModelStats(s, node)}) {
    --st->in_service;
    st->in_service_since_sum -= ToSeconds(it->second);
    st->exposure_s += ToSeconds(now - it->second);
    ++st->taken;
  }
  s.in_service_since.erase(it);
}

// Asks every active job with a GPU in `gpus` of `node` (all when empty) to leave by `by`.
void Withdraw(EngineState& s, int node, uint64_t gpus, Time by, const std::string& why) {
  for (JobId id : s.node_jobs[node]) {
    Job& job = s.jobs.at(id);
    bool hit = gpus == 0;
    for (const auto& share : job.placement.shares) {
      if (share.node != node) continue;
      for (int g : share.gpus) hit = hit || (g < 64 && (gpus >> g & 1));
    }
    if (!hit) continue;
    job.must_leave_by = std::min(job.must_leave_by, by);
    if (job.state == JobState::kRunning) s.withdrawn.emplace(id, why);
  }
}

}  // namespace

void StartServiceClocks(EngineState& s, Time now) {
  if (s.takes_started) return;
  s.takes_started = true;
  for (size_t n = 0; n < s.cluster.nodes().size(); ++n) {
    const int node = static_cast<int>(n);
    const PoolKind kind = s.cluster.spec().pools[s.cluster.node(node).pool].kind;
    if (kind == PoolKind::kSpot && !s.reported_down.count(node)) PutInService(s, node, node, now);
    if (kind != PoolKind::kColocated) continue;
    const uint64_t closed = s.closed_gpus.count(node) ? s.closed_gpus.at(node) : 0;
    for (int g = 0; g < s.cluster.node(node).gpus && g < 64; ++g) {
      if (!(closed >> g & 1)) PutInService(s, node, ColocatedGpuKey(node, g), now);
    }
  }
}

Status Scheduler::Reclaimed(int node, Time now, Time warning, bool stop_jobs) {
  EngineState& s = *state_;
  if (node < 0 || node >= static_cast<int>(s.cluster.nodes().size())) {
    return Status::Error("node " + std::to_string(node) + " is not in the cluster");
  }
  if (warning < 0) {
    return Status::Error("reclaim warning " + std::to_string(WholeSeconds(warning)) +
                         " is negative");
  }
  StartServiceClocks(s, now);
  const std::string& name = s.cluster.spec().nodes[node].name;
  ++s.counters.reclaims;
  TakeOutOfService(s, node, node, now);
  auto& recent = s.recent_takes.try_emplace(node).first->second;
  recent.push_back(now);
  const Policy& p = s.policy;
  recent.erase(recent.begin(), std::lower_bound(recent.begin(), recent.end(),
                                                now - p.spot_flaky_window + 1));
  if (p.spot_aware && p.spot_flaky_reclaims > 0 &&
      static_cast<int>(recent.size()) >= p.spot_flaky_reclaims) {
    s.banned_until[node] = now + p.spot_flaky_cooldown;
  }
  s.reported_down.insert(node);
  RefreshAvailability(s, node);
  if (!stop_jobs) return Status::Ok();
  Withdraw(s, node, 0, now + warning,
           "spot reclaim: node " + name + " is taken back in " + FormatDuration(warning));
  return Status::Ok();
}

Status Scheduler::Returned(int node, Time now) {
  EngineState& s = *state_;
  if (Status st = SetNodeAvailable(node, true); !st.ok()) return st;
  StartServiceClocks(s, now);
  if (s.cluster.spec().pools[s.cluster.node(node).pool].kind == PoolKind::kSpot) {
    PutInService(s, node, node, now);
  }
  return Status::Ok();
}

Status Scheduler::SetInferenceLoad(int node, int gpu, double load, Time now) {
  EngineState& s = *state_;
  if (node < 0 || node >= static_cast<int>(s.cluster.nodes().size())) {
    return Status::Error("node " + std::to_string(node) + " is not in the cluster");
  }
  const std::string& name = s.cluster.spec().nodes[node].name;
  const PoolSpec& pool = s.cluster.spec().pools[s.cluster.node(node).pool];
  if (pool.kind != PoolKind::kColocated) {
    return Status::Error("node " + name + " is in pool " + pool.name +
                         ", which is not colocated (kind: colocated)");
  }
  if (gpu < 0 || gpu >= s.cluster.node(node).gpus || gpu >= 64) {
    return Status::Error("node " + name + " has no GPU " + std::to_string(gpu));
  }
  if (!(load >= 0 && load <= 1)) {
    return Status::Error("inference load " + std::to_string(load) + " is not in [0, 1]");
  }
  StartServiceClocks(s, now);
  s.inference_load[{node, gpu}] = load;
  const int64_t key = ColocatedGpuKey(node, gpu);
  s.load_known_since.emplace(key, now);
  const double threshold = 1 - pool.colocation.cap;
  const uint64_t bit = uint64_t{1} << gpu;
  uint64_t& closed = s.closed_gpus[node];
  const bool was_closed = closed & bit;
  if (load > threshold + 1e-9) {
    if (!was_closed) {
      closed |= bit;
      if (auto open = s.in_service_since.find(key); open != s.in_service_since.end()) {
        RecordOpenPeriod(s, key, open->second, now);
      }
      TakeOutOfService(s, node, key, now);
      HoldClosed(s, node);
      char why[160];
      std::snprintf(why, sizeof why,
                    "inference needs GPU %d of node %s (load %.0f%% > %.0f%%): leave within %s",
                    gpu, name.c_str(), load * 100, threshold * 100,
                    FormatDuration(pool.colocation.evict_within).c_str());
      const size_t before = s.withdrawn.size();
      Withdraw(s, node, bit, now + pool.colocation.evict_within, why);
      s.counters.inference_evictions += static_cast<int64_t>(s.withdrawn.size() - before);
    }
  } else if (was_closed) {
    closed &= ~bit;
    auto held = s.closed_hold.find(node);
    if (held != s.closed_hold.end()) {
      Placement release = std::move(held->second);
      s.closed_hold.erase(held);
      s.cluster.Release(release);
    }
    HoldClosed(s, node);
    if (s.unavailable.count(node)) HoldUnavailable(s, node);
    PutInService(s, node, key, now);
  }
  if (closed == 0) s.closed_gpus.erase(node);
  return Status::Ok();
}

std::optional<Time> Scheduler::PredictedIdleWindow(int node, int gpu, Time now) const {
  return PredictedOpenFor(*state_, ColocatedGpuKey(node, gpu), now);
}

double Scheduler::MeanTimeBetweenTakes(int pool, const std::string& model, Time now) const {
  const EngineState& s = *state_;
  if (pool < 0 || pool >= static_cast<int>(s.pool_takes.size())) return 0;
  const PoolSpec& spec = s.cluster.spec().pools[pool];
  if (spec.kind != PoolKind::kSpot && spec.kind != PoolKind::kColocated) return 0;
  return squeeze::MeanTimeBetweenTakes(s, pool, model, now);
}

double Scheduler::InferenceLoad(int node, int gpu) const {
  auto it = state_->inference_load.find({node, gpu});
  return it == state_->inference_load.end() ? -1 : it->second;
}

double PlacementTimeBetweenTakes(const EngineState& s, int pool, const Placement& placement,
                                 Time now) {
  std::set<int> nodes;
  int gpus = 0;
  for (const auto& share : placement.shares) {
    nodes.insert(share.node);
    gpus += static_cast<int>(share.gpus.size());
  }
  const std::string& model = placement.shares.empty()
                                 ? std::string()
                                 : s.cluster.spec().nodes[placement.shares[0].node].gpu_model;
  const int units = s.cluster.spec().pools[pool].kind == PoolKind::kSpot
                        ? static_cast<int>(nodes.size())
                        : std::max(1, gpus);
  return MeanTimeBetweenTakes(s, pool, model, now) / units;
}

double MeanTimeBetweenTakes(const EngineState& s, int pool, const std::string& model, Time now) {
  const PoolSpec& spec = s.cluster.spec().pools[pool];
  // Before any experience: the configured mean for spot, else a cautious 6 h (spot) or 1 h
  // (colocated) per unit. In seconds, as the exposure.
  double prior = spec.kind == PoolKind::kSpot ? 6 * 3600.0 : 3600.0;
  if (spec.kind == PoolKind::kSpot && spec.spot.mean_reclaim_interval > 0) {
    prior = ToSeconds(spec.spot.mean_reclaim_interval);
  }
  const EngineState::TakeStats* st = &s.pool_takes[pool];
  if (!model.empty()) {
    auto it = s.model_takes.find({pool, model});
    if (it != s.model_takes.end() && it->second.taken > 0) st = &it->second;
  }
  return (st->ExposureAt(now) + prior) / static_cast<double>(st->taken + 1);
}

}  // namespace squeeze
