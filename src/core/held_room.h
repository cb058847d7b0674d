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
// What of a stopping job's capacity is free once it has stopped: nothing on an unavailable
// node (held for it), and not the GPUs inference needs (held as closed).
Placement FreedOnStop(const EngineState& s, const Placement& placement);
// The exact inverse of HoldCapacity for a job whose hold was the last change on its nodes.
void UndoHold(EngineState& s, const Job& job);
// A moved job has stopped: the part of its move's destination it held until then (a resize
// keeps some of its GPUs) is held for it too. False, dropping the move, when some of it is not
// free (a node went down): the job is placed anew.
bool TakeMoveRest(EngineState& s, JobId id);
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
