// Progress of a simulation on stderr, for `squeeze simulate` and `squeeze advise`. On a
// terminal: one line rewritten in place. Elsewhere (a pipe, a log file): a plain line every
// `every_s` seconds of wall time, once a run has lasted that long, so a long run shows it is
// alive and a short one prints nothing. Not thread-safe; one printer per run.
#ifndef SQUEEZE_CLI_SIM_PROGRESS_H_
#define SQUEEZE_CLI_SIM_PROGRESS_H_

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "sim/simulator.h"

namespace squeeze {

struct ProgressStyle {
  std::string prefix;    // before the name on plain lines, e.g. "squeeze simulate: "
  std::string name;      // the run: a policy, a scenario's variant and policy
  bool terminal = false;  // rewrite one line in place instead of writing plain lines
  double every_s = 5;     // plain lines: wall seconds between two (0: at every report)
  // Wall seconds, steady; tests give their own.
  std::function<double()> clock;
};

// The plain line for a report, without the prefix: "fifo: day 12.3, 23,456 of 68,503 jobs done
// (34.2%), 12,345 waiting, 180 running, 65 s".
std::string PlainProgressLine(const std::string& name, const SimProgress& p, double wall_s);

// A SimOptions::progress callback writing to `out` (which must outlive it) as `style` says.
std::function<void(const SimProgress&)> MakeProgressPrinter(ProgressStyle style,
                                                            std::ostream* out);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_SIM_PROGRESS_H_
