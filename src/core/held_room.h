// Room held for jobs that will start on it once other jobs have stopped: the destinations of
// defragmentation moves (EngineState::moves) and the placements of waiting jobs whose victims
// are stopping for them (EngineState::pipelined, Volcano's Pipeline): the room a preemption
// makes is held for its preemptor, part by part as the victims stop, and the preemptor starts
// on exactly that room once they all have.
#ifndef SQUEEZE_CORE_HELD_ROOM_H_
#define SQUEEZE_CORE_HELD_ROOM_H_

#include "core/engine_state.h"

namespace squeeze {

// Holds for `job`'s pipelined placement what of it is free now, that is all of it but the part
// its victims, still running, free (`freed_by_victims`).
void HoldPipelinedFree(EngineState& s, JobId job, const Placement& freed_by_victims);
// A victim of `for_job` has stopped and released `stopped`: the part of `for_job`'s pipelined
// placement it covers (and that is free: not on a node that went down) is held for it.
void HoldPipelinedFreed(EngineState& s, JobId for_job, const Placement& stopped);
// Moves whose destination lost a node since: the job, stopped, is placed anew.
void DropLostMoves(EngineState& s);
// Ends `job`'s pipeline (if any), releasing what was held for it.
void DropPipelined(EngineState& s, JobId job);
// Whether the job of `p` could start on `p.to` now, with what is held for it released.
bool PipelinedFits(EngineState& s, const EngineState::Pipelined& p);
// At the start of a cycle: drops the pipelines that will not start, those whose job is neither
// awaiting stops nor claiming its room (it started or was cancelled), or whose room is no
// longer whole (a node of it went down).
void DropStalePipelines(EngineState& s);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_HELD_ROOM_H_
