#include "core/held_room.h"

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

void DropLostMoves(EngineState& s) {
  for (auto it = s.moves.begin(); it != s.moves.end();) {
    bool lost = false;
    for (const auto& share : it->second.to.shares) lost = lost || s.unavailable.count(share.node);
    if (!lost || s.jobs.at(it->first).state != JobState::kPending) {
      ++it;
      continue;
    }
    ReleasePlacement(s, it->second.to);
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
