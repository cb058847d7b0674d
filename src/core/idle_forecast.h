// Recurring idle windows of colocated GPUs (ColocationSpec::idle_windows): GPUs another user
// leaves idle at the same times each week (nights, weekends). The scheduler keeps each GPU's
// periods open to training (load at most 1 - cap) and predicts, for a GPU open now, how long
// it will stay open from what the same moment of the past weeks showed. Pure.
#ifndef SQUEEZE_CORE_IDLE_FORECAST_H_
#define SQUEEZE_CORE_IDLE_FORECAST_H_

#include <optional>

#include "core/engine_state.h"

namespace squeeze {

// Weeks of open periods kept per GPU, and looked back over.
constexpr int kIdleHistoryWeeks = 8;

// Records that colocated GPU `key` (node * 64 + gpu) was open from `from` to `to`, and forgets
// periods that ended more than kIdleHistoryWeeks ago.
void RecordOpenPeriod(EngineState& s, int64_t key, Time from, Time to);

// For GPU `key` open now: the time r such that at the same moment of at least `share` of the
// past weeks seen (up to kIdleHistoryWeeks) it stayed open for r more (0 when it mostly was
// not open then). nullopt while fewer than two whole weeks of its load have been seen, or when
// it is not open now.
std::optional<Time> PredictedOpenFor(const EngineState& s, int64_t key, Time now,
                                     double share = 0.8);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_IDLE_FORECAST_H_
