// The plots of the advice as inline SVG: the load-duration curve with the break-even line
// and the owned / reserved / on-demand bands, and the what-if runs' mean waits as bars. Pure.
#ifndef SQUEEZE_ADVISE_ADVISE_SVG_H_
#define SQUEEZE_ADVISE_ADVISE_SVG_H_

#include <string>
#include <vector>

#include "advise/reserve_split.h"
#include "advise/what_if_runs.h"

namespace squeeze {

std::string LoadCurveSvg(const ReserveSplit& split);
std::string WhatIfWaitsSvg(const std::vector<WhatIfOutcome>& runs);

}  // namespace squeeze

#endif  // SQUEEZE_ADVISE_ADVISE_SVG_H_
