// The statement's operations on elastic jobs: a resize of a running job (a stop at a checkpoint
// and a restart at another width, core/elastic.h) and the widening of a job started in this
// cycle, before its driver has seen the start.
#include <algorithm>
#include <cassert>
#include <utility>

#include "core/held_room.h"
#include "core/placement_math.h"
#include "core/statement.h"

namespace squeeze {
namespace {

// `width` GPUs of `placement`: the nodes where it has the most GPUs first (ties: the lower
// node), a node's first GPUs of a share, its CPU and memory in proportion.
Placement KeptPart(const Placement& placement, int width) {
  std::vector<const NodeShare*> order;
  for (const NodeShare& share : placement.shares) order.push_back(&share);
  std::stable_sort(order.begin(), order.end(), [](const NodeShare* a, const NodeShare* b) {
    return a->gpus.size() != b->gpus.size() ? a->gpus.size() > b->gpus.size() : a->node < b->node;
  });
  Placement out;
  int left = width;
  for (const NodeShare* share : order) {
    if (left <= 0) break;
    const int n = static_cast<int>(share->gpus.size());
    if (n == 0) continue;
    const int take = std::min(left, n);
    NodeShare kept = *share;
    kept.gpus.resize(static_cast<size_t>(take));
    kept.cpu_milli = share->cpu_milli * take / n;
    kept.memory_mib = share->memory_mib * take / n;
    out.shares.push_back(std::move(kept));
    left -= take;
  }
  return out;
}

bool AllFit(const ClusterState& cluster, const Placement& p) {
  for (const NodeShare& share : p.shares) {
    if (!cluster.Fits(share)) return false;
  }
  return true;
}

}  // namespace

std::optional<Placement> Statement::PlaceWidth(const Job& job, int width,
                                               const std::unordered_map<int, int>* caps) const {
  Job wide = job;
  wide.spec.gpus = width;
  const int pool = job.placement.empty() ? job.home_pool
                                         : s_.cluster.node(job.placement.shares[0].node).pool;
  return c_.Place(wide, c_.GroupsFor(wide.spec, pool), caps);
}

bool Statement::Resize(JobId id, int width, const std::string& reason,
                       std::optional<JobId> for_job, const std::unordered_map<int, int>* caps) {
  Job& job = JobAt(id);
  assert(job.state == JobState::kRunning && job.spec.elastic.enabled() && !s_.moves.count(id));
  if (width == job.spec.gpus || width <= 0) return false;
  const Placement freed = FreedOnStop(s_, job.placement);
  s_.cluster.Release(freed);
  std::optional<Placement> to = width < job.spec.gpus ? std::optional<Placement>(KeptPart(job.placement, width))
                                                      : PlaceWidth(job, width, caps);
  if (!to || to->GpuCount() != width || !AllFit(s_.cluster, *to)) {
    s_.cluster.Allocate(freed);
    return false;
  }
  Op op = NewOp(OpKind::kResize, id);
  op.freed = freed;
  op.held = *to;
  s_.cluster.Allocate(*to);
  BeginStop(op, reason, for_job);
  s_.moves[id] = EngineState::Move{*to, job.borrowed, *to, true};
  job.resize_times.erase(job.resize_times.begin(),
                         std::upper_bound(job.resize_times.begin(), job.resize_times.end(),
                                          c_.now - kHour));
  job.resize_times.push_back(c_.now);
  ++job.resizes;
  job.resize_reason = reason;
  ops_.push_back(std::move(op));
  return true;
}

bool Statement::Widen(JobId id, int width, const std::unordered_map<int, int>* caps) {
  Job& job = JobAt(id);
  assert(job.state == JobState::kRunning && job.spec.elastic.enabled());
  size_t at = c_.decisions_.size();
  while (at > 0 && !(c_.decisions_[at - 1].kind == Decision::Kind::kStart &&
                     c_.decisions_[at - 1].job == id)) {
    --at;
  }
  if (at == 0 || width == job.spec.gpus || width <= 0) return false;
  --at;
  UnindexRunning(s_, job);
  UndoHold(s_, job);
  std::optional<Placement> to = PlaceWidth(job, width, caps);
  if (!to || to->GpuCount() != width) {
    HoldCapacity(s_, job);
    IndexRunning(s_, job);
    return false;
  }
  Op op = NewOp(OpKind::kWiden, id);
  op.decision = c_.decisions_[at];
  op.decision_at = at;
  // A plain restart's overhead is that of the new width.
  const Time plain = RestartOverhead(job.spec);
  job.spec.gpus = width;
  job.placement = std::move(*to);
  if (job.starts > 1 && job.run_overhead == plain) {
    const Time delta = RestartOverhead(job.spec) - plain;
    job.run_overhead += delta;
    job.min_runtime_until += delta;
    if (job.slice_end != kNever) job.slice_end += delta;
  }
  job.run_speed_milli = RunSpeedMilli(s_, job);
  HoldCapacity(s_, job);
  IndexRunning(s_, job);
  Decision& d = c_.decisions_[at];
  d.placement = job.placement;
  d.overhead = job.run_overhead;
  d.slice_end = job.slice_end;
  d.speed = job.run_speed_milli / 1000.0;
  ops_.push_back(std::move(op));
  return true;
}

void Statement::UndoElastic(Op& op) {
  Job& job = JobAt(op.job);
  if (op.kind == OpKind::kResize) {
    s_.cluster.Release(op.held);
    s_.cluster.Allocate(op.freed);
    s_.moves.erase(op.job);
    UndoStop(op);
    return;
  }
  UnindexRunning(s_, job);
  UndoHold(s_, job);
  job = std::move(op.before);
  HoldCapacity(s_, job);
  IndexRunning(s_, job);
  c_.decisions_[op.decision_at] = std::move(op.decision);
}

void Statement::CommitElastic(Op& op) {
  SchedulerCounters& n = s_.counters;
  if (op.kind == OpKind::kWiden) {
    ++n.widened_starts;
    return;
  }
  // It holds the GPUs it gives up until it has stopped; of its new placement, what it did not
  // hold is held for it from now, the rest once it has stopped (Scheduler::Stopped).
  s_.cluster.Release(Overlap(op.held, op.freed));
  assert(AllFit(s_.cluster, op.freed) && "a resize's capacity was taken in its statement");
  s_.cluster.Allocate(op.freed);
  s_.moves.at(op.job).held = Without(op.held, op.freed);
  ++n.resizes;
  if (op.held.GpuCount() < op.before.spec.gpus) ++n.shrinks;
  c_.decisions_.push_back(std::move(op.decision));
}

}  // namespace squeeze
