// LiveQueue's views for the API: nodes, pools, metrics gauges, and `why`.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "config/job_values.h"
#include "core/duration.h"
#include "serve/live_queue.h"
#include "sim/forecast_start.h"

namespace squeeze {
namespace {

std::string Needs(const JobSpec& spec) {
  std::string out = "needs " + std::to_string(spec.gpus) + (spec.gpus == 1 ? " GPU" : " GPUs");
  if (spec.gpu_milli < kMilliPerGpu) {
    out = "needs " + std::to_string(spec.gpu_milli) + "/1000 of one GPU";
  }
  if (!spec.gpu_models.empty()) {
    std::string models;
    for (const auto& m : spec.gpu_models) models += (models.empty() ? "" : " or ") + m;
    out += " of model " + models;
  }
  if (!spec.pool.empty()) out += " in pool " + spec.pool;
  return out + " (urgency " + std::string(UrgencyName(spec.urgency)) + ")";
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
  std::lock_guard lock(mu_);
  const ClusterSpec& spec = scheduler_->cluster().spec();
  std::vector<PoolPrice> out;
  for (size_t p = 0; p < spec.pools.size(); ++p) {
    out.push_back({spec.pools[p].name, std::string(PoolKindName(spec.pools[p].kind)),
                   spec.PricePerGpuHour(static_cast<int>(p)), spec.pools[p].monthly_cost});
  }
  return out;
}

std::map<std::string, std::string> LiveQueue::PoolOfNode() const {
  std::lock_guard lock(mu_);
  std::map<std::string, std::string> out;
  for (const NodeSpec& n : scheduler_->cluster().spec().nodes) out[n.name] = n.pool;
  return out;
}

int LiveQueue::GpuCount() const {
  std::lock_guard lock(mu_);
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
      pools.back()["spot"] = {{"warning_s", spec.spot.warning}, {"reclaims", reclaims}};
    } else if (spec.kind == PoolKind::kColocated) {
      pools.back()["colocation"] = {{"cap", spec.colocation.cap},
                                    {"evict_within_s", spec.colocation.evict_within}};
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

void LiveQueue::Publish() const {
  ++generation_;  // under mu_: the state a forecast was made of has changed
  auto view = std::make_shared<ReadView>();
  view->nodes = BuildNodesJson();
  view->pools = BuildPoolsJson();
  view->held_idle = BuildHeldIdleJson();
  view->gauges = BuildGauges();
  std::lock_guard lock(view_mu_);
  view_ = std::move(view);
}

std::shared_ptr<const LiveQueue::ReadView> LiveQueue::View() const {
  {
    std::lock_guard lock(view_mu_);
    if (view_) return view_;
  }
  std::lock_guard lock(mu_);  // before the first publication only
  Publish();
  std::lock_guard view_lock(view_mu_);
  return view_;
}

nlohmann::json LiveQueue::NodesJson() const { return View()->nodes; }
nlohmann::json LiveQueue::PoolsJson() const { return View()->pools; }
nlohmann::json LiveQueue::HeldIdleJson() const { return View()->held_idle; }

LiveQueue::Gauges LiveQueue::Snapshot() const {
  Gauges g = View()->gauges;
  // Jobs submitted since: waiting in the inbox for the next step.
  std::lock_guard inbox(inbox_mu_);
  for (const StoredJob& s : inbox_) ++g.pending_by_urgency[std::string(UrgencyName(s.request.spec.urgency))];
  return g;
}

namespace {

using Lines = std::vector<std::string>;

// How many of the GPUs a job may use are free for it, and the nodes among them that take no
// new jobs.
void WhyCapacity(const Scheduler& sched, const JobSpec& spec, const std::vector<char>& may_use,
                 const std::map<int, std::string>& node_down, Lines& lines) {
  const ClusterState& cs = sched.cluster();
  int free = 0, usable = 0;
  for (const NodeState& n : cs.nodes()) {
    if (!may_use[n.index]) continue;
    usable += n.gpus;
    if (spec.WholeGpus()) {
      free += n.whole_free;
    } else {
      for (int m : n.free_milli) free += m >= spec.gpu_milli ? 1 : 0;
    }
  }
  lines.push_back("free now: " + std::to_string(free) + " of the " + std::to_string(usable) +
                  " GPUs it may use" + (spec.WholeGpus() ? "" : " have room for it"));
  for (const auto& [node, why] : node_down) {
    if (!may_use[node]) continue;
    const NodeSpec& ns = cs.spec().nodes[node];
    lines.push_back("node " + ns.name + " (pool " + ns.pool + ") takes no new jobs: " + why);
  }
}

// The waiting jobs ahead of `id` in the queue, in order.
std::vector<JobId> WhyAhead(const Scheduler& sched, JobId id, Lines& lines) {
  std::vector<JobId> ahead;
  sched.ForEachWaiting([&](const Job& j) {
    if (j.spec.id == id) return false;
    ahead.push_back(j.spec.id);
    return true;
  });
  if (ahead.empty()) return ahead;
  std::string ids;
  for (size_t i = 0; i < ahead.size() && i < 5; ++i) ids += (i ? ", " : "") + std::to_string(ahead[i]);
  if (ahead.size() > 5) ids += ", ...";
  lines.push_back(std::to_string(ahead.size()) + " waiting job" +
                  (ahead.size() == 1 ? " is" : "s are") + " ahead of it in the queue (" + ids +
                  ")");
  return ahead;
}

// The running jobs on GPUs it may use, soonest end first (a job past its estimate says so);
// whether one of them is preemptible and of a lower urgency.
bool WhyHolders(const Scheduler& sched, const JobSpec& spec, const std::vector<char>& may_use,
                const std::function<std::string(JobId)>& owner_of, Time now, Lines& lines) {
  std::vector<std::pair<Time, std::string>> holders;
  bool preemptible_in_the_way = false;
  sched.ForEachJob([&](const Job& j) {
    const JobId jid = j.spec.id;
    if (!j.IsActive()) return;
    bool on_usable = false;
    for (const NodeShare& s : j.placement.shares) on_usable |= may_use[s.node] != 0;
    if (!on_usable) return;
    preemptible_in_the_way |= j.spec.preemptible && j.spec.urgency < spec.urgency;
    const Time end = j.EstimatedEnd();
    const int gpus = j.placement.GpuCount();
    std::string what =
        j.state == JobState::kCheckpointing ? "is checkpointing to make room"
        : end == kNever ? "runs with no estimate"
        : end < now     ? "has run " + FormatDuration(now - end) + " past its estimate"
                        : "ends in about " + FormatDuration(end - now) + " by its estimate";
    holders.push_back({end, "job " + std::to_string(jid) + " (" + owner_of(jid) + ", " +
                                std::to_string(gpus) + (gpus == 1 ? " GPU, " : " GPUs, ") +
                                std::string(UrgencyName(j.spec.urgency)) + ") " + what});
  });
  std::sort(holders.begin(), holders.end());
  for (size_t i = 0; i < holders.size() && i < 5; ++i) lines.push_back("in the way: " + holders[i].second);
  if (holders.size() > 5) {
    lines.push_back("in the way: " + std::to_string(holders.size() - 5) + " more running jobs");
  }
  return preemptible_in_the_way;
}

// The first reservation of a blocked job ahead that covers GPUs it could use: backfilling
// keeps them from a job that would still run at the reserved start.
void WhyReservation(const Scheduler& sched, JobId id, const std::vector<char>& may_use, Time now,
                    Lines& lines) {
  for (const Reservation& r : sched.ReservationsAhead(id, now, 16)) {
    std::string nodes;
    for (const auto& [node, cap] : r.caps) {
      if (may_use[node]) nodes += (nodes.empty() ? "" : ", ") + sched.cluster().spec().nodes[node].name;
    }
    if (nodes.empty()) continue;
    lines.push_back("job " + std::to_string(r.job) + " holds a reservation on " + nodes +
                    (r.shadow < kNever
                         ? " from about " + FormatDuration(std::max<Time>(0, r.shadow - now)) +
                               " from now"
                         : "") +
                    ": a job that would still run then may not start there");
    return;
  }
}

// When `id` is expected to start, from a forecast (sim/forecast_start.h) made for it or for a
// job behind it in the queue.
void WhyForecast(const Result<StartForecast>& forecast, JobId id, Time now,
                 nlohmann::json& out) {
  out["expected_start_in_s"] = nullptr;
  if (!forecast.ok()) {
    out["forecast_error"] = forecast.status().message();
    return;
  }
  for (JobId j : forecast->overrun) {
    out["explanation"].push_back("the forecast takes job " + std::to_string(j) +
                                 ", past its estimate, to end now");
  }
  if (auto start = forecast->starts_in_s.find(id); start != forecast->starts_in_s.end()) {
    out["expected_start_in_s"] = start->second;
    out["expected_start_at"] = FormatDateTime(now + start->second);
    if (const int stops = forecast->stops_before.at(id); stops > 0) {
      out["explanation"].push_back(
          "expected to start after the policy stops " + std::to_string(stops) +
          " running job(s) on the way (preemption, slice ends, reclaims)");
    }
  } else if (forecast->not_before_s) {
    out["expected_start_not_before_s"] = *forecast->not_before_s;
    out["explanation"].push_back(
        "no forecast within " + std::to_string(forecast->cycles) + " cycles (" +
        std::to_string(forecast->starts_in_s.size()) + " jobs started in it first): not before " +
        FormatDuration(*forecast->not_before_s) + " from now");
  } else if (forecast->missing_estimate) {
    out["explanation"].push_back("no forecast: job " + std::to_string(*forecast->missing_estimate) +
                                 ", running or ahead of it, has no estimate");
  } else {
    out["explanation"].push_back("no forecast: it does not start within the forecast's horizon");
  }
}

}  // namespace

std::optional<nlohmann::json> LiveQueue::WhyNotWaiting(JobId id, Time now) const {
  const LiveJob& live = jobs_.at(id);
  nlohmann::json out = {{"id", id}};
  if (live.retry_at && *live.retry_at > now) {
    out["explanation"] = {"its last run failed; it waits out the retry back-off until " +
                          FormatDateTime(*live.retry_at)};
    out["expected_start_in_s"] = std::max<Time>(0, *live.retry_at - now);
    return out;
  }
  const Job* job = scheduler_->Find(id);
  if (job == nullptr) {
    out["explanation"] = {"just submitted: the next cycle (within a second) considers it"};
    return out;
  }
  if (!job->IsActive()) return std::nullopt;
  Lines lines = {std::string(job->state == JobState::kRunning ? "running" : "checkpointing") +
                 " since " + FormatDateTime(job->run_start) + "; it does not wait"};
  // A cluster manager may still hold it in its own queue.
  if (!live.placed_because.empty()) lines.push_back(live.placed_because);
  if (auto backend = (live.exec ? *live.exec : executor_).BackendStatus(id)) {
    lines.push_back(*backend);
  }
  out["explanation"] = lines;
  out["state"] = std::string(JobStateName(job->state));
  out["expected_start_in_s"] = nullptr;  // it has started
  return out;
}

std::optional<nlohmann::json> LiveQueue::WhyJson(JobId id, Time now) const {
  std::unique_ptr<Scheduler> copy;
  std::shared_ptr<const ForecastMemo> memo;
  std::set<JobId> covers;
  nlohmann::json out = {{"id", id}};
  Lines lines;
  {
    std::lock_guard lock(mu_);
    if (!jobs_.count(id)) return std::nullopt;
    if (auto answered = WhyNotWaiting(id, now)) return answered;
    const JobSpec& spec = jobs_.at(id).request.spec;
    const Scheduler& sched = *scheduler_;
    lines.push_back(Needs(spec));
    const std::vector<char> may_use = sched.UsableNodes(spec);  // the cycle's rule
    WhyCapacity(sched, spec, may_use, node_down_, lines);
    const std::vector<JobId> ahead = WhyAhead(sched, id, lines);
    const bool preemptible_in_the_way = WhyHolders(
        sched, spec, may_use, [&](JobId j) { return jobs_.at(j).owner; }, now, lines);
    WhyReservation(sched, id, may_use, now, lines);
    if (const int stops = sched.StopsAwaited(id); stops > 0) {
      lines.push_back(std::to_string(stops) + " job(s) are checkpointing to make room for it");
    }
    for (std::string& line : sched.RegionOutlook(id, now)) lines.push_back(std::move(line));
    if (preemptible_in_the_way && sched.policy().Has("preempt")) {
      lines.push_back("it may preempt preemptible jobs of a lower urgency");
    }
    // The last forecast answers if the state has not changed since and it was made for this
    // job or one behind it; else a new one runs on a copy, without the lock.
    {
      std::lock_guard memo_lock(memo_mu_);
      if (memo_ && memo_->generation == generation_ && memo_->now == now &&
          memo_->covers.count(id)) {
        memo = memo_;
      }
    }
    if (!memo) {
      copy = sched.Clone();
      covers.insert(ahead.begin(), ahead.end());
      covers.insert(id);
    }
  }
  out["explanation"] = lines;
  if (!memo) {
    auto fresh = std::make_shared<ForecastMemo>(ForecastMemo{
        generation_, now, std::move(covers), ForecastStartOnCopy(std::move(copy), id, now)});
    std::lock_guard memo_lock(memo_mu_);
    memo_ = fresh;
    memo = std::move(fresh);
  }
  WhyForecast(memo->forecast, id, now, out);
  return out;
}

}  // namespace squeeze
