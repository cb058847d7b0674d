// Runs the simulator (sim/simulator.h) on the cluster as it is and on each what-if cluster,
// with one policy, and says what each costs a month. Pure apart from the time it takes.
#ifndef SQUEEZE_ADVISE_WHAT_IF_RUNS_H_
#define SQUEEZE_ADVISE_WHAT_IF_RUNS_H_

#include <string>
#include <vector>

#include "advise/price_sheet.h"
#include "advise/what_if.h"
#include "core/policy.h"
#include "sim/metrics.h"
#include "sim/simulator.h"

namespace squeeze {

struct WhatIfOutcome {
  std::string label;        // "as is" or the what-if as given
  std::string description;  // what changed
  int gpus_added = 0;
  Summary summary;
  // A month of the run: the GPU-hours held at each pool's price scaled to kHoursPerMonth,
  // every pool's monthly_cost, and the @KIND price of the GPUs added.
  double cost_per_month = 0;
  double extra_cost_per_month = 0;  // the @KIND part
};

// The first outcome is the cluster as it is. Errors name the what-if.
Result<std::vector<WhatIfOutcome>> RunWhatIfs(const Trace& trace, const ClusterSpec& cluster,
                                              const PriceSheet& prices,
                                              const std::vector<WhatIf>& what_ifs,
                                              const Policy& policy, const SimOptions& options);

// What a month of a simulated run costs on `cluster` (the part without @KIND prices).
double MonthlyCost(const Summary& summary, const ClusterSpec& cluster);

}  // namespace squeeze

#endif  // SQUEEZE_ADVISE_WHAT_IF_RUNS_H_
