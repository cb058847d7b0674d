// Arithmetic on placements, GPU by GPU (milli), and in CPU and memory node by node: what part
// of one placement another covers, and what is left of one once a part of it is taken away.
// The preempt action's pipelined placements use it to hold, as each victim stops, the part of
// the waiting job's placement that victim frees.
#ifndef SQUEEZE_CORE_PLACEMENT_MATH_H_
#define SQUEEZE_CORE_PLACEMENT_MATH_H_

#include "core/placement.h"

namespace squeeze {

// The part of `want` that `from` covers: on each node, each GPU of `want` at the smaller of
// the two shares' milli, and the smaller CPU and memory. Empty shares are left out.
Placement Overlap(const Placement& want, const Placement& from);
// What is left of `want` once `part` (covered by it) is taken away; never below zero.
Placement Without(const Placement& want, const Placement& part);
// `a` and `b` together (their shares one after the other).
Placement Joined(Placement a, const Placement& b);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLACEMENT_MATH_H_
