#include "core/scheduler.h"

#include <algorithm>
#include <string>

#include "core/actions/action_table.h"
#include "core/actions/actions.h"
#include "core/card_outlook.h"
#include "core/cycle.h"
#include "core/feasibility.h"
#include "core/held_room.h"
#include "core/reservation.h"
#include "core/topology.h"

namespace squeeze {

Result<std::unique_ptr<Scheduler>> Scheduler::Create(const ClusterSpec& cluster,
                                                     const Policy& policy) {
  if (Status st = cluster.Validate(); !st.ok()) return st;
  if (Status st = policy.Validate(); !st.ok()) return st;
  auto state = std::make_unique<EngineState>(cluster, policy);
  state->job_order = std::move(MakeJobOrder(policy.job_order, policy.order_options).value());
  state->node_order = std::move(MakeNodeOrder(policy.node_order).value());
  state->node_jobs.resize(cluster.nodes.size());
  state->pool_takes.resize(cluster.pools.size());
  // A colocated GPU takes no training until its inference load is known.
  for (size_t n = 0; n < cluster.nodes.size(); ++n) {
    const int node = static_cast<int>(n);
    if (cluster.pools[state->cluster.node(node).pool].kind != PoolKind::kColocated) continue;
    const int gpus = std::min(state->cluster.node(node).gpus, 64);
    if (gpus == 0) continue;
    state->closed_gpus[node] = gpus == 64 ? ~uint64_t{0} : (uint64_t{1} << gpus) - 1;
    HoldClosed(*state, node);
  }
  return std::unique_ptr<Scheduler>(new Scheduler(std::move(state)));
}

namespace {

// A job that fits on one node must find a node with its CPU and memory; a bigger one needs its
// share on each node.
Status CheckCpuMemory(const CycleContext& c, const JobSpec& spec, int pool) {
  if (spec.cpu_milli == 0 && spec.memory_mib == 0) return Status::Ok();
  int64_t best_cpu = 0, best_mem = 0;
  for (int g : c.GroupsFor(spec, pool)) {
    for (int ni : c.s.cluster.group(g).nodes) {
      const NodeSpec& n = c.s.cluster.spec().nodes[ni];
      const int on_node = spec.gpus <= 0 ? 0 : std::min(spec.gpus, n.gpus);
      if (spec.gpus > 0 && on_node == 0) continue;
      const int64_t cpu = spec.gpus > 0 ? spec.cpu_milli * on_node / spec.gpus : spec.cpu_milli;
      const int64_t mem = spec.gpus > 0 ? spec.memory_mib * on_node / spec.gpus : spec.memory_mib;
      const bool cpu_ok = n.cpu_milli == 0 || cpu <= n.cpu_milli;
      const bool mem_ok = n.memory_mib == 0 || mem <= n.memory_mib;
      if (cpu_ok && mem_ok) return Status::Ok();
      best_cpu = std::max(best_cpu, n.cpu_milli);
      best_mem = std::max(best_mem, n.memory_mib);
    }
  }
  return Status::Error("no node can hold its cpu_milli " +
                       std::to_string(spec.cpu_milli) + " and memory_mib " +
                       std::to_string(spec.memory_mib) + " (largest node: cpu_milli " +
                       std::to_string(best_cpu) + ", memory_mib " + std::to_string(best_mem) +
                       ")");
}

}  // namespace

Status Scheduler::Validate(const JobSpec& spec) const {
  const std::string who = "job " + std::to_string(spec.id);
  if (state_->jobs.count(spec.id)) return Status::Error(who + ": id is already in use");
  if (Status st = CheckFeasible(spec); !st.ok()) return Status::Error(who + ": " + st.message());
  return Status::Ok();
}

// For a job of no pool on a cluster with firm pools: spot and colocated pools did not count.
std::string Scheduler::OpportunisticNote(const JobSpec& spec) const {
  if (!spec.pool.empty()) return "";
  bool firm = false, takeable = false;
  for (int p = 0; p < state_->cluster.PoolCount(); ++p) {
    (Opportunistic(*state_, p) ? takeable : firm) = true;
  }
  if (!firm || !takeable) return "";
  return "; spot and colocated pools count only for a job that names one as its pool";
}

Status Scheduler::CheckFeasible(const JobSpec& spec) const {
  if (Status s = CheckTopologyFits(state_->cluster, spec); !s.ok()) return s;
  if (spec.elastic.enabled()) return CheckElasticFeasible(spec);
  if (spec.gpus < 0) return Status::Error("gpus " + std::to_string(spec.gpus) + " is negative");
  if (spec.gpu_milli < 1 || spec.gpu_milli > kMilliPerGpu) {
    return Status::Error("gpu_milli " + std::to_string(spec.gpu_milli) + " is outside 1..1000");
  }
  if (spec.gpu_milli < kMilliPerGpu && spec.gpus != 1) {
    return Status::Error("a fraction of a GPU (gpu_milli " +
                         std::to_string(spec.gpu_milli) + ") needs gpus 1, not " +
                         std::to_string(spec.gpus));
  }
  if (spec.estimate && *spec.estimate < 0) {
    return Status::Error("estimate " + std::to_string(WholeSeconds(*spec.estimate)) +
                         " is negative");
  }
  if (spec.time_limit && *spec.time_limit <= 0) {
    return Status::Error("time_limit " + std::to_string(WholeSeconds(*spec.time_limit)) +
                         " is not positive (no limit: leave it out)");
  }
  if (spec.checkpoint_interval < 0 || spec.checkpoint_cost < 0 ||
      spec.checkpoint_stall.value_or(0) < 0 || spec.restart_overhead.value_or(0) < 0) {
    return Status::Error("checkpoint and restart times must not be negative");
  }
  if (!(spec.data_gb >= 0) || spec.data_gb > 1e12) {
    return Status::Error("data_gb " + std::to_string(spec.data_gb) +
                         " must be a size in GB from 0 to 1e12");
  }
  const ClusterSpec& cluster = state_->cluster.spec();
  if (!spec.pool.empty() && cluster.PoolIndex(spec.pool) < 0) {
    std::string pools;
    for (const PoolSpec& p : cluster.pools) pools += (pools.empty() ? "" : ", ") + p.name;
    return Status::Error("pool '" + spec.pool + "' does not exist; pools: " + pools);
  }
  const int home = spec.pool.empty() ? -1 : cluster.PoolIndex(spec.pool);
  CycleContext c(*state_, 0);
  if (Status st = CheckGpusFit(c, spec, home, OpportunisticNote(spec)); !st.ok()) return st;
  return CheckCpuMemory(c, spec, home);
}

std::vector<char> Scheduler::UsableNodes(const JobSpec& spec) const {
  std::vector<char> out(state_->cluster.nodes().size(), 0);
  const int home = spec.pool.empty() ? -1 : state_->cluster.spec().PoolIndex(spec.pool);
  if (!spec.pool.empty() && home < 0) return out;
  const CycleContext c(*state_, 0);
  for (int g : c.GroupsFor(spec, home)) {
    for (int n : state_->cluster.group(g).nodes) out[n] = 1;
  }
  return out;
}

Status Scheduler::Submit(const JobSpec& spec, Time now) {
  if (Status st = Validate(spec); !st.ok()) return st;
  Job job;
  job.spec = spec;
  if (spec.elastic.enabled()) job.spec.gpus = spec.elastic.min;  // it waits for its minimum
  job.home_pool = spec.pool.empty() ? -1 : state_->cluster.spec().PoolIndex(spec.pool);
  job.queued_since = now;
  job.data_regions = HomeRegionBit(*state_, job);
  Job& stored = state_->jobs.emplace(spec.id, std::move(job)).first->second;
  ++state_->counters.submitted;
  state_->elastic_jobs += spec.elastic.enabled();
  // Orders that learn the workload, or refresh what they judge by, watch arrivals.
  state_->node_order->ObserveArrival(spec, state_->cluster);
  Admit(stored, now);
  return Status::Ok();
}

Status Scheduler::Adopt(const JobSpec& spec, const Placement& placement, Time run_start,
                        Time now) {
  if (Status st = Validate(spec); !st.ok()) return st;  // also refuses a known id
  if (placement.empty()) {
    return Status::Error("job " + std::to_string(spec.id) + ": an empty placement");
  }
  for (const NodeShare& share : placement.shares) {
    if (share.node < 0 || share.node >= static_cast<int>(state_->cluster.nodes().size()) ||
        !state_->cluster.Fits(share)) {
      return Status::Error("job " + std::to_string(spec.id) + ": its GPUs on node " +
                           std::to_string(share.node) + " are not free");
    }
  }
  Job job;
  job.spec = spec;
  job.home_pool = spec.pool.empty() ? -1 : state_->cluster.spec().PoolIndex(spec.pool);
  if (spec.elastic.enabled()) job.spec.gpus = placement.GpuCount();  // the width it runs at
  job.state = JobState::kRunning;
  job.placement = placement;
  job.queued_since = run_start;
  job.first_start = run_start;
  job.run_start = run_start;
  job.starts = 1;
  job.min_runtime_until = run_start + state_->policy.min_runtime;
  job.data_regions = HomeRegionBit(*state_, job);
  const int run_region = state_->pool_region[state_->cluster.node(placement.shares[0].node).pool];
  if (run_region < 64) job.data_regions |= uint64_t{1} << run_region;  // its data is there too
  Job& stored = state_->jobs.emplace(spec.id, std::move(job)).first->second;
  ++state_->counters.submitted;
  state_->elastic_jobs += spec.elastic.enabled();
  state_->node_order->ObserveArrival(spec, state_->cluster);
  HoldCapacity(*state_, stored);
  IndexRunning(*state_, stored);
  if (spec.array_id != 0 && spec.array_limit > 0) ++state_->arrays[spec.array_id].admitted;
  return Status::Ok();
}

Status Scheduler::SetNodeAvailable(int node, bool available) {
  EngineState& s = *state_;
  if (node < 0 || node >= static_cast<int>(s.cluster.nodes().size())) {
    return Status::Error("node " + std::to_string(node) + " is not in the cluster");
  }
  if (available) s.reported_down.erase(node);
  else s.reported_down.insert(node);
  RefreshAvailability(s, node);
  return Status::Ok();
}

void Scheduler::Enqueue(Job& job, Time now) {
  EngineState& s = *state_;
  job.state = JobState::kPending;
  const Policy& p = s.policy;
  if (!job.boosted) {
    Time boost_at = kNever;
    if (p.deadline && job.spec.deadline) {
      boost_at = *job.spec.deadline - p.deadline_margin -
                 (job.spec.estimate ? std::max<Time>(0, *job.spec.estimate - job.work_done) : 0);
    }
    if (p.starve_after > 0) boost_at = std::min(boost_at, job.spec.submit_time + p.starve_after);
    if (now >= boost_at) {
      job.boosted = true;
    } else if (boost_at != kNever) {
      s.boost_watch.insert({boost_at, job.spec.id});
      job.boost_at = boost_at;
    }
  }
  QueuePosition pos;
  pos.band = BaseBand(p, job);
  pos.scope = job.home_pool >= 0 ? job.home_pool : s.cluster.PoolCount();
  if (p.fair_share) pos.team = job.spec.team;
  pos.entry = {s.job_order->Key(job, now), job.spec.submit_time, job.spec.id};
  pos.needs_gpus = job.spec.gpus > 0;
  pos.shape = s.shapes.Intern(job, pos.scope);
  pos.never_ran = job.starts == 0 && job.work_done == 0;
  s.pending.Add(std::move(pos));
}

void Scheduler::Dequeue(Job& job) {
  state_->pending.Remove(job.spec.id);
  state_->boost_watch.erase({job.boost_at, job.spec.id});
  job.boost_at = kNever;
}

void Scheduler::PromoteBoosted(Time now) {
  auto& watch = state_->boost_watch;
  while (!watch.empty() && watch.begin()->first <= now) {
    const JobId id = watch.begin()->second;
    watch.erase(watch.begin());
    Job& job = state_->jobs.at(id);
    job.boost_at = kNever;
    job.boosted = true;
    Enqueue(job, now);
  }
}

void Scheduler::QueueBackedOff(Time now) {
  auto& watch = state_->back_watch;
  while (!watch.empty() && watch.begin()->first <= now) {
    Job& job = state_->jobs.at(watch.begin()->second);
    watch.erase(watch.begin());
    job.back_at = kNever;
    job.queued_since = now;
    Enqueue(job, now);
  }
}

// Nodes whose ban ended take work again.
void Scheduler::LiftBans(Time now) {
  EngineState& s = *state_;
  for (auto it = s.banned_until.begin(); it != s.banned_until.end();) {
    if (it->second > now) {
      ++it;
      continue;
    }
    const int node = it->first;
    it = s.banned_until.erase(it);
    RefreshAvailability(s, node);
  }
}

std::vector<Decision> Scheduler::Cycle(Time now) {
  QueueBackedOff(now);
  PromoteBoosted(now);
  StartServiceClocks(*state_, now);
  LiftBans(now);
  DropLostMoves(*state_);
  DropStalePipelines(*state_);
  CycleContext c(*state_, now);
  c.claims.swap(state_->claims);
  c.withdrawn.swap(state_->withdrawn);
  StopWithdrawn(c);
  ResumeMoves(c);
  for (const std::string& action : state_->policy.actions) {
    if (ActionFn run = ActionNamed(action)) run(c);  // a policy names known ones (Validate)
  }
  ++state_->counters.cycles;
  return c.TakeDecisions();
}

void Scheduler::Unhold(Job& job, Time now) {
  if (job.state == JobState::kRunning) UnindexRunning(*state_, job);
  ReleaseCapacity(*state_, job);
  if (job.bridging) job.bridged += now - job.run_start;
  job.bridging = false;
  job.leave_window_at = kNever;
  job.attained_gpu_s = job.AttainedGpuSeconds(now);
  if (job.spec.elastic.enabled()) job.time_at_width[job.spec.gpus] += now - job.run_start;
  auto waiting = state_->stop_for.find(job.spec.id);
  if (waiting != state_->stop_for.end()) {
    HoldPipelinedFreed(*state_, waiting->second, job.placement);
    auto a = state_->awaiting_stops.find(waiting->second);
    if (a != state_->awaiting_stops.end() && --a->second <= 0) {
      state_->claims.insert(a->first);
      state_->defrag_holds.erase(a->first);
      state_->awaiting_stops.erase(a);
    }
    state_->stop_for.erase(waiting);
  }
}

// What a job's stop leaves of its run: it waits again, with no placement.
void Scheduler::ClearRun(Job& job, Time now) {
  job.placement = {};
  job.slice_end = kNever;
  job.borrowed = false;
  job.run_checkpoint_interval = 0;
  job.run_speed_milli = 1000;
  job.must_leave_by = kNever;
  job.held_idle = false;
  job.queued_since = now;
}

Status Scheduler::Requeue(JobId id, Time now, Time back_at) {
  auto it = state_->jobs.find(id);
  if (it == state_->jobs.end() || !it->second.IsActive()) {
    return Status::Error("job " + std::to_string(id) + " is not running");
  }
  Job& job = it->second;
  Time saved = job.work_done;
  if (job.last_checkpoint != kNever && job.last_checkpoint >= job.run_start) {
    saved += job.RunProgress(job.last_checkpoint);
  }
  Unhold(job, now);
  DropMove(*state_, id);
  job.work_done = saved;
  ClearRun(job, now);
  if (back_at > now) {
    job.state = JobState::kPending;
    job.back_at = back_at;
    state_->back_watch.insert({back_at, id});
    return Status::Ok();
  }
  Enqueue(job, now);
  return Status::Ok();
}

Status Scheduler::Stopped(JobId id, Time now) {
  auto it = state_->jobs.find(id);
  if (it == state_->jobs.end() || it->second.state != JobState::kCheckpointing) {
    return Status::Error("job " + std::to_string(id) + " was not asked to stop");
  }
  Job& job = it->second;
  Unhold(job, now);
  job.work_done = job.saved_at_stop;
  ClearRun(job, now);
  if (state_->moves.count(id) && TakeMoveRest(*state_, id)) {
    job.state = JobState::kPending;  // the next cycle restarts it where the move holds GPUs
    return Status::Ok();
  }
  ++job.preemptions;
  Enqueue(job, now);
  // What it has run is a censored observation of its run time.
  if (state_->job_order->ObservePreempted(job, {now, &state_->jobs})) Rekey(now);
  return Status::Ok();
}

Result<Job> Scheduler::Finished(JobId id, Time now, bool success) {
  auto it = state_->jobs.find(id);
  if (it == state_->jobs.end() || !it->second.IsActive()) {
    return Status::Error("job " + std::to_string(id) + " is not running");
  }
  Job job = std::move(it->second);
  Unhold(job, now);
  DropMove(*state_, id);
  job.work_done += job.RunProgress(now);
  job.state = success ? JobState::kDone : JobState::kFailed;
  state_->jobs.erase(it);
  state_->elastic_jobs -= job.spec.elastic.enabled();
  LeaveArray(job, now);
  if (state_->job_order->Observe(job, {now, &state_->jobs})) Rekey(now);
  return job;
}

Result<Job> Scheduler::Cancel(JobId id, Time now) {
  auto it = state_->jobs.find(id);
  if (it == state_->jobs.end()) return Status::Error("job " + std::to_string(id) + " is not known");
  Job job = std::move(it->second);
  DropMove(*state_, id);
  if (job.IsActive()) {
    Unhold(job, now);
  } else {
    Dequeue(job);
    state_->back_watch.erase({job.back_at, id});
    state_->awaiting_stops.erase(id);
    state_->claims.erase(id);
    state_->defrag_holds.erase(id);
    DropPipelined(*state_, id);
  }
  job.state = JobState::kCancelled;
  state_->jobs.erase(it);
  state_->elastic_jobs -= job.spec.elastic.enabled();
  LeaveArray(job, now);
  return job;
}

Time Scheduler::NextWakeup() const {
  Time t = kNever;
  if (!state_->slice_ends.empty()) t = std::min(t, state_->slice_ends.begin()->first);
  if (!state_->boost_watch.empty()) t = std::min(t, state_->boost_watch.begin()->first);
  if (!state_->back_watch.empty()) t = std::min(t, state_->back_watch.begin()->first);
  for (const auto& [node, until] : state_->banned_until) t = std::min(t, until);
  return t;
}

std::vector<std::string> Scheduler::CardOutlook(JobId id, Time now) const {
  auto it = state_->jobs.find(id);
  if (it == state_->jobs.end() || it->second.state != JobState::kPending) return {};
  return squeeze::CardOutlook(CycleContext(*state_, now), it->second);
}

std::vector<std::string> Scheduler::RegionOutlook(JobId id, Time now) const {
  auto it = state_->jobs.find(id);
  if (it == state_->jobs.end() || it->second.state != JobState::kPending) return {};
  return squeeze::RegionOutlook(CycleContext(*state_, now), it->second);
}

std::vector<Reservation> Scheduler::ReservationsAhead(JobId id, Time now, size_t max) const {
  const CycleContext c(*state_, now);
  std::vector<Reservation> out;
  state_->pending.Walk(
      [&](const QueuePosition& p) {
        if (p.entry.id == id || out.size() >= max) return PendingQueue::Visit::kStop;
        if (auto r = ComputeReservation(c, state_->jobs.at(p.entry.id))) out.push_back(std::move(*r));
        return PendingQueue::Visit::kNext;
      },
      nullptr);
  return out;
}

const FragmentationBlocked& Scheduler::BlockedByFragmentation(Time now,
                                                              FragmentationMeter& meter) const {
  const CycleContext c(*state_, now);
  return meter.Measure(c);
}

void Scheduler::ForEachJob(const std::function<void(const Job&)>& visit) const {
  for (const auto& [id, job] : state_->jobs) visit(job);
}

void Scheduler::ForEachParked(const std::function<void(const Job&)>& visit) const {
  for (const auto& [array_id, array] : state_->arrays) {
    for (const auto& [task, id] : array.parked) visit(state_->jobs.at(id));
  }
}

void Scheduler::ForEachWaiting(const std::function<bool(const Job&)>& visit) const {
  state_->pending.Walk(
      [&](const QueuePosition& p) {
        return visit(state_->jobs.at(p.entry.id)) ? PendingQueue::Visit::kNext
                                                  : PendingQueue::Visit::kStop;
      },
      nullptr);
}

size_t Scheduler::WaitingAhead(JobId id, size_t show, std::vector<JobId>* first) const {
  size_t ahead = 0;
  state_->pending.Walk(
      [&](const QueuePosition& p) {
        if (p.entry.id == id) return PendingQueue::Visit::kStop;
        if (ahead++ < show) first->push_back(p.entry.id);
        return PendingQueue::Visit::kNext;
      },
      nullptr);
  return ahead;
}

int Scheduler::TeamPoolGpus(int pool, const std::string& team) const {
  auto it = state_->team_pool_gpus.find({pool, team});
  return it == state_->team_pool_gpus.end() ? 0 : it->second;
}

bool Scheduler::GpuClosed(int node, int gpu) const {
  auto it = state_->closed_gpus.find(node);
  return it != state_->closed_gpus.end() && gpu >= 0 && gpu < 64 && (it->second >> gpu & 1);
}

int Scheduler::StopsAwaited(JobId id) const {
  auto it = state_->awaiting_stops.find(id);
  return it == state_->awaiting_stops.end() ? 0 : it->second;
}

const Job* Scheduler::Find(JobId id) const {
  auto it = state_->jobs.find(id);
  return it == state_->jobs.end() ? nullptr : &it->second;
}

}  // namespace squeeze
