#include "advise/advise_sections.h"

#include <cmath>
#include <fmt/format.h>

#include "core/duration.h"

namespace squeeze {
namespace {

std::string Secs(double s) { return Grouped(s) + " s"; }

ReportSection Titled(std::string title) {
  ReportSection s;
  s.title = std::move(title);
  return s;
}

ReportSection Overview(const Advice& a) {
  ReportSection s = Titled("History and prices");
  s.lines.push_back(fmt::format(
      "{} jobs over {:.1f} days ({}); {}.", Grouped(static_cast<double>(a.jobs)),
      ToSeconds(a.curve.Span()) / 86400, a.history,
      a.real_start_times ? "demand from each job's recorded start and end"
                         : "demand as if each job started when it was submitted"));
  for (const std::string& w : a.warnings) s.lines.push_back("Warning: " + w + ".");
  const PriceSheet& p = a.prices;
  s.lines.push_back(fmt::format("Owned: {} GPUs in {} pools (already paid).",
                                Grouped(p.owned_gpus), p.owned_pools.size()));
  if (p.reserved) {
    s.lines.push_back(fmt::format("Reserved: {}/GPU-month (pool {}: {} a month for {} GPUs).",
                                  Grouped(p.reserved->per_gpu_month, 2), p.reserved->pool,
                                  Grouped(p.reserved->monthly_cost, 2), p.reserved->gpus));
  }
  if (p.on_demand) {
    s.lines.push_back(fmt::format("On demand: {}/GPU-hour (pool {}, region {}).",
                                  Grouped(p.on_demand->per_gpu_hour, 2), p.on_demand->pool,
                                  p.on_demand->region));
  }
  if (p.spot) {
    s.lines.push_back(fmt::format(
        "Spot: {}/GPU-hour (pool {}, region {}); a node is reclaimed every {} on average, "
        "with {} warning.",
        Grouped(p.spot->price.per_gpu_hour, 2), p.spot->price.pool, p.spot->price.region,
        FormatDuration(p.spot->mean_reclaim_interval), FormatDuration(p.spot->warning)));
  }
  for (const std::string& m : p.skipped) s.lines.push_back("Skipped: " + m + ".");
  return s;
}

ReportSection Split(const Advice& a) {
  ReportSection s = Titled("Reserve vs on demand");
  if (!a.split) {
    s.lines.push_back("Not answered: the cluster file needs a usable reserved pool and a usable "
                      "on-demand pool (see Skipped above).");
    return s;
  }
  const ReserveSplit& r = *a.split;
  s.plot = SectionPlot::kLoadCurve;
  s.lines.push_back(fmt::format(
      "Break-even: {} / {} = {:.0f} hours a month ({:.0f}% of {:.0f} h): a GPU busy longer than "
      "that is cheaper reserved.",
      Grouped(r.reserved_per_gpu_month, 2), Grouped(r.on_demand_per_gpu_hour, 2),
      r.break_even_hours, 100 * r.break_even_hours / kHoursPerMonth, kHoursPerMonth));
  if (r.owned_by_pool) {
    s.lines.push_back(fmt::format(
        "Demand peaks at {} GPUs. Jobs name their pools, and each owned pool serves its own jobs "
        "first: the {} owned GPUs serve {} GPU-hours a month; what they leave over peaks at {} "
        "GPUs.",
        Grouped(a.curve.Peak()), Grouped(r.owned), Grouped(r.owned_gpu_hours), Grouped(r.peak)));
  } else {
    s.lines.push_back(fmt::format(
        "Demand peaks at {} GPUs; the {} owned GPUs cover the first {} ({} GPU-hours a month).",
        Grouped(r.peak), Grouped(r.owned), Grouped(std::min(r.owned, r.peak)),
        Grouped(r.owned_gpu_hours)));
  }
  if (r.peak <= r.owned_on_curve) {
    s.lines.push_back("Advice: reserve none and rent none: the owned GPUs cover the peak.");
  } else {
    s.lines.push_back(
        r.reserved == 0
            ? fmt::format("Advice: reserve none (no GPU past the owned ones is busy {:.0f} hours "
                          "a month); rent on demand, up to {} GPUs at the peak.",
                          r.break_even_hours, Grouped(r.on_demand_peak))
            : fmt::format(
                  "Advice: reserve {} GPUs and rent the rest on demand (up to {} at the peak).",
                  Grouped(r.reserved), Grouped(r.on_demand_peak)));
  }
  s.header = {"", "GPUs", "GPU-hours a month", "cost a month"};
  s.rows.push_back({"reserved", Grouped(r.reserved), Grouped(r.reserved_gpu_hours),
                    Grouped(r.reserved * r.reserved_per_gpu_month)});
  s.rows.push_back({"on demand", Grouped(r.on_demand_peak) + " at peak",
                    Grouped(r.on_demand_gpu_hours),
                    Grouped(r.on_demand_gpu_hours * r.on_demand_per_gpu_hour)});
  s.rows.push_back({"split (advice)", "", Grouped(r.reserved_gpu_hours + r.on_demand_gpu_hours),
                    Grouped(r.cost_split)});
  s.rows.push_back({"all on demand", "", "", Grouped(r.cost_all_on_demand)});
  s.rows.push_back({"all reserved (peak)", Grouped(r.peak - std::min(r.owned_on_curve, r.peak)), "",
                    Grouped(r.cost_all_reserved)});
  return s;
}

ReportSection Spot(const Advice& a) {
  ReportSection s = Titled("Spot");
  if (!a.spot) {
    s.lines.push_back("Not answered: the cluster file needs a usable spot pool and a usable "
                      "on-demand pool (see Skipped above).");
    return s;
  }
  const SpotAdvice& sp = *a.spot;
  s.lines.push_back(fmt::format(
      "Each class as if rented: on spot it checkpoints at Daly's interval for its checkpoint "
      "cost (default {}) and a reclaim every {}; rules: nothing longer than {} unless it "
      "checkpoints every {}{}.",
      FormatDuration(sp.rules.default_checkpoint_cost),
      FormatDuration(sp.terms.mean_reclaim_interval), FormatDuration(sp.rules.max_length),
      FormatDuration(sp.rules.long_job_checkpoint),
      sp.rules.fault_tolerant_only ? "; only fault-tolerant (checkpointing) work" : ""));
  s.header = {"class", "jobs", "GPU-hours", "interval", "slowdown", "spot", "on demand",
              "verdict", "why"};
  for (const SpotClass& c : sp.classes) {
    s.rows.push_back({c.Name(), Grouped(static_cast<double>(c.jobs)), Grouped(c.gpu_hours),
                      // Whole seconds, as before Time counted ticks.
                      c.interval_s > 0 ? FormatDuration(Seconds(std::llround(c.interval_s)))
                                       : "none",
                      std::isfinite(c.slowdown) ? fmt::format("{:.3f}", c.slowdown) : "inf",
                      std::isfinite(c.cost_spot) ? Grouped(c.cost_spot) : "inf",
                      Grouped(c.cost_on_demand), c.suits_spot ? "spot" : "on demand", c.reason});
  }
  s.lines.push_back(fmt::format(
      "Advice: run {} GPU-hours of the history on spot: {} instead of {} on demand, {} a month "
      "saved.",
      Grouped(sp.gpu_hours), Grouped(sp.cost_spot), Grouped(sp.cost_on_demand),
      Grouped(sp.saving_per_month)));
  return s;
}

ReportSection Regions(const Advice& a) {
  ReportSection s = Titled("Region");
  for (const char* kind : {"on-demand", "spot"}) {
    std::vector<const RegionPrice*> rs;
    for (const RegionPrice& r : a.prices.regions) {
      if (r.kind == kind) rs.push_back(&r);
    }
    if (rs.empty()) continue;
    if (rs.size() == 1) {
      s.lines.push_back(fmt::format("{}: one region ({}), nothing to choose.", kind, rs[0]->region));
      continue;
    }
    std::string others;
    for (size_t i = 1; i < rs.size(); ++i) {
      others += fmt::format("{}{} {}", i > 1 ? ", " : "", rs[i]->region,
                            Grouped(rs[i]->per_gpu_hour, 2));
    }
    s.lines.push_back(fmt::format("{}: cheapest in {} at {}/GPU-hour (pool {}); then {}.", kind,
                                  rs[0]->region, Grouped(rs[0]->per_gpu_hour, 2), rs[0]->pool,
                                  others));
  }
  if (s.lines.empty()) s.lines.push_back("No on-demand or spot pools: no region to choose.");
  return s;
}

ReportSection WhatIfs(const Advice& a) {
  ReportSection s = Titled("What if (policy " + a.policy + ")");
  const auto& w = a.what_ifs;
  s.plot = SectionPlot::kWhatIfWaits;
  s.header = {"what if", "mean wait", "p95 wait", "p99 wait", "mean JCT", "cost a month"};
  for (const WhatIfOutcome& o : w) {
    s.rows.push_back({o.label, Secs(o.summary.avg_queue_s), Secs(o.summary.p95_queue_s),
                      Secs(o.summary.p99_queue_s), Secs(o.summary.avg_jct_s),
                      Grouped(o.cost_per_month)});
  }
  for (size_t i = 1; i < w.size(); ++i) {
    s.lines.push_back(fmt::format(
        "{}: mean wait {} -> {}, p95 {} -> {}, at {} a month ({}{} on the cluster as it is).",
        w[i].description, Secs(w[0].summary.avg_queue_s), Secs(w[i].summary.avg_queue_s),
        Secs(w[0].summary.p95_queue_s), Secs(w[i].summary.p95_queue_s),
        Grouped(w[i].cost_per_month), w[i].cost_per_month >= w[0].cost_per_month ? "+" : "",
        Grouped(w[i].cost_per_month - w[0].cost_per_month)));
  }
  return s;
}

}  // namespace

std::string Grouped(double value, int decimals) {
  if (!std::isfinite(value)) return "inf";
  std::string digits = fmt::format("{:.{}f}", std::fabs(value), decimals);
  const size_t dot = digits.find('.');
  std::string whole = digits.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : digits.substr(dot);
  for (int i = static_cast<int>(whole.size()) - 3; i > 0; i -= 3) whole.insert(i, ",");
  const bool negative = value < 0 && digits.find_first_not_of("0.") != std::string::npos;
  return (negative ? "-" : "") + whole + frac;
}

std::vector<ReportSection> AdviceSections(const Advice& advice) {
  std::vector<ReportSection> out{Overview(advice), Split(advice), Spot(advice), Regions(advice)};
  if (!advice.what_ifs.empty()) out.push_back(WhatIfs(advice));
  return out;
}

}  // namespace squeeze
