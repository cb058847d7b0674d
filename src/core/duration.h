// Durations as people write them: "90", "90s", "30m", "12h", "2d", "1h30m". Plain numbers are
// seconds; a fractional number of seconds is rounded to the nearest second.
#ifndef SQUEEZE_CORE_DURATION_H_
#define SQUEEZE_CORE_DURATION_H_

#include <string>
#include <string_view>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

Result<Time> ParseDuration(std::string_view text);
// "45s", "30m", "2h5m", "3d4h": the shortest exact form; "0s" for zero.
std::string FormatDuration(Time seconds);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_DURATION_H_
