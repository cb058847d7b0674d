#include "sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>

#include "core/dependency_graph.h"
#include "core/fragmentation_blocked.h"
#include "core/rng.h"
#include "core/scheduler.h"
#include "sim/invariants.h"
#include "sim/sim_counters.h"

namespace squeeze {
namespace {

enum class EventKind : int {
  kFinish = 0,
  kStopped = 1,
  kReturn = 2,   // a reclaimed spot node is back
  kReclaim = 3,  // a spot node is reclaimed
  kLoad = 4,     // a colocated GPU's inference load crosses its threshold
  kArrival = 5,
  kWakeup = 6,
};

struct Event {
  Time time;
  EventKind kind;
  int64_t seq;    // arrival index for arrivals, else insertion order
  JobId job;
  int run;        // which run of the job a finish belongs to
  bool operator>(const Event& o) const {
    if (time != o.time) return time > o.time;
    if (kind != o.kind) return kind > o.kind;
    return seq > o.seq;
  }
};

struct Running {
  int run = 0;
  Time run_start = 0;
  Time stop_at = kNever;  // when it was asked to stop
  bool hits_limit = false;  // its time limit comes before its work is done
};

class SimRun {
 public:
  SimRun(const Trace& trace, const Policy& policy, const SimOptions& options,
         std::unique_ptr<Scheduler> scheduler)
      : trace_(trace), policy_(policy), options_(options), sched_(std::move(scheduler)),
        checker_(sched_->cluster()) {}

  Result<SimResult> Run();

 private:
  void Push(Time t, EventKind kind, JobId job, int run, int64_t seq = -1) {
    events_.push({t, kind, seq >= 0 ? seq : next_seq_++, job, run});
  }
  Status Handle(const Event& e);
  Status CycleAt(Time now);
  Status Apply(const Decision& d, Time now, bool* zero_cost_stop);
  Status Finish(JobId id, Time now);
  // The trace's job at `index` to the scheduler, as the options have it (pools, oracle
  // estimates); a job it refuses is recorded as rejected (and ends not ok for its dependents).
  void SubmitToCore(size_t index, Time now);
  // Jobs with dependencies (core/dependency_graph.h): those now free to go are submitted,
  // those that never can be are recorded.
  void ApplyLinks(const DependencyGraph::Changes& changes, Time now);
  void Ended(JobId id, bool ok, Time now);
  // Adds the blocked demand measured last over the time since it was measured.
  void AccrueBlocked(Time now);
  // Takeable capacity: spot reclaims drawn from each node's seeded process, colocated GPUs'
  // inference load from the load trace (only its crossings of the threshold matter).
  Status SetUpTakeable();
  bool JobsLeft() const { return arrived_ < trace_.jobs.size() || sched_->JobCount() > 0; }
  void ReportProgress(Time now, bool end);
  // The time to a spot node's next reclaim (whole seconds), from its seeded stream.
  Time NextReclaimGap(int node);
  // `traced`: the index of the trace's warning (reclaim trace), else unused.
  Status Reclaim(int node, Time now, int traced);
  Status LoadCrossing(int unit, Time now);
  void PushNextCrossing(int unit, Time after);
  // A run leaves its GPUs at `now`: counts a violation for each colocated GPU it held longer
  // than evict_within after inference needed it.
  void CheckEviction(const Job& job, Time now);

  const Trace& trace_;
  const Policy& policy_;
  const SimOptions& options_;
  std::unique_ptr<Scheduler> sched_;
  InvariantChecker checker_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::unordered_map<JobId, int> index_of_;  // job id -> trace index
  std::unordered_map<JobId, Running> running_;
  Time next_wakeup_ = kNever;
  int64_t next_seq_ = 1LL << 40;
  SimResult result_;
  size_t finished_ = 0;
  bool changed_ = false;  // the queue or the free capacity changed since the last measure
  FragmentationMeter blocked_;
  Time blocked_since_ = 0;
  size_t arrived_ = 0;
  uint64_t steps_ = 0;  // event times handled, for the pace of progress reports
  Time first_submit_ = 0;
  std::vector<Rng> reclaim_rng_;  // by node (spot pools with a mean interval)
  std::vector<Time> trace_warning_;  // the reclaim trace's warnings, by event
  std::set<int> away_;               // spot nodes reclaimed and not back yet
  Time last_end_ = 0;                // the last job's end
  // Colocated GPUs (units) and the crossings of their series' load over the threshold.
  struct Crossing {
    Time offset = 0;  // in the period
    bool over = false;
    double load = 0;
  };
  struct LoadUnit {
    int node = 0;
    int gpu = 0;
    double threshold = 0;
    Time evict_within = 0;
    const std::vector<Crossing>* crossings = nullptr;
    size_t next = 0;   // index of the next crossing
    Time period_start = 0;
    Time over_since = 0;  // the load is over the threshold since then (kNever: not); starts
                          // over: a GPU takes no training until its load is known
  };
  std::vector<LoadUnit> units_;
  std::map<std::pair<int, int>, int> unit_of_;  // (node, gpu) -> unit
  std::map<std::pair<size_t, double>, std::vector<Crossing>> crossings_;
  // Only for a trace with dependencies: the graph, and how every ended job ended (done).
  bool links_ = false;
  DependencyGraph deps_;
  std::unordered_map<JobId, bool> ended_ok_;
};

void SimRun::SubmitToCore(size_t index, Time now) {
  const TraceJob& tj = trace_.jobs[index];
  JobSpec spec = tj.spec;
  if (options_.ignore_trace_pools) spec.pool.clear();
  if (policy_.oracle_estimates) spec.estimate = tj.duration;
  if (Status st = sched_->Submit(spec, now); !st.ok()) {
    result_.rejected.push_back(st.message());
    Ended(spec.id, false, now);
    return;
  }
  changed_ = true;
}

void SimRun::Ended(JobId id, bool ok, Time now) {
  if (!links_) return;
  ended_ok_[id] = ok;
  ApplyLinks(deps_.Ended(id, ok), now);
}

void SimRun::ApplyLinks(const DependencyGraph::Changes& changes, Time now) {
  for (JobId id : changes.never) {
    ended_ok_[id] = false;
    result_.dependency_never.push_back(id);
  }
  for (JobId id : changes.ready) SubmitToCore(static_cast<size_t>(index_of_.at(id)), now);
}

Result<SimResult> SimRun::Run() {
  const auto t0 = std::chrono::steady_clock::now();
  result_.policy = policy_.name;
  result_.total_gpus = sched_->cluster().TotalGpus();
  result_.pool_gpu_s.assign(sched_->cluster().PoolCount(), 0.0);
  result_.frag_blocked_gpu_s_by_scope.assign(sched_->cluster().PoolCount() + 1, 0.0);
  first_submit_ = trace_.jobs.empty() ? 0 : kNever;
  for (const TraceJob& j : trace_.jobs) first_submit_ = std::min(first_submit_, j.spec.submit_time);
  for (size_t i = 0; i < trace_.jobs.size(); ++i) {
    Push(trace_.jobs[i].spec.submit_time, EventKind::kArrival, 0, 0, static_cast<int64_t>(i));
    links_ = links_ || !trace_.jobs[i].spec.dependencies.empty();
  }
  if (Status st = SetUpTakeable(); !st.ok()) return st;
  Time last = 0;
  while (!events_.empty()) {
    const Time now = events_.top().time;
    if (now < last) {
      return Status::Error("simulation: time went back from " +
                           std::to_string(WholeSeconds(last)));
    }
    last = now;
    AccrueBlocked(now);
    while (!events_.empty() && events_.top().time == now) {
      Event e = events_.top();
      events_.pop();
      if (Status st = Handle(e); !st.ok()) return st;
    }
    if (Status st = CycleAt(now); !st.ok()) return st;
    if (changed_ && options_.measure_fragmentation) {
      sched_->BlockedByFragmentation(now, blocked_);
      changed_ = false;
    }
    if (options_.progress && (++steps_ & 0x3f) == 0) ReportProgress(now, false);
  }
  if (deps_.size() != 0) {
    return Status::Error("simulation: " + std::to_string(deps_.size()) +
                         " jobs still wait on their dependencies at the end");
  }
  result_.most_array_running = checker_.MostArrayRunning();
  if (sched_->JobCount() != 0) {
    return Status::Error("simulation: " + std::to_string(sched_->JobCount()) +
                         " jobs never finished (a job no node can hold?)");
  }
  CopyCounters(sched_->counters(), &result_);
  if (!options_.measure_fragmentation) {
    result_.frag_blocked_gpu_s = std::nan("");
    for (double& s : result_.frag_blocked_gpu_s_by_scope) s = std::nan("");
  }
  // Up to the last job's end (a reclaim or load event after it is not part of the run).
  result_.makespan = (finished_ > 0 ? last_end_ : last) - first_submit_;
  result_.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (options_.progress) ReportProgress(last, true);
  return std::move(result_);
}

void SimRun::ReportProgress(Time now, bool end) {
  SimProgress p;
  p.jobs = trace_.jobs.size();
  p.finished = finished_;
  p.done = end || p.jobs == 0 ? 1.0 : static_cast<double>(finished_) / p.jobs;
  p.now = now - first_submit_;
  p.running = running_.size();
  const size_t held = sched_->JobCount();  // waiting and running
  p.waiting = held - std::min(p.running, held);
  p.end = end;
  options_.progress(p);
}

void SimRun::AccrueBlocked(Time now) {
  const double seconds = ToSeconds(now - blocked_since_);
  blocked_since_ = now;
  const FragmentationBlocked& blocked = blocked_.last();
  if (blocked.milli == 0 || seconds <= 0) return;
  result_.frag_blocked_gpu_s += seconds * static_cast<double>(blocked.milli) / kMilliPerGpu;
  for (size_t scope = 0; scope < blocked.milli_by_scope.size(); ++scope) {
    result_.frag_blocked_gpu_s_by_scope[scope] +=
        seconds * static_cast<double>(blocked.milli_by_scope[scope]) / kMilliPerGpu;
  }
}

Status SimRun::Handle(const Event& e) {
  switch (e.kind) {
    case EventKind::kReclaim:
      changed_ = true;
      return Reclaim(static_cast<int>(e.job), e.time, e.run);
    case EventKind::kReturn: {
      changed_ = true;
      const int node = static_cast<int>(e.job);
      away_.erase(node);
      if (Status st = sched_->Returned(node, e.time); !st.ok()) return st;
      if (JobsLeft() && options_.reclaim_trace == nullptr) {
        Push(e.time + NextReclaimGap(node), EventKind::kReclaim, node, 0);
      }
      return Status::Ok();
    }
    case EventKind::kLoad:
      changed_ = true;
      return LoadCrossing(static_cast<int>(e.job), e.time);
    case EventKind::kArrival: {
      ++arrived_;
      const TraceJob& tj = trace_.jobs[e.seq];
      index_of_[tj.spec.id] = static_cast<int>(e.seq);
      if (!links_) {
        SubmitToCore(e.seq, e.time);
        return Status::Ok();
      }
      auto ready = deps_.Add(tj.spec, [this](JobId t) -> std::optional<bool> {
        auto it = ended_ok_.find(t);
        if (it == ended_ok_.end()) return std::nullopt;
        return it->second;
      });
      if (!ready.ok()) return ready.status().WithContext("simulation");
      if (*ready == DependencyGraph::Readiness::kReady) {
        SubmitToCore(e.seq, e.time);
      } else if (*ready == DependencyGraph::Readiness::kNever) {
        result_.dependency_never.push_back(tj.spec.id);
        Ended(tj.spec.id, false, e.time);
      }
      return Status::Ok();
    }
    case EventKind::kFinish: {
      auto it = running_.find(e.job);
      if (it == running_.end() || it->second.run != e.run) return Status::Ok();  // stale
      changed_ = true;
      return Finish(e.job, e.time);
    }
    case EventKind::kStopped: {
      auto it = running_.find(e.job);
      if (it == running_.end() || it->second.run != e.run) return Status::Ok();  // it finished
      const Job* job = sched_->Find(e.job);
      checker_.OnStop(*job, it->second.run_start, it->second.stop_at, e.time);
      CheckEviction(*job, e.time);
      ChargePools(sched_->cluster(), *job, it->second.run_start, e.time, &result_.pool_gpu_s);
      running_.erase(it);
      changed_ = true;
      return sched_->Stopped(e.job, e.time);
    }
    case EventKind::kWakeup:
      if (e.time == next_wakeup_) next_wakeup_ = kNever;
      changed_ = true;  // jobs may have moved up in the queue
      return Status::Ok();
  }
  return Status::Ok();
}

Status SimRun::Finish(JobId id, Time now) {
  Running run = running_.at(id);
  running_.erase(id);
  const Job* live = sched_->Find(id);
  checker_.OnStop(*live, run.run_start, kNever, now);
  CheckEviction(*live, now);
  ChargePools(sched_->cluster(), *live, run.run_start, now, &result_.pool_gpu_s);
  auto done = sched_->Finished(id, now, !run.hits_limit);
  if (!done.ok()) return done.status();
  const Job& job = *done;
  const TraceJob& tj = trace_.jobs[index_of_.at(id)];
  const double lost_elastic = checker_.LostGpuSeconds(id);
  if (!run.hits_limit) {
    if (Status st = checker_.OnFinish(job, tj.duration); !st.ok()) return st;
  }
  JobRecord r;
  r.id = id;
  r.pool = job.home_pool;
  r.gpus = job.spec.gpus;
  RecordWidths(job, &r);
  r.submit = job.spec.submit_time;
  r.first_start = job.first_start;
  r.end = now;
  r.queue = job.total_wait;
  r.duration = tj.duration;
  r.urgency = tj.spec.urgency;
  r.preemptions = job.preemptions;
  const double share = static_cast<double>(job.spec.gpus) * job.spec.gpu_milli / kMilliPerGpu;
  // A run stopped at its limit did not finish its work: all it held is lost. An elastic job's
  // useful GPU-seconds depend on the widths it ran at: its loss is what the checker counted.
  r.lost_gpu_s = run.hits_limit ? job.attained_gpu_s
                 : r.elastic    ? lost_elastic
                                : job.attained_gpu_s - ToSeconds(tj.duration) * share;
  r.had_deadline = job.spec.deadline.has_value();
  r.deadline_missed = r.had_deadline && now > *job.spec.deadline;
  r.timed_out = run.hits_limit;
  result_.busy_gpu_s += job.attained_gpu_s;
  last_end_ = std::max(last_end_, now);
  result_.jobs.push_back(r);
  ++finished_;
  Ended(id, !run.hits_limit, now);
  return Status::Ok();
}

Status SimRun::CycleAt(Time now) {
  for (int round = 0; round < 64; ++round) {
    bool zero_cost_stop = false;
    for (const Decision& d : sched_->Cycle(now)) {
      changed_ = true;
      if (options_.on_decision) options_.on_decision(now, d);
      if (Status st = Apply(d, now, &zero_cost_stop); !st.ok()) return st;
    }
    if (!zero_cost_stop) break;
    // Stops that take no time happened at once: let the freed GPUs be used now.
    while (!events_.empty() && events_.top().time == now &&
           events_.top().kind == EventKind::kStopped) {
      Event e = events_.top();
      events_.pop();
      if (Status st = Handle(e); !st.ok()) return st;
    }
  }
  const Time wake = sched_->NextWakeup();
  if (wake != kNever && wake > now && wake < next_wakeup_) {
    next_wakeup_ = wake;
    Push(wake, EventKind::kWakeup, 0, 0);
  } else if (wake != kNever && wake <= now) {
    Push(now + kSecond, EventKind::kWakeup, 0, 0);
  }
  return Status::Ok();
}

Status SimRun::Apply(const Decision& d, Time now, bool* zero_cost_stop) {
  const Job* job = sched_->Find(d.job);
  const TraceJob& tj = trace_.jobs[index_of_.at(d.job)];
  if (d.kind == Decision::Kind::kStart) {
    if (Status st = checker_.OnStart(*job); !st.ok()) return st;
    if (links_ && job->starts == 1) {
      DependencyGraph::Changes released = deps_.Started(d.job);  // `after`
      ApplyLinks(released, now);
      if (!released.ready.empty()) Push(now, EventKind::kWakeup, 0, 0);  // a cycle for them
    }
    job = sched_->Find(d.job);  // the jobs it released were submitted: look it up again
    Running& r = running_[d.job];
    r.run = job->starts;
    r.run_start = now;
    r.stop_at = kNever;
    const Time remaining = std::max<Time>(0, tj.duration - job->work_done);
    Time end = now + d.overhead + job->TimeForWork(remaining);
    if (job->spec.time_limit && now + *job->spec.time_limit < end) {
      end = now + *job->spec.time_limit;  // stopped there, and ends timed out
      r.hits_limit = true;
    }
    Push(end, EventKind::kFinish, d.job, r.run);
    return Status::Ok();
  }
  Running& r = running_.at(d.job);
  r.stop_at = now;
  const Time cost = job->StopTakes(now);
  Push(now + cost, EventKind::kStopped, d.job, r.run);
  if (cost == 0) *zero_cost_stop = true;
  return Status::Ok();
}

Status SimRun::SetUpTakeable() {
  const ClusterState& cluster = sched_->cluster();
  const ClusterSpec& spec = cluster.spec();
  reclaim_rng_.reserve(spec.nodes.size());
  if (const ReclaimTrace* trace = options_.reclaim_trace) {
    std::map<std::string, int> index;
    for (size_t n = 0; n < spec.nodes.size(); ++n) index[spec.nodes[n].name] = static_cast<int>(n);
    for (const ReclaimEvent& e : trace->events) {
      const std::string at = trace->source + ":" + std::to_string(e.line) + ": node '" + e.node + "'";
      auto it = index.find(e.node);
      if (it == index.end()) return Status::Error(at + " is not in the cluster");
      const PoolSpec& pool = spec.pools[cluster.node(it->second).pool];
      if (pool.kind != PoolKind::kSpot) {
        return Status::Error(at + " is in pool " + pool.name + ", which is not a spot pool");
      }
      trace_warning_.push_back(e.warning.value_or(pool.spot.warning));
      Push(e.time, EventKind::kReclaim, it->second,
           static_cast<int>(trace_warning_.size() - 1));
    }
  }
  for (size_t n = 0; n < spec.nodes.size(); ++n) {
    // One stream per node, so that adding a node does not change the others' reclaims.
    reclaim_rng_.emplace_back(options_.seed * 0x9E3779B97F4A7C15ULL + n * 0xBF58476D1CE4E5B9ULL + 1);
    const PoolSpec& pool = spec.pools[cluster.node(static_cast<int>(n)).pool];
    if (pool.kind != PoolKind::kSpot || pool.spot.mean_reclaim_interval <= 0) continue;
    if (options_.reclaim_trace != nullptr) continue;
    Push(NextReclaimGap(static_cast<int>(n)), EventKind::kReclaim, static_cast<JobId>(n), 0);
  }
  const InferenceLoad* load = options_.inference_load;
  if (load == nullptr || load->series.empty() || load->period <= 0) return Status::Ok();
  size_t k = 0;
  for (size_t n = 0; n < spec.nodes.size(); ++n) {
    const PoolSpec& pool = spec.pools[cluster.node(static_cast<int>(n)).pool];
    if (pool.kind != PoolKind::kColocated) continue;
    for (int g = 0; g < cluster.node(static_cast<int>(n)).gpus && g < 64; ++g, ++k) {
      LoadUnit u;
      u.node = static_cast<int>(n);
      u.gpu = g;
      u.threshold = 1 - pool.colocation.cap;
      u.evict_within = pool.colocation.evict_within;
      const size_t series = k % load->series.size();
      auto key = std::make_pair(series, u.threshold);
      auto it = crossings_.find(key);
      if (it == crossings_.end()) {
        std::vector<Crossing> list;
        bool over = false;
        for (const auto& [offset, value] : load->series[series].points) {
          const bool now_over = value > u.threshold + 1e-9;
          if (list.empty() || now_over != over) list.push_back({offset, now_over, value});
          over = now_over;
        }
        it = crossings_.emplace(key, std::move(list)).first;
      }
      u.crossings = &it->second;
      unit_of_[{u.node, u.gpu}] = static_cast<int>(units_.size());
      units_.push_back(u);
    }
  }
  for (size_t i = 0; i < units_.size(); ++i) PushNextCrossing(static_cast<int>(i), -1);
  return Status::Ok();
}

void SimRun::PushNextCrossing(int unit, Time after) {
  LoadUnit& u = units_[unit];
  const auto& list = *u.crossings;
  const bool over_now = u.over_since != kNever;
  // The list alternates but for its first entry, which may repeat the state the period's last
  // entry left (or, at the start, the closed state every colocated GPU starts in).
  if (list.empty() || (list.size() == 1 && list[0].over == over_now)) return;
  const Time period = options_.inference_load->period;
  while (true) {
    if (u.next >= list.size()) {
      u.next = 0;
      u.period_start += period;
    }
    const Time at = u.period_start + list[u.next].offset;
    if (list[u.next].over != over_now && at > after) {
      Push(at, EventKind::kLoad, unit, 0);
      return;
    }
    ++u.next;
  }
}

Status SimRun::LoadCrossing(int unit, Time now) {
  LoadUnit& u = units_[unit];
  const Crossing& c = (*u.crossings)[u.next];
  u.over_since = c.over ? now : kNever;
  ++u.next;
  if (Status st = sched_->SetInferenceLoad(u.node, u.gpu, c.load, now); !st.ok()) return st;
  if (JobsLeft()) PushNextCrossing(unit, now);
  return Status::Ok();
}

Time SimRun::NextReclaimGap(int node) {
  const PoolSpec& pool = sched_->cluster().spec().pools[sched_->cluster().node(node).pool];
  // Exponential with the pool's mean, from a uniform in (0, 1) of 53 bits; drawn in whole
  // seconds, so that a seed gives the same reclaims at any tick.
  const double u = (static_cast<double>(reclaim_rng_[node].Next() >> 11) + 0.5) / 9007199254740992.0;
  return Seconds(std::max<int64_t>(
      1, static_cast<int64_t>(-std::log(u) * ToSeconds(pool.spot.mean_reclaim_interval))));
}

Status SimRun::Reclaim(int node, Time now, int traced) {
  const PoolSpec& pool = sched_->cluster().spec().pools[sched_->cluster().node(node).pool];
  Time warning = pool.spot.warning;
  if (options_.reclaim_trace != nullptr) {
    // A notice for a node that is away already (reclaimed, not back yet) changes nothing.
    if (away_.count(node)) return Status::Ok();
    warning = trace_warning_.at(traced);
  }
  if (Status st = sched_->Reclaimed(node, now, warning); !st.ok()) return st;
  away_.insert(node);
  Push(now + std::max(warning, pool.spot.outage), EventKind::kReturn, node, 0);
  return Status::Ok();
}

void SimRun::CheckEviction(const Job& job, Time now) {
  if (units_.empty()) return;
  for (const NodeShare& share : job.placement.shares) {
    for (int g : share.gpus) {
      auto it = unit_of_.find({share.node, g});
      if (it == unit_of_.end()) continue;
      const LoadUnit& u = units_[it->second];
      if (u.over_since != kNever && now > u.over_since + u.evict_within) {
        ++result_.inference_violations;
      }
    }
  }
}

}  // namespace

Result<SimResult> Simulate(const Trace& trace, const ClusterSpec& cluster, const Policy& policy,
                           const SimOptions& options) {
  auto sched = Scheduler::Create(cluster, policy);
  if (!sched.ok()) return sched.status();
  SimRun run(trace, policy, options, std::move(*sched));
  return run.Run();
}

}  // namespace squeeze
