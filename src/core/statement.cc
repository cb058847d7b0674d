#include "core/statement.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "core/held_room.h"
#include "core/placement_math.h"
#include "core/topology.h"

namespace squeeze {

Statement::Statement(CycleContext& c) : c_(c), s_(c.state_) {
  assert(c_.open_statements_ == 0 && "one statement open at a time");
  ++c_.open_statements_;
}

Statement::~Statement() {
  if (open_) Discard();
}

Job& Statement::JobAt(JobId id) { return s_.jobs.at(id); }

Statement::Op Statement::NewOp(OpKind kind, JobId id) {
  assert(open_);
  Op op;
  op.kind = kind;
  op.job = id;
  if (kind != OpKind::kHoldNodes) op.before = JobAt(id);
  return op;
}

void Statement::SaveCap(Op& op, int node) {
  auto it = c_.caps.find(node);
  op.caps_before.try_emplace(node, it == c_.caps.end() ? std::nullopt
                                                       : std::optional<int>(it->second));
}

void Statement::RestoreCaps(const Op& op) {
  for (const auto& [node, cap] : op.caps_before) {
    if (cap) c_.caps[node] = *cap;
    else c_.caps.erase(node);
  }
}

void Statement::Start(JobId id, Placement placement, const StartOptions& how) {
  Job& job = JobAt(id);
  assert(job.state == JobState::kPending);
  Op op = NewOp(OpKind::kStart, id);
  op.start = how;
  if (how.charge_caps) {
    for (const NodeShare& share : placement.shares) SaveCap(op, share.node);
    c_.ChargeCaps(placement);
  }
  if (auto a = s_.awaiting_stops.find(id); a != s_.awaiting_stops.end()) {
    op.awaiting_before = a->second;
    s_.awaiting_stops.erase(a);
  }
  const Time now = c_.now;
  const bool restart = job.starts > 0;
  if (how.kind == StartKind::kSpot || how.kind == StartKind::kColocated) {
    job.run_checkpoint_interval = how.checkpoint_interval;
    job.bridging = how.bridging;
    job.leave_window_at = how.leave_window_at;
  }
  if (how.data_region >= 0 && how.data_region < 64) job.data_regions |= uint64_t{1} << how.data_region;
  job.placement = std::move(placement);
  job.state = JobState::kRunning;
  job.run_start = now;
  job.awaiting_launch = false;
  const Time restart_cost = how.resize && job.spec.elastic.resize_cost
                                ? *job.spec.elastic.resize_cost
                                : RestartOverhead(job.spec);
  job.run_overhead = (restart ? restart_cost : 0) + how.transfer;
  job.must_leave_by = kNever;
  job.run_speed_milli = RunSpeedMilli(s_, job);
  job.first_start = std::min(job.first_start, now);
  job.total_wait += now - job.queued_since;
  ++job.starts;
  job.borrowed = how.borrowed;
  job.min_runtime_until = now + job.run_overhead + s_.policy.min_runtime;
  const bool sliced = s_.policy.Has("slice") && job.spec.checkpointable && job.spec.preemptible;
  job.slice_end = sliced ? now + job.run_overhead + s_.policy.slice : kNever;
  // A run that will not finish in its GPUs' idle window checkpoints and leaves before it ends.
  job.slice_end = std::min(job.slice_end, job.leave_window_at);
  HoldCapacity(s_, job);
  IndexRunning(s_, job);
  s_.boost_watch.erase({job.boost_at, id});
  job.boost_at = kNever;

  Decision& d = op.decision;
  d.kind = Decision::Kind::kStart;
  d.job = id;
  d.placement = job.placement;
  d.resume = job.work_done > 0;
  d.overhead = job.run_overhead;
  d.slice_end = job.slice_end;
  d.borrowed = how.borrowed;
  d.checkpoint_interval = job.CheckpointInterval();
  d.speed = job.run_speed_milli / 1000.0;
  d.reason = how.reason;
  ops_.push_back(std::move(op));
}

void Statement::Evict(JobId id, const std::string& reason, StopKind kind,
                      std::optional<JobId> for_job) {
  Job& job = JobAt(id);
  assert(job.state == JobState::kRunning);
  Op op = NewOp(OpKind::kEvict, id);
  op.stop = kind;
  op.freed = FreedOnStop(s_, job.placement);
  s_.cluster.Release(op.freed);
  BeginStop(op, reason, for_job);
  ops_.push_back(std::move(op));
}

void Statement::BeginStop(Op& op, const std::string& reason, std::optional<JobId> for_job) {
  Job& job = JobAt(op.job);
  op.for_job = for_job;
  UnindexRunning(s_, job);
  job.state = JobState::kCheckpointing;
  job.saved_at_stop = job.SavedWorkIfStopped(c_.now);
  if (for_job) {
    ++s_.awaiting_stops[*for_job];
    s_.stop_for[op.job] = *for_job;
  }
  Decision& d = op.decision;
  d.kind = Decision::Kind::kStop;
  d.job = op.job;
  d.placement = job.placement;
  d.reason = reason;
}

void Statement::UndoStop(Op& op) {
  if (op.for_job) {
    auto a = s_.awaiting_stops.find(*op.for_job);
    if (--a->second == 0) s_.awaiting_stops.erase(a);
    s_.stop_for.erase(op.job);
  }
  Job& job = JobAt(op.job);
  job = std::move(op.before);
  IndexRunning(s_, job);
}

void Statement::MoveTo(JobId id, Placement to, bool borrowed, MoveKind kind) {
  Job& job = JobAt(id);
  assert(job.state == JobState::kCheckpointing && !s_.moves.count(id));
  Op op = NewOp(OpKind::kMoveTo, id);
  op.move = kind;
  op.borrowed = borrowed;
  op.held = to;
  s_.cluster.Allocate(to);
  s_.moves[id] = EngineState::Move{to, borrowed, to};
  if (kind == MoveKind::kDefrag || kind == MoveKind::kUpgrade) {
    job.move_times.erase(job.move_times.begin(),
                         std::upper_bound(job.move_times.begin(), job.move_times.end(),
                                          c_.now - kHour));
    job.move_times.push_back(c_.now);
    ++job.moves;
  }
  ops_.push_back(std::move(op));
}

void Statement::ResumeMove(JobId id) {
  auto it = s_.moves.find(id);
  assert(it != s_.moves.end() && JobAt(id).state == JobState::kPending);
  Op op = NewOp(OpKind::kUnholdMove, id);
  op.held = it->second.to;  // all of it held once the job has stopped (Scheduler::Stopped)
  op.borrowed = it->second.borrowed;
  const bool resize = it->second.resize;
  op.resize_move = resize;
  s_.moves.erase(it);
  s_.cluster.Release(op.held);
  Placement to = op.held;
  const bool borrowed = op.borrowed;
  ops_.push_back(std::move(op));
  StartOptions how;
  how.borrowed = borrowed;
  how.resize = resize;
  Job& job = JobAt(id);
  if (job.spec.elastic.enabled()) job.spec.gpus = to.GpuCount();
  Start(id, std::move(to), how);
}

void Statement::HoldNodes(JobId for_job, const std::vector<int>& nodes) {
  Op op = NewOp(OpKind::kHoldNodes, 0);
  op.for_job = for_job;
  op.nodes = nodes;
  auto [held, inserted] = s_.defrag_holds.try_emplace(for_job);
  op.holds_existed = !inserted;
  for (int node : nodes) {
    held->second.push_back(node);
    SaveCap(op, node);
    c_.caps[node] = 0;
  }
  ops_.push_back(std::move(op));
}

void Statement::ExtendSlice(JobId id) {
  Job& job = JobAt(id);
  Op op = NewOp(OpKind::kExtendSlice, id);
  UnindexRunning(s_, job);
  while (job.slice_end <= c_.now) job.slice_end += s_.policy.slice;
  ++job.slices;
  IndexRunning(s_, job);
  ops_.push_back(std::move(op));
}

void Statement::Pipeline(JobId id, Placement to, bool borrowed) {
  assert(JobAt(id).state == JobState::kPending && !s_.pipelined.count(id));
  Op op = NewOp(OpKind::kPipeline, id);
  s_.pipelined[id] = EngineState::Pipelined{std::move(to), borrowed, {}};
  ops_.push_back(std::move(op));
}

bool Statement::StartPipelined(JobId id) {
  auto it = s_.pipelined.find(id);
  assert(it != s_.pipelined.end());
  Op op = NewOp(OpKind::kUnpipeline, id);
  op.pipelined = std::move(it->second);
  s_.pipelined.erase(it);
  s_.cluster.Release(op.pipelined.held);
  bool fits = true;
  for (const NodeShare& share : op.pipelined.to.shares) fits = fits && s_.cluster.Fits(share);
  Placement to = op.pipelined.to;
  StartOptions how;
  how.borrowed = op.pipelined.borrowed;
  ops_.push_back(std::move(op));
  if (fits) Start(id, std::move(to), how);
  return fits;
}

void Statement::Undo(Op& op) {
  switch (op.kind) {
    case OpKind::kStart: {
      Job& job = JobAt(op.job);
      UnindexRunning(s_, job);
      UndoHold(s_, job);
      if (op.before.boost_at != kNever) s_.boost_watch.insert({op.before.boost_at, op.job});
      if (op.awaiting_before) s_.awaiting_stops[op.job] = *op.awaiting_before;
      RestoreCaps(op);
      job = std::move(op.before);
      break;
    }
    case OpKind::kEvict:
      s_.cluster.Allocate(op.freed);
      UndoStop(op);
      break;
    case OpKind::kMoveTo:
      s_.moves.erase(op.job);
      s_.cluster.Release(op.held);
      JobAt(op.job) = std::move(op.before);
      break;
    case OpKind::kUnholdMove:
      s_.cluster.Allocate(op.held);
      s_.moves[op.job] = EngineState::Move{op.held, op.borrowed, op.held, op.resize_move};
      JobAt(op.job) = std::move(op.before);
      break;
    case OpKind::kResize: case OpKind::kWiden:  // NOLINT(whitespace/newline)
      UndoElastic(op);
      break;
    case OpKind::kHoldNodes: {
      auto held = s_.defrag_holds.find(*op.for_job);
      if (!op.holds_existed) s_.defrag_holds.erase(held);
      else held->second.resize(held->second.size() - op.nodes.size());
      RestoreCaps(op);
      break;
    }
    case OpKind::kExtendSlice: {
      Job& job = JobAt(op.job);
      UnindexRunning(s_, job);
      job = std::move(op.before);
      IndexRunning(s_, job);
      break;
    }
    case OpKind::kPipeline:
      s_.pipelined.erase(op.job);
      break;
    case OpKind::kUnpipeline:
      s_.cluster.Allocate(op.pipelined.held);
      s_.pipelined[op.job] = std::move(op.pipelined);
      break;
  }
}

namespace {

int64_t& MoveCounter(SchedulerCounters& n, MoveKind kind) {
  switch (kind) {
    case MoveKind::kDefrag: return n.defrag_moves;
    case MoveKind::kUpgrade: return n.hardware_moves;
    case MoveKind::kReturnHome: break;
  }
  return n.returned_home;
}

}  // namespace

namespace {

// With a topology: a run on several nodes, and whether it is inside one block.
void CountTopology(const ClusterState& cluster, const Placement& placement, SchedulerCounters& n) {
  if (cluster.TopologyLevels() == 0 || placement.shares.size() < 2) return;
  ++n.multi_node_starts;
  if (SpreadLevel(cluster, placement) < 0) ++n.one_block_starts;
}

}  // namespace

void Statement::Commit() {
  assert(open_);
  SchedulerCounters& n = s_.counters;
  for (Op& op : ops_) {
    switch (op.kind) {
      case OpKind::kStart: {
        const StartOptions& how = op.start;
        ++n.starts;
        if (how.borrowed) ++n.borrowed_starts;
        if (how.kind == StartKind::kSpot) ++n.spot_starts;
        if (how.kind == StartKind::kColocated) ++n.colocated_starts;
        if (how.bridging) ++n.spot_long_bridges;
        if (how.long_job_every) ++n.spot_long_every;
        CountTopology(s_.cluster, op.decision.placement, n);
        if (how.kind == StartKind::kRegion) {
          ++n.region_moves;
          n.data_moved_gb += how.data_gb;
          n.data_transfer_cost += how.data_cost;
        }
        c_.decisions_.push_back(std::move(op.decision));
        c_.started_.push_back(op.job);
        break;
      }
      case OpKind::kEvict:
        // It holds its GPUs until it has stopped.
        for (const NodeShare& share : op.freed.shares) {
          (void)share;
          assert(s_.cluster.Fits(share) && "an eviction's capacity was taken in its statement");
        }
        s_.cluster.Allocate(op.freed);
        if (op.stop == StopKind::kPreemption) ++n.preemptions;
        if (op.stop == StopKind::kSliceYield) ++n.slice_yields;
        c_.decisions_.push_back(std::move(op.decision));
        break;
      case OpKind::kMoveTo:
        ++MoveCounter(n, op.move);
        break;
      case OpKind::kPipeline: {
        Placement freed;  // by this statement's victims of the job, which hold it again now
        for (const Op& evict : ops_) {
          if (evict.kind == OpKind::kEvict && evict.for_job == op.job) {
            freed = Joined(std::move(freed), evict.freed);
          }
        }
        HoldPipelinedFree(s_, op.job, freed);
        break;
      }
      case OpKind::kResize:
      case OpKind::kWiden:
        CommitElastic(op);
        break;
      case OpKind::kUnholdMove:
      case OpKind::kUnpipeline:
      case OpKind::kHoldNodes:
      case OpKind::kExtendSlice:
        break;
    }
  }
  Close();
}

void Statement::Discard() {
  assert(open_);
  for (auto op = ops_.rbegin(); op != ops_.rend(); ++op) Undo(*op);
  Close();
}

void Statement::Close() {
  ops_.clear();
  open_ = false;
  --c_.open_statements_;
}

}  // namespace squeeze
