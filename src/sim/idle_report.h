// The idle-window report (`squeeze idle-report`): the windows per node and GPU group, per whole
// node and per pool as text, and as JSON for machines. Pure formatting of an IdleAnalysis;
// thread-safe.
#ifndef SQUEEZE_SIM_IDLE_REPORT_H_
#define SQUEEZE_SIM_IDLE_REPORT_H_

#include <string>
#include <vector>

#include "core/idle/idle_analysis.h"
#include "core/idle/idle_lines.h"  // IdleWindowLines: the window lines alone

namespace squeeze {

// The text report: what was analysed, then the windows by GPU group, whole node and pool.
std::string FormatIdleText(const IdleAnalysis& analysis);

// Every window as JSON, with each node's and pool's idle probability per hour of the week.
std::string FormatIdleJson(const IdleAnalysis& analysis);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_IDLE_REPORT_H_
