// Reports of the fill experiment: a text table (allocation ratio and fragmentation at each
// column, per placement), the JSON the issue defines, and an SVG of allocation ratio against
// arrived load. Pure functions of the outcomes; thread-safe.
#ifndef SQUEEZE_SIM_FILL_REPORT_H_
#define SQUEEZE_SIM_FILL_REPORT_H_

#include <string>
#include <vector>

#include "sim/fill_experiment.h"

namespace squeeze {

std::string FormatFillTable(const std::vector<PlacementOutcome>& outcomes);
// {"trace": ..., "nodes": ..., "fill": ..., "results": [{"placement", "alloc_at": {"80": x},
//  "frag_at": {...}, "alloc_by_seed": {"42": {...}}, "seeds", "failed_pods", "wall_s"}]}
std::string FormatFillJson(const std::vector<PlacementOutcome>& outcomes, const std::string& trace,
                           const std::string& nodes, double fill);
std::string FillAllocationSvg(const std::vector<PlacementOutcome>& outcomes,
                              const std::string& title);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_FILL_REPORT_H_
