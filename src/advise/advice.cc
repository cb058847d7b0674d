#include "advise/advice.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/duration.h"

namespace squeeze {

std::vector<std::string> ShortHistoryWarnings(int64_t jobs, Time span) {
  if (jobs >= kFewHistoryJobs && span >= kShortHistorySpan) return {};
  const std::string what = fmt::format(
      "{} {} spanning {} ({:.2f} days)", jobs, jobs == 1 ? "job" : "jobs",
      FormatDuration(span), ToSeconds(span) / 86400);
  std::string why;
  if (jobs < kFewHistoryJobs) why = fmt::format("fewer than {} jobs", kFewHistoryJobs);
  if (span < kShortHistorySpan) why += std::string(why.empty() ? "" : " and ") + "less than a day";
  return {fmt::format("the history is short: {} ({}). The per-month figures extrapolate it to "
                      "a month of {:.0f} hours and may be far off; give a history of weeks "
                      "and hundreds of jobs",
                      what, why, kHoursPerMonth)};
}

Advice BuildAdvice(const History& history, const std::string& cluster_name,
                   const ClusterSpec& cluster, const SpotRules& rules) {
  Advice a;
  a.history = history.source;
  a.cluster = cluster_name;
  a.jobs = static_cast<int64_t>(history.jobs.size());
  a.real_start_times = history.has_start_times;
  a.prices = ReadPriceSheet(cluster);
  a.curve = BuildLoadDurationCurve(history.jobs);
  a.months = ToSeconds(a.curve.Span()) / (kHoursPerMonth * 3600);
  a.warnings = ShortHistoryWarnings(a.jobs, a.curve.Span());
  std::map<std::string, int> owned;
  for (const std::string& pool : a.prices.owned_pools) owned[pool] = PoolGpus(cluster, pool);
  const bool by_pool = std::any_of(history.jobs.begin(), history.jobs.end(),
                                   [&](const HistoryJob& j) { return owned.count(j.pool) > 0; });
  if (a.prices.reserved && a.prices.on_demand) {
    const double r = a.prices.reserved->per_gpu_month, p = a.prices.on_demand->per_gpu_hour;
    if (by_pool) {
      a.uncovered = BuildLoadDurationCurve(history.jobs, owned);
      a.split = SplitPastOwnedPools(a.curve, *a.uncovered, a.prices.owned_gpus, r, p);
    } else {
      a.split = SplitReservedOnDemand(a.curve, a.prices.owned_gpus, r, p);
    }
  }
  if (a.prices.spot && a.prices.on_demand) {
    SpotAdvice s;
    s.rules = rules;
    s.warning = a.prices.spot->warning;
    s.terms.spot_per_gpu_hour = a.prices.spot->price.per_gpu_hour;
    s.terms.on_demand_per_gpu_hour = a.prices.on_demand->per_gpu_hour;
    s.terms.mean_reclaim_interval = a.prices.spot->mean_reclaim_interval;
    s.classes = FitSpot(history, s.terms, rules);
    for (const SpotClass& c : s.classes) {
      if (!c.suits_spot) continue;
      s.gpu_hours += c.gpu_hours;
      s.cost_spot += c.cost_spot;
      s.cost_on_demand += c.cost_on_demand;
    }
    s.saving_per_month = a.months > 0 ? (s.cost_on_demand - s.cost_spot) / a.months : 0;
    a.spot = std::move(s);
  }
  return a;
}

}  // namespace squeeze
