#include "sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <queue>
#include <unordered_map>

#include "core/fragmentation_blocked.h"
#include "core/scheduler.h"
#include "sim/invariants.h"

namespace squeeze {
namespace {

enum class EventKind : int { kFinish = 0, kStopped = 1, kArrival = 2, kWakeup = 3 };

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
  // Adds a run's GPU time, from `run_start` to `end`, to the pools it held GPUs of.
  void ChargePools(const Job& job, Time run_start, Time end);
  // Adds the blocked demand measured last over the time since it was measured.
  void AccrueBlocked(Time now);

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
};

Result<SimResult> SimRun::Run() {
  const auto t0 = std::chrono::steady_clock::now();
  result_.policy = policy_.name;
  result_.total_gpus = sched_->cluster().TotalGpus();
  result_.pool_gpu_s.assign(sched_->cluster().PoolCount(), 0.0);
  result_.frag_blocked_gpu_s_by_scope.assign(sched_->cluster().PoolCount() + 1, 0.0);
  for (size_t i = 0; i < trace_.jobs.size(); ++i) {
    Push(trace_.jobs[i].spec.submit_time, EventKind::kArrival, 0, 0, static_cast<int64_t>(i));
  }
  Time last = 0;
  while (!events_.empty()) {
    const Time now = events_.top().time;
    if (now < last) return Status::Error("simulation: time went back from " + std::to_string(last));
    last = now;
    AccrueBlocked(now);
    while (!events_.empty() && events_.top().time == now) {
      Event e = events_.top();
      events_.pop();
      if (Status st = Handle(e); !st.ok()) return st;
    }
    if (Status st = CycleAt(now); !st.ok()) return st;
    if (changed_) {
      sched_->BlockedByFragmentation(now, blocked_);
      changed_ = false;
    }
    if (options_.progress && (finished_ & 0x3fff) == 0) {
      options_.progress(static_cast<double>(finished_) / trace_.jobs.size());
    }
  }
  if (sched_->JobCount() != 0) {
    return Status::Error("simulation: " + std::to_string(sched_->JobCount()) +
                         " jobs never finished (a job no node can hold?)");
  }
  const auto& counters = sched_->counters();
  result_.preemptions = counters.preemptions;
  result_.slice_yields = counters.slice_yields;
  result_.borrowed_starts = counters.borrowed_starts;
  result_.defrag_moves = counters.defrag_moves;
  result_.region_moves = counters.region_moves;
  result_.data_moved_gb = counters.data_moved_gb;
  result_.data_transfer_cost = counters.data_transfer_cost;
  result_.cycles = counters.cycles;
  Time first_submit = trace_.jobs.empty() ? 0 : kNever;
  for (const TraceJob& j : trace_.jobs) first_submit = std::min(first_submit, j.spec.submit_time);
  result_.makespan = last - first_submit;
  result_.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (options_.progress) options_.progress(1.0);
  return std::move(result_);
}

void SimRun::AccrueBlocked(Time now) {
  const double seconds = static_cast<double>(now - blocked_since_);
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
    case EventKind::kArrival: {
      const TraceJob& tj = trace_.jobs[e.seq];
      JobSpec spec = tj.spec;
      if (options_.ignore_trace_pools) spec.pool.clear();
      if (policy_.oracle_estimates) spec.estimate = tj.duration;
      if (Status st = sched_->Submit(spec, e.time); !st.ok()) {
        result_.rejected.push_back(st.message());
        return Status::Ok();
      }
      index_of_[spec.id] = static_cast<int>(e.seq);
      changed_ = true;
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
      ChargePools(*job, it->second.run_start, e.time);
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

void SimRun::ChargePools(const Job& job, Time run_start, Time end) {
  const double held = static_cast<double>(end - run_start);
  for (const NodeShare& share : job.placement.shares) {
    const int pool = sched_->cluster().node(share.node).pool;
    result_.pool_gpu_s[pool] +=
        held * static_cast<double>(share.gpus.size()) * share.milli_per_gpu / kMilliPerGpu;
  }
}

Status SimRun::Finish(JobId id, Time now) {
  Running run = running_.at(id);
  running_.erase(id);
  const Job* live = sched_->Find(id);
  checker_.OnStop(*live, run.run_start, kNever, now);
  ChargePools(*live, run.run_start, now);
  auto done = sched_->Finished(id, now, true);
  if (!done.ok()) return done.status();
  const Job& job = *done;
  const TraceJob& tj = trace_.jobs[index_of_.at(id)];
  if (Status st = checker_.OnFinish(job, tj.duration); !st.ok()) return st;
  JobRecord r;
  r.id = id;
  r.pool = job.home_pool;
  r.gpus = job.spec.gpus;
  r.submit = job.spec.submit_time;
  r.first_start = job.first_start;
  r.end = now;
  r.queue = job.total_wait;
  r.duration = tj.duration;
  r.preemptions = job.preemptions;
  const double share = static_cast<double>(job.spec.gpus) * job.spec.gpu_milli / kMilliPerGpu;
  r.lost_gpu_s = job.attained_gpu_s - static_cast<double>(tj.duration) * share;
  r.had_deadline = job.spec.deadline.has_value();
  r.deadline_missed = r.had_deadline && now > *job.spec.deadline;
  result_.busy_gpu_s += job.attained_gpu_s;
  result_.jobs.push_back(r);
  ++finished_;
  return Status::Ok();
}

Status SimRun::CycleAt(Time now) {
  for (int round = 0; round < 64; ++round) {
    bool zero_cost_stop = false;
    for (const Decision& d : sched_->Cycle(now)) {
      changed_ = true;
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
    Push(now + 1, EventKind::kWakeup, 0, 0);
  }
  return Status::Ok();
}

Status SimRun::Apply(const Decision& d, Time now, bool* zero_cost_stop) {
  const Job* job = sched_->Find(d.job);
  const TraceJob& tj = trace_.jobs[index_of_.at(d.job)];
  if (d.kind == Decision::Kind::kStart) {
    if (Status st = checker_.OnStart(*job); !st.ok()) return st;
    Running& r = running_[d.job];
    r.run = job->starts;
    r.run_start = now;
    r.stop_at = kNever;
    const Time remaining = std::max<Time>(0, tj.duration - job->work_done);
    Push(now + d.overhead + remaining, EventKind::kFinish, d.job, r.run);
    return Status::Ok();
  }
  Running& r = running_.at(d.job);
  r.stop_at = now;
  const Time cost = job->spec.checkpointable ? job->spec.checkpoint_cost : 0;
  Push(now + cost, EventKind::kStopped, d.job, r.run);
  if (cost == 0) *zero_cost_stop = true;
  return Status::Ok();
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
