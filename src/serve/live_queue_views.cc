// LiveQueue's views for the API: nodes, pools, metrics gauges, and `why`.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "config/job_values.h"
#include "core/duration.h"
#include "core/wait_reasons.h"
#include "serve/live_queue.h"

#include "core/wait_reasons.h"

namespace squeeze {

namespace {

// A node's GPUs held by jobs squeeze did not send (`others`, a bit per GPU), and its block,
// rack, ... (the cluster file's topology or Slurm's switches), when it has any.
void AddNodeExtras(const ClusterSpec& cluster, const NodeSpec& node, uint64_t others,
                   nlohmann::json& out) {
  if (others != 0) out["gpus_held_by_others"] = __builtin_popcountll(others);
  if (node.domains.empty()) return;
  nlohmann::json domains = nlohmann::json::object();
  const auto& levels = cluster.topology.levels;
  for (size_t l = 0; l < levels.size() && l < node.domains.size(); ++l) {
    domains[levels[l].name] = node.domains[l];
  }
  out["topology"] = std::move(domains);
}

}  // namespace

nlohmann::json LiveQueue::BuildNodesJson() const {
  const ClusterState& cs = scheduler_->cluster();
  nlohmann::json nodes = nlohmann::json::array();
  for (size_t n = 0; n < cs.nodes().size(); ++n) {
    const NodeSpec& spec = cs.spec().nodes[n];
    const NodeState& state = cs.node(static_cast<int>(n));
    const PoolSpec& pool = cs.spec().pools[state.pool];
    nlohmann::json gpus = nlohmann::json::array();
    for (int g = 0; g < spec.gpus; ++g) {
      const LocalGpu* local = cluster_.Find(static_cast<int>(n), g);
      nlohmann::json gpu = {{"gpu", g}, {"free_milli", state.free_milli[g]}};
      if (local && local->device.index >= kRemoteSlotBase) {
        gpu["name"] = local->device.name;  // a cluster manager binds it; no CUDA index here
      } else if (local) {
        gpu["cuda_index"] = local->device.index;
        gpu["name"] = local->device.name;
        gpu["virtual"] = local->device.is_virtual;
        if (!local->device.uuid.empty()) gpu["uuid"] = local->device.uuid;
      }
      if (auto r = held_idle_.Latest(static_cast<int>(n), g)) {  // telemetry or sampling
        gpu["utilization"] = r->utilization;
        gpu["utilization_at"] = FormatDateTime(r->time);
      }
      const uint64_t others = scheduler_->ForeignGpus(static_cast<int>(n));
      if (g < 64 && (others >> g & 1)) gpu["held_by_others"] = true;  // a job squeeze did not send
      if (pool.kind == PoolKind::kColocated) {
        const double load = scheduler_->InferenceLoad(static_cast<int>(n), g);
        gpu["inference_load"] = load < 0 ? nlohmann::json() : nlohmann::json(load);
        gpu["takes_training"] = !scheduler_->GpuClosed(static_cast<int>(n), g);
      }
      gpus.push_back(gpu);
    }
    nlohmann::json jobs = nlohmann::json::array();
    for (JobId id : scheduler_->JobsOnNode(static_cast<int>(n))) jobs.push_back(id);
    std::sort(jobs.begin(), jobs.end());
    nodes.push_back({{"name", spec.name},
                     {"pool", spec.pool},
                     {"gpu_model", spec.gpu_model},
                     {"gpus", spec.gpus},
                     {"free_gpus", state.whole_free},
                     {"virtual", spec.labels.count("virtual") > 0},
                     {"available", scheduler_->NodeAvailable(static_cast<int>(n))},
                     {"jobs", jobs},
                     {"gpu_detail", gpus}});
    if (const std::string why = NodeUnavailableWhy(static_cast<int>(n)); !why.empty()) {
      nodes.back()["unavailable"] = why;
    }
    AddNodeExtras(cs.spec(), spec, scheduler_->ForeignGpus(static_cast<int>(n)), nodes.back());
    if (auto r = reclaimed_.find(static_cast<int>(n)); r != reclaimed_.end()) {
      nodes.back()["reclaimed"] = {{"at", FormatDateTime(r->second.at)},
                                   {"leave_by", FormatDateTime(r->second.leave_by)}};
    }
  }
  return {{"nodes", nodes},
          {"gpu_source", cluster_.source},
          {"jobs_run_as", options_.run_as.owners ? "owner" : options_.run_as.daemon_user},
          {"jobs_run_as_text", options_.run_as.Describe()}};
}

std::vector<PoolPrice> LiveQueue::PoolPrices() const {
  MutexLock lock(mu_);
  const ClusterSpec& spec = scheduler_->cluster().spec();
  std::vector<PoolPrice> out;
  for (size_t p = 0; p < spec.pools.size(); ++p) {
    out.push_back({spec.pools[p].name, std::string(PoolKindName(spec.pools[p].kind)),
                   spec.PricePerGpuHour(static_cast<int>(p)), spec.pools[p].monthly_cost});
  }
  return out;
}

std::map<std::string, std::string> LiveQueue::PoolOfNode() const {
  MutexLock lock(mu_);
  std::map<std::string, std::string> out;
  for (const NodeSpec& n : scheduler_->cluster().spec().nodes) out[n.name] = n.pool;
  return out;
}

int LiveQueue::GpuCount() const {
  MutexLock lock(mu_);
  int gpus = 0;
  for (const NodeSpec& n : scheduler_->cluster().spec().nodes) gpus += n.gpus;
  return gpus;
}

nlohmann::json LiveQueue::BuildPoolsJson() const {
  const ClusterState& cs = scheduler_->cluster();
  nlohmann::json pools = nlohmann::json::array();
  for (int p = 0; p < cs.PoolCount(); ++p) {
    const PoolSpec& spec = cs.spec().pools[p];
    int free = 0;
    for (const NodeState& n : cs.nodes()) free += n.pool == p ? n.whole_free : 0;
    pools.push_back({{"name", spec.name},
                     {"kind", std::string(PoolKindName(spec.kind))},
                     {"region", spec.region},
                     {"backend", spec.backend},
                     {"gpus", cs.PoolTotalGpus(p)},
                     {"free_gpus", free}});
    if (spec.kind == PoolKind::kSpot) {
      nlohmann::json reclaims = nlohmann::json::array();
      for (const ReclaimRecord& r : reclaim_log_) {
        if (cs.node(r.node).pool != p) continue;
        reclaims.push_back({{"node", cs.spec().nodes[r.node].name},
                            {"at", FormatDateTime(r.at)},
                            {"leave_by", FormatDateTime(r.leave_by)},
                            {"returned_at", r.returned_at ? nlohmann::json(FormatDateTime(*r.returned_at))
                                                          : nlohmann::json()}});
      }
      pools.back()["spot"] = {{"warning_s", WholeSeconds(spec.spot.warning)},
                              {"reclaims", reclaims}};
    } else if (spec.kind == PoolKind::kColocated) {
      pools.back()["colocation"] = {{"cap", spec.colocation.cap},
                                    {"evict_within_s", WholeSeconds(spec.colocation.evict_within)}};
    }
    if (auto it = reports_.find(p); it != reports_.end()) {
      const BackendReport& r = it->second;
      nlohmann::json controller = {{"cluster", r.cluster}, {"reachable", r.reachable},
                                   {"checked_at", FormatDateTime(r.at)}};
      if (!r.reachable) {
        controller["error"] = r.error;
        controller["unreachable_since"] = FormatDateTime(r.unreachable_since.value_or(r.at));
      }
      pools.back()["controller"] = controller;
      pools.back()["unknown_jobs"] = r.unknown_jobs;
    }
  }
  return {{"pools", pools}};
}

LiveQueue::Gauges LiveQueue::BuildGauges() const {
  Gauges g;
  for (Urgency u : {Urgency::kLow, Urgency::kNormal, Urgency::kHigh, Urgency::kCritical}) {
    g.pending_by_urgency[std::string(UrgencyName(u))] = 0;
    g.running_by_urgency[std::string(UrgencyName(u))] = 0;
  }
  for (const auto& [id, job] : jobs_) {
    const std::string u(UrgencyName(job.request.spec.urgency));
    const Job* j = scheduler_->Find(id);
    if (j != nullptr && j->IsActive()) {
      ++g.running_by_urgency[u];
      g.held_idle_jobs += job.held_idle ? 1 : 0;
    } else {
      ++g.pending_by_urgency[u];
    }
  }
  const ClusterState& cs = scheduler_->cluster();
  g.gpus_total = cs.TotalGpus();
  g.gpu_milli_allocated = static_cast<int64_t>(cs.TotalGpus()) * kMilliPerGpu - cs.FreeMilli();
  for (const NodeState& n : cs.nodes()) g.gpus_idle += n.whole_free;
  for (const LocalGpu& gpu : cluster_.gpus) g.virtual_gpus |= gpu.device.is_virtual;
  g.counters = counters_;
  g.reclaims = scheduler_->counters().reclaims;
  g.inference_evictions = scheduler_->counters().inference_evictions;
  for (const auto& [p, r] : reports_) {
    Gauges::Backend b;
    b.pool = cs.spec().pools[p].name;
    b.reachable = r.reachable;
    b.unknown_jobs = static_cast<int>(r.unknown_jobs.size());
    for (const NodeState& n : cs.nodes()) {
      b.nodes_unavailable += n.pool == p && !scheduler_->NodeAvailable(n.index) ? 1 : 0;
    }
    g.backends.push_back(b);
  }
  return g;
}

Status LiveQueue::CountWaitingInStore() {
  auto counts = store_.CountWaiting();
  if (!counts.ok()) return counts.status();
  WaitingCounts::ByName by_user, by_team;
  for (const WaitingByOwner& c : *counts) {
    by_user[c.owner] += c.jobs;
    by_team[c.team] += c.jobs;
  }
  waiting_from_store_ = true;
  waiting_.Rebase(std::move(by_user), std::move(by_team));
  return Status::Ok();
}

void LiveQueue::RecountWaiting() const {
  if (waiting_from_store_) return;  // a publication before Recover knows none of them
  WaitingCounts::ByName by_user, by_team;
  auto count = [&](const std::string& owner, const std::string& team) {
    ++by_user[owner];
    ++by_team[team];
  };
  for (const auto& [id, job] : jobs_) {
    const Job* j = scheduler_->Find(id);
    if (j == nullptr || !j->IsActive()) count(job.owner, job.request.spec.team);
  }
  for (const StoredJob& stored : deferred_) count(stored.owner, stored.request.spec.team);
  waiting_.Rebase(std::move(by_user), std::move(by_team));
}

void LiveQueue::Publish() const {
  RecountWaiting();
  auto view = std::make_shared<ReadView>();
  view->generation = views_.NextGeneration();  // the state a forecast was made of has changed
  view->nodes = BuildNodesJson();
  view->pools = BuildPoolsJson();
  view->held_idle = BuildHeldIdleJson();
  view->gauges = BuildGauges();
  view->reasons = BuildReasons();
  // While whys are asked, every publication carries a copy of the scheduler for them.
  if (views_.WantsWhy()) view->why = std::make_shared<const WhyView>(BuildWhyView(view->generation));
  views_.Publish(std::move(view));
}

std::shared_ptr<const ReadView> LiveQueue::View() const {
  if (recovering_.load()) {  // a publication before Recover's shows the state before a restart
    MutexLock lock(mu_);
    AwaitRecovery(lock);
  }
  if (std::shared_ptr<const ReadView> latest = views_.Latest()) return latest;
  MutexLock lock(mu_);  // before the first publication only
  Publish();
  return views_.Latest();
}

std::unordered_map<JobId, std::string_view> LiveQueue::BuildReasons() const {
  std::unordered_map<JobId, std::string_view> out;
  for (const auto& [id, reason] : WaitReasons(*scheduler_)) out.emplace(id, WaitReasonName(reason));
  for (const auto& [at, id] : retries_) out.emplace(id, "BeginTime");  // a retry's back-off
  for (const auto& [id, job] : jobs_) {
    if (job.held) out.emplace(id, "JobHeld");
    else if (job.dependency_wait) out.emplace(id, "Dependency");
  }
  return out;
}

std::string_view LiveQueue::ReasonCode(JobId id) const {
  const std::shared_ptr<const ReadView> view = View();
  auto it = view->reasons.find(id);
  return it == view->reasons.end() ? std::string_view() : it->second;
}

nlohmann::json LiveQueue::NodesJson() const { return View()->nodes; }
nlohmann::json LiveQueue::PoolsJson() const { return View()->pools; }
nlohmann::json LiveQueue::HeldIdleJson() const { return View()->held_idle; }

LiveQueue::Gauges LiveQueue::Snapshot() const {
  Gauges g = View()->gauges;
  // Jobs submitted since: waiting in the inbox for the next step.
  for (const auto& [urgency, n] : intake_->WaitingByUrgency()) g.pending_by_urgency[urgency] += n;
  return g;
}

}  // namespace squeeze
