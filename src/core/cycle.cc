#include "core/cycle.h"

#include <algorithm>

#include "core/hardware.h"
#include "core/topology.h"
#include "core/plugins/placement_search.h"

namespace squeeze {

int CycleContext::ScopeOf(const JobSpec& spec) const {
  const int pool = s.jobs.count(spec.id) ? s.jobs.at(spec.id).home_pool : -1;
  return pool >= 0 ? pool : AnyScope();
}

const std::vector<int>& CycleContext::GroupsFor(const JobSpec& spec, int pool) const {
  if (pool < 0) pool = s.jobs.count(spec.id) ? s.jobs.at(spec.id).home_pool : -1;
  const bool plain = spec.gpu_models.empty() && spec.min_gpu_memory_mib == 0 &&
                     spec.regions.empty();
  auto& cache = plain ? pool_groups_cache_ : job_groups_cache_[spec.id];
  auto it = cache.find(pool);
  if (it == cache.end()) it = cache.emplace(pool, ComputeGroups(spec, pool)).first;
  return it->second;
}

bool CycleContext::ScopeHasFreeGpus(int scope) const {
  auto pool_free = [&](int pool) {
    for (int g : s.cluster.PoolGroups(pool)) {
      if (s.cluster.group(g).free_milli > 0) return true;
    }
    return false;
  };
  if (scope < AnyScope()) return pool_free(scope);
  return s.cluster.FreeMilli() > 0;
}

std::vector<int> CycleContext::ComputeGroups(const JobSpec& spec, int pool) const {
  std::vector<int> out;
  auto add_pool = [&](int p) {
    const PoolSpec& ps = s.cluster.spec().pools[p];
    if (!spec.regions.empty() &&
        std::find(spec.regions.begin(), spec.regions.end(), ps.region) == spec.regions.end()) {
      return;
    }
    for (int g : s.cluster.PoolGroups(p)) {
      const NodeGroup& group = s.cluster.group(g);
      if (!spec.gpu_models.empty() &&
          std::find(spec.gpu_models.begin(), spec.gpu_models.end(), group.gpu_model) ==
              spec.gpu_models.end()) {
        continue;
      }
      if (spec.min_gpu_memory_mib > group.gpu_memory_mib) continue;
      out.push_back(g);
    }
  };
  if (pool >= 0) {
    add_pool(pool);
  } else {
    // A job of no pool runs anywhere but on capacity that may be taken away (spot, colocated),
    // which only the spot and colocate actions give, unless the cluster has nothing else.
    bool any_firm = false;
    for (int p = 0; p < s.cluster.PoolCount(); ++p) any_firm = any_firm || !Opportunistic(s, p);
    for (int p = 0; p < s.cluster.PoolCount(); ++p) {
      if (!any_firm || !Opportunistic(s, p)) add_pool(p);
    }
  }
  return out;
}

bool CycleContext::WithinQuota(const JobSpec& spec, int pool) const {
  const auto& quotas = s.cluster.spec().pools[pool].team_quota_gpus;
  if (quotas.empty()) return true;
  auto q = quotas.find(spec.team);
  if (q == quotas.end()) return false;
  auto used = s.team_pool_gpus.find({pool, spec.team});
  const int in_use = used == s.team_pool_gpus.end() ? 0 : used->second;
  return in_use + spec.gpus <= q->second;
}

std::optional<Placement> CycleContext::Place(const Job& job, const std::vector<int>& groups,
                                             const std::unordered_map<int, int>* caps) const {
  if (groups.empty()) return std::nullopt;
  if (job.spec.gpus > 0) {
    int64_t free = 0;
    for (int g : groups) free += s.cluster.group(g).free_milli;
    if (free < job.spec.TotalMilli()) return std::nullopt;
  }
  PlaceRequest req;
  req.job = &job.spec;
  req.node_gpu_cap = caps != nullptr && !caps->empty() ? caps : nullptr;
  std::optional<Placement> p;
  if (s.policy.hardware_aware && !s.cluster.OneCardKind() &&
      !OneCardKind(s.cluster, job.spec, groups)) {
    bool held = false;
    p = PlaceByHardware(job, groups, req, &held);
    if (held) return std::nullopt;
  }
  // For a job no one kind of card holds, all of them together (a gang goes at its slowest
  // card's pace).
  if (!p) {
    req.groups = groups;
    p = s.node_order->Place(req, s.cluster);
  }
  // A Slurm pool runs a job of several nodes with the same GPUs on each (--nodes=K
  // --gres=gpu:G): another shape is placed again in that one.
  const PoolSpec& pool = s.cluster.spec().pools[s.cluster.group(groups.front()).pool];
  const bool even = pool.backend == "slurm";
  if (p && even && !EvenShares(*p)) p = PlaceEvenly(req, s.cluster);
  // Several nodes: inside one block or rack when it can (cycle_topology.cc).
  if (p && s.cluster.TopologyLevels() > 0) p = PlaceInTopology(job, req, std::move(p), even);
  if (p && !even && pool.one_node_jobs && p->shares.size() > 1) return std::nullopt;
  return p;
}

// Progress per second of a run on its placement, in thousandths: a colocated pool's training
// speed, times the share of time left by periodic checkpoints (interval / (interval + pause),
// the pause being the checkpoint's cost, or its stall when asynchronous).
int RunSpeedMilli(const EngineState& s, const Job& job) {
  double speed = 1;
  for (const auto& share : job.placement.shares) {
    const PoolSpec& pool = s.cluster.spec().pools[s.cluster.node(share.node).pool];
    if (pool.kind == PoolKind::kColocated) speed = std::min(speed, pool.colocation.TrainingSpeed());
  }
  const Time interval = job.CheckpointInterval();
  const Time pause = PeriodicCheckpointStall(job.spec);
  if (interval > 0 && pause > 0) {
    speed *= static_cast<double>(interval) / static_cast<double>(interval + pause);
  }
  // The cards it runs on (the slowest sets a gang's pace): at the job's own speeds where they
  // count (the simulator), else at the cluster's (a live queue: a user's claim steers cards
  // only); and the links between its nodes.
  speed *= s.job_speeds_count ? JobSpeedOn(job.spec, s.cluster, job.placement)
                              : CardSpeedOn(s.cluster, job.placement);
  speed *= TopologySpeed(s.cluster, job.placement);
  // An elastic job at another width than its reference one (at most 64 times as fast).
  if (job.spec.elastic.enabled()) {
    speed *= std::min(64.0, ElasticSpeed(job.spec.elastic, job.measured_rates, job.spec.gpus));
  }
  return std::max(1, static_cast<int>(speed * 1000 + 0.5));
}

int CycleContext::BandOf(const Job& job) const { return BaseBand(s.policy, job); }

Rank CycleContext::RankOfRunning(const Job& job) const {
  return {BandOf(job), {s.job_order->Key(job, now), job.spec.submit_time, job.spec.id}};
}

std::optional<Time> CycleContext::RemainingWork(const Job& job) const {
  const Time done =
      job.work_done + (job.state == JobState::kRunning ? job.RunProgress(now) : Time{0});
  if (job.spec.estimate) return std::max<Time>(0, *job.spec.estimate - done);
  return s.job_order->PredictRemaining(job, now);
}

Time CycleContext::ExpectedRunTime(const Job& job) const {
  const Time limit = job.spec.time_limit.value_or(kNever);  // a run never lasts longer
  const Time overhead = job.starts > 0 ? RestartOverhead(job.spec) : 0;
  if (job.spec.estimate) {
    return std::min(limit, overhead + std::max<Time>(0, *job.spec.estimate - job.work_done));
  }
  if (!s.policy.learned_estimates) return limit;
  auto learned = s.job_order->PredictRemaining(job, now);
  return learned ? std::min(limit, overhead + *learned) : limit;
}

Time CycleContext::ExpectedEnd(const Job& running) const {
  if (running.spec.estimate || !s.policy.learned_estimates) return running.EstimatedEnd();
  const Time limit = running.spec.time_limit ? running.run_start + *running.spec.time_limit
                                             : kNever;
  auto learned = s.job_order->PredictRemaining(running, now);
  return learned ? std::min(limit, std::max(now, running.run_start + running.run_overhead) +
                                       *learned)
                 : limit;
}

void CycleContext::AddReservation(Reservation r) {
  for (const auto& [node, cap] : r.caps) {
    auto [it, inserted] = caps.emplace(node, cap);
    if (!inserted) it->second = std::min(it->second, cap);
  }
  reservations[r.scope] = std::move(r);
}

void CycleContext::ChargeCaps(const Placement& placement) {
  for (const auto& share : placement.shares) {
    auto it = caps.find(share.node);
    if (it != caps.end()) it->second -= static_cast<int>(share.gpus.size());
  }
}

std::unordered_map<int, int> CycleContext::CapsExcept(JobId job, bool with_reservations) const {
  std::unordered_map<int, int> out;
  auto merge = [&](int node, int cap) {
    auto [it, inserted] = out.emplace(node, cap);
    if (!inserted) it->second = std::min(it->second, cap);
  };
  for (const auto& [held_for, nodes] : s.defrag_holds) {
    if (held_for == job) continue;
    for (int node : nodes) merge(node, 0);
  }
  if (with_reservations) {
    for (const auto& [scope, r] : reservations) {
      if (r.job == job) continue;
      for (const auto& [node, cap] : r.caps) merge(node, cap);
    }
  }
  return out;
}

void CycleContext::FlushStarted() {
  for (JobId id : started_) state_.pending.Remove(id);
  started_.clear();
}

}  // namespace squeeze
