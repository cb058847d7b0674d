// A reclaim trace: when each spot node was taken back, for replaying real reclaims (a cloud's
// interruption log) instead of the simulator's seeded process. squeeze's own CSV:
//   time,node[,warning]
//   3600,spot-3
//   2h30m,spot-7,2m
// time: seconds from the simulation's time 0 (or a duration such as 2h30m); node: a node of a
// spot pool; warning (optional): the notice it got, else its pool's spot.warning. Rows in any
// order (sorted by time, stably). Errors name the file, the line, the column and the value.
#ifndef SQUEEZE_SIM_READERS_RECLAIM_TRACE_READER_H_
#define SQUEEZE_SIM_READERS_RECLAIM_TRACE_READER_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

struct ReclaimEvent {
  Time time = 0;
  std::string node;
  std::optional<Time> warning;
  int line = 0;  // in the file, for messages
};

struct ReclaimTrace {
  std::string source;
  std::vector<ReclaimEvent> events;  // by time
};

Result<ReclaimTrace> ParseReclaimTrace(std::string_view text, const std::string& source);
Result<ReclaimTrace> ReadReclaimTrace(const std::string& path);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_READERS_RECLAIM_TRACE_READER_H_
