// Durations as people write them: "90", "90s", "30m", "12h", "2d", "1h30m". Plain numbers are
// seconds; a fractional number of seconds is rounded to the nearest second. Slurm's clock forms
// are taken too: "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS".
#ifndef SQUEEZE_CORE_DURATION_H_
#define SQUEEZE_CORE_DURATION_H_

#include <string>
#include <string_view>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

Result<Time> ParseDuration(std::string_view text);
// A time limit as Slurm's --time takes it: a plain number is minutes ("30"), then the clock
// forms above, and squeeze's forms with a unit ("30m"); "0", "UNLIMITED" and "INFINITE" are no
// limit (0).
Result<Time> ParseSlurmTime(std::string_view text);
// "45s", "30m", "2h5m", "3d4h": the shortest exact form; "0s" for zero. A part of a second
// (only where a tick is shorter than a second) is written in decimals: "1.5s", "2m0.25s".
std::string FormatDuration(Time t);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_DURATION_H_
