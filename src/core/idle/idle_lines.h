// The idle windows as people read them: windows with the same hours on consecutive days merged
// into one line ("Mon-Fri 01:00-07:00 in 6 of 7 weeks"), and the GPUs of a node with identical
// windows grouped ("GPUs 0-7"). Pure functions; thread-safe.
#ifndef SQUEEZE_CORE_IDLE_IDLE_LINES_H_
#define SQUEEZE_CORE_IDLE_IDLE_LINES_H_

#include <string>
#include <vector>

#include "core/idle/idle_analysis.h"

namespace squeeze {

// One line of the report. A window shorter than a day repeated on `days` consecutive days
// starting at `start_hour` (hour of the week of the first day), or one window (`days` = 1).
struct IdleLine {
  int start_hour = 0;
  int length_hours = 0;
  int days = 1;
  int idle_weeks = 0;      // the fewest over the merged windows
  int observed_weeks = 0;  // the most over the merged windows
  // "Mon-Fri 01:00-07:00", "Sat-Sun all day", "Fri 18:00-Mon 08:00", "all week".
  std::string When() const;
  // When() + " in K of N weeks".
  std::string Text() const;
};

// Merges `windows` (as FindWindows gives them) into lines, ordered by start; wraps Sun -> Mon.
std::vector<IdleLine> MergeDaily(const std::vector<IdleWindow>& windows);

struct GpuGroup {
  std::vector<int> gpus;  // ascending
  std::vector<IdleWindow> windows;
};

// The GPUs of `node` that have windows, grouped by identical windows; ordered by first GPU.
std::vector<GpuGroup> GroupGpus(const NodeIdle& node);

// "GPU 3", "GPUs 0-7", "GPUs 0-3,6".
std::string GpuListText(const std::vector<int>& gpus);

// "node-1 GPUs 0-7: idle Mon-Fri 01:00-07:00 in 5 of 5 weeks": one per merged window of each
// group of the node's GPUs.
std::vector<std::string> GpuGroupLines(const NodeIdle& node);
// "WHO: idle Mon-Fri 01:00-07:00 in 5 of 5 weeks": one per merged window.
std::vector<std::string> IdleLinesOf(const std::string& who, const std::vector<IdleWindow>& windows);
// The window lines alone, in report order: by GPU group, then "node NAME: idle ...", then
// "pool NAME: idle ..." (the text report and the server's history view).
std::vector<std::string> IdleWindowLines(const IdleAnalysis& analysis);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_IDLE_IDLE_LINES_H_
