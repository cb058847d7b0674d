#include "core/held_room.h"

#include <algorithm>
#include <cassert>

#include "core/placement_math.h"

namespace squeeze {

void HoldPipelinedFree(EngineState& s, JobId job, const Placement& freed_by_victims) {
  auto it = s.pipelined.find(job);
  if (it == s.pipelined.end()) return;
  EngineState::Pipelined& p = it->second;
  Placement free_now = Without(p.to, Overlap(p.to, freed_by_victims));
  for (const NodeShare& share : free_now.shares) {
    (void)share;
    assert(s.cluster.Fits(share) && "a pipelined placement's free part was taken");
  }
  s.cluster.Allocate(free_now);
  p.held = Joined(std::move(p.held), free_now);
}

// What of a stopping job's capacity is free once it has stopped: nothing on an unavailable
// node (held for it), and not the GPUs inference needs (held as closed).
Placement FreedOnStop(const EngineState& s, const Placement& placement) {
  Placement out;
  for (const NodeShare& share : placement.shares) {
    if (s.unavailable.count(share.node)) continue;
    NodeShare freed = share;
    if (const uint64_t closed = HeldGpuMask(s, share.node); closed != 0) {
      freed.gpus.clear();
      for (int g : share.gpus) {
        if (!(closed >> std::min(g, 63) & 1)) freed.gpus.push_back(g);
      }
    }
    out.shares.push_back(std::move(freed));
  }
  return out;
}

// The exact inverse of HoldCapacity for a job whose hold was the last change on its nodes.
void UndoHold(EngineState& s, const Job& job) {
  s.cluster.Release(job.placement);
  UncountHold(s, job);
}

void HoldPipelinedFreed(EngineState& s, JobId for_job, const Placement& stopped) {
  auto it = s.pipelined.find(for_job);
  if (it == s.pipelined.end()) return;
  EngineState::Pipelined& p = it->second;
  const Placement take = Overlap(Without(p.to, p.held), stopped);
  for (const NodeShare& share : take.shares) {
    if (!s.cluster.Fits(share)) continue;  // held as unavailable or closed instead
    s.cluster.Allocate(Placement{{share}});
    p.held.shares.push_back(share);
  }
}

bool TakeMoveRest(EngineState& s, JobId id) {
  auto it = s.moves.find(id);
  if (it == s.moves.end()) return false;
  EngineState::Move& move = it->second;
  const Placement rest = Without(move.to, move.held);
  bool fits = true;
  for (const NodeShare& share : rest.shares) fits = fits && s.cluster.Fits(share);
  if (!fits) {
    ReleasePlacement(s, move.held);
    s.moves.erase(it);
    return false;
  }
  s.cluster.Allocate(rest);
  move.held = move.to;
  return true;
}

void DropLostMoves(EngineState& s) {
  for (auto it = s.moves.begin(); it != s.moves.end();) {
    bool lost = false;
    for (const auto& share : it->second.to.shares) lost = lost || s.unavailable.count(share.node);
    if (!lost || s.jobs.at(it->first).state != JobState::kPending) {
      ++it;
      continue;
    }
    ReleasePlacement(s, it->second.held);
    it = s.moves.erase(it);
  }
}

void DropPipelined(EngineState& s, JobId job) {
  auto it = s.pipelined.find(job);
  if (it == s.pipelined.end()) return;
  const Placement held = std::move(it->second.held);
  s.pipelined.erase(it);
  ReleasePlacement(s, held);
}

bool PipelinedFits(EngineState& s, const EngineState::Pipelined& p) {
  s.cluster.Release(p.held);
  bool fits = true;
  for (const NodeShare& share : p.to.shares) fits = fits && s.cluster.Fits(share);
  s.cluster.Allocate(p.held);
  return fits;
}

void DropStalePipelines(EngineState& s) {
  std::vector<JobId> stale;
  for (const auto& [id, p] : s.pipelined) {
    if (s.awaiting_stops.count(id)) continue;
    auto job = s.jobs.find(id);
    const bool claims = s.claims.count(id) && job != s.jobs.end() &&
                        job->second.state == JobState::kPending;
    if (!claims || !PipelinedFits(s, p)) stale.push_back(id);
  }
  for (JobId id : stale) DropPipelined(s, id);
}

}  // namespace squeeze
