// Everything `squeeze advise` answers for one history and one cluster file: the prices, the
// reserve vs on-demand split, the spot classes, the regions and the what-if runs. Plain data;
// BuildAdvice fills all but the what-if runs (the caller runs them: they take a while).
#ifndef SQUEEZE_ADVISE_ADVICE_H_
#define SQUEEZE_ADVISE_ADVICE_H_

#include <optional>
#include <string>
#include <vector>

#include "advise/history.h"
#include "advise/load_curve.h"
#include "advise/price_sheet.h"
#include "advise/reserve_split.h"
#include "advise/spot_fit.h"
#include "advise/what_if_runs.h"

namespace squeeze {

struct SpotAdvice {
  SpotTerms terms;
  SpotRules rules;
  Time warning = 0;
  std::vector<SpotClass> classes;
  // Over the classes that suit spot.
  double gpu_hours = 0;
  double cost_spot = 0;
  double cost_on_demand = 0;
  double saving_per_month = 0;  // (cost_on_demand - cost_spot) / months
};

struct Advice {
  std::string history;  // where the history came from
  std::string cluster;  // the cluster file
  int64_t jobs = 0;
  bool real_start_times = false;  // from a store; else each job as started at submit
  double months = 0;              // the history's span in months of kHoursPerMonth
  // Why the per-month figures may not hold: a history of few jobs or a short span, which they
  // extrapolate to a month. Empty when the history is long enough.
  std::vector<std::string> warnings;
  PriceSheet prices;
  LoadDurationCurve curve;  // the whole demand
  // When jobs name owned pools: the demand those pools leave over (each serves its own jobs).
  std::optional<LoadDurationCurve> uncovered;
  std::optional<ReserveSplit> split;
  std::optional<SpotAdvice> spot;
  std::string policy;  // of the what-if runs
  std::vector<WhatIfOutcome> what_ifs;  // the first: as is; empty when none asked
};

// Below these a history is short: warned about (Advice::warnings).
inline constexpr int64_t kFewHistoryJobs = 100;
inline constexpr Time kShortHistorySpan = 24 * 3600 * kSecond;

// The warnings for a history of `jobs` jobs whose demand spans `span`.
std::vector<std::string> ShortHistoryWarnings(int64_t jobs, Time span);

Advice BuildAdvice(const History& history, const std::string& cluster_name,
                   const ClusterSpec& cluster, const SpotRules& rules);

}  // namespace squeeze

#endif  // SQUEEZE_ADVISE_ADVICE_H_
