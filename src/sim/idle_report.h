// The idle-window report (`squeeze idle-report`): the windows per node and GPU group, per whole
// node and per pool as text, and as JSON for machines. Pure formatting of an IdleAnalysis;
// thread-safe.
#ifndef SQUEEZE_SIM_IDLE_REPORT_H_
#define SQUEEZE_SIM_IDLE_REPORT_H_

#include <string>
#include <vector>

#include "core/idle/idle_analysis.h"

namespace squeeze {

// The window lines alone, in report order: "node-1 GPUs 0-7: idle Mon-Fri 01:00-07:00 in 5 of 5
// weeks", then "node node-1: idle ...", then "pool all: idle ...".
std::vector<std::string> IdleWindowLines(const IdleAnalysis& analysis);

// The text report: what was analysed, then the windows by GPU group, whole node and pool.
std::string FormatIdleText(const IdleAnalysis& analysis);

// Every window as JSON, with each node's and pool's idle probability per hour of the week.
std::string FormatIdleJson(const IdleAnalysis& analysis);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_IDLE_REPORT_H_
