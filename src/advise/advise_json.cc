#include <nlohmann/json.hpp>

#include "advise/advise_report.h"

namespace squeeze {
namespace {

using nlohmann::json;

json Prices(const PriceSheet& p) {
  json j = {{"owned_gpus", p.owned_gpus}, {"owned_pools", p.owned_pools},
            {"skipped", p.skipped}, {"reserved", nullptr}, {"on_demand", nullptr},
            {"spot", nullptr}, {"regions", json::array()}};
  if (p.reserved) {
    j["reserved"] = {{"pool", p.reserved->pool}, {"gpus", p.reserved->gpus},
                     {"monthly_cost", p.reserved->monthly_cost},
                     {"per_gpu_month", p.reserved->per_gpu_month}};
  }
  if (p.on_demand) {
    j["on_demand"] = {{"pool", p.on_demand->pool}, {"region", p.on_demand->region},
                      {"per_gpu_hour", p.on_demand->per_gpu_hour}};
  }
  if (p.spot) {
    j["spot"] = {{"pool", p.spot->price.pool}, {"region", p.spot->price.region},
                 {"per_gpu_hour", p.spot->price.per_gpu_hour},
                 {"mean_reclaim_interval_s", WholeSeconds(p.spot->mean_reclaim_interval)},
                 {"warning_s", WholeSeconds(p.spot->warning)}};
  }
  for (const RegionPrice& r : p.regions) {
    j["regions"].push_back({{"kind", r.kind}, {"region", r.region}, {"pool", r.pool},
                            {"per_gpu_hour", r.per_gpu_hour}});
  }
  return j;
}

json Split(const ReserveSplit& s) {
  return {{"hours_per_month_constant", kHoursPerMonth},
          {"peak_gpus", s.peak},
          {"owned_gpus", s.owned},
          {"owned_by_pool", s.owned_by_pool},
          {"owned_gpus_on_curve", s.owned_on_curve},
          {"reserved_gpus", s.reserved},
          {"on_demand_peak_gpus", s.on_demand_peak},
          {"reserved_per_gpu_month", s.reserved_per_gpu_month},
          {"on_demand_per_gpu_hour", s.on_demand_per_gpu_hour},
          {"break_even_hours_per_month", s.break_even_hours},
          {"owned_gpu_hours_per_month", s.owned_gpu_hours},
          {"reserved_gpu_hours_per_month", s.reserved_gpu_hours},
          {"on_demand_gpu_hours_per_month", s.on_demand_gpu_hours},
          {"cost_split_per_month", s.cost_split},
          {"cost_all_on_demand_per_month", s.cost_all_on_demand},
          {"cost_all_reserved_per_month", s.cost_all_reserved},
          {"hours_per_month_by_gpu", s.hours_per_month}};
}

json Spot(const SpotAdvice& s) {
  json classes = json::array();
  for (const SpotClass& c : s.classes) {
    classes.push_back({{"class", c.Name()}, {"group", c.group}, {"length", c.length},
                       {"fault_tolerant", c.fault_tolerant}, {"jobs", c.jobs},
                       {"jobs_ruled_out", c.jobs_ruled_out}, {"gpu_hours", c.gpu_hours},
                       {"expected_gpu_hours", c.expected_gpu_hours},
                       {"checkpoint_cost_s", c.checkpoint_cost_s},
                       {"daly_interval_s", c.interval_s}, {"slowdown", c.slowdown},
                       {"cost_spot", c.cost_spot}, {"cost_on_demand", c.cost_on_demand},
                       {"verdict", c.suits_spot ? "spot" : "on-demand"}, {"reason", c.reason}});
  }
  return {{"spot_per_gpu_hour", s.terms.spot_per_gpu_hour},
          {"on_demand_per_gpu_hour", s.terms.on_demand_per_gpu_hour},
          {"mean_reclaim_interval_s", WholeSeconds(s.terms.mean_reclaim_interval)},
          {"warning_s", WholeSeconds(s.warning)},
          {"rules", {{"max_length_s", WholeSeconds(s.rules.max_length)},
                     {"long_job_checkpoint_s", WholeSeconds(s.rules.long_job_checkpoint)},
                     {"fault_tolerant_only", s.rules.fault_tolerant_only},
                     {"default_checkpoint_cost_s",
                      WholeSeconds(s.rules.default_checkpoint_cost)}}},
          {"classes", classes},
          {"suited_gpu_hours", s.gpu_hours},
          {"suited_cost_spot", s.cost_spot},
          {"suited_cost_on_demand", s.cost_on_demand},
          {"saving_per_month", s.saving_per_month}};
}

json WhatIfs(const std::vector<WhatIfOutcome>& runs) {
  json out = json::array();
  for (const WhatIfOutcome& o : runs) {
    const Summary& s = o.summary;
    out.push_back({{"what_if", o.label}, {"description", o.description},
                   {"gpus_added", o.gpus_added}, {"jobs", s.jobs},
                   {"mean_queue_s", s.avg_queue_s}, {"p50_queue_s", s.p50_queue_s},
                   {"p95_queue_s", s.p95_queue_s}, {"p99_queue_s", s.p99_queue_s},
                   {"mean_jct_s", s.avg_jct_s}, {"gpu_utilization", s.gpu_utilization},
                   {"makespan_s", s.makespan_s}, {"rejected", s.rejected},
                   {"cost", s.cost}, {"cost_per_month", o.cost_per_month},
                   {"extra_cost_per_month", o.extra_cost_per_month}, {"wall_s", s.wall_s}});
  }
  return out;
}

}  // namespace

std::string FormatAdviceJson(const Advice& a) {
  json j = {{"history", a.history},
            {"cluster", a.cluster},
            {"jobs", a.jobs},
            {"demand_from", a.real_start_times ? "start-end" : "submit"},
            {"span_s", WholeSeconds(a.curve.Span())},
            {"months", a.months},
            {"warnings", a.warnings},
            {"demand_gpu_hours", a.curve.gpu_seconds / 3600},
            {"demand_peak_gpus", a.curve.Peak()},
            {"uncovered_gpu_hours", a.uncovered ? json(a.uncovered->gpu_seconds / 3600) : json(nullptr)},
            {"prices", Prices(a.prices)},
            {"reserve_split", a.split ? Split(*a.split) : json(nullptr)},
            {"spot", a.spot ? Spot(*a.spot) : json(nullptr)},
            {"what_if_policy", a.policy},
            {"what_ifs", WhatIfs(a.what_ifs)}};
  return j.dump(2) + "\n";
}

}  // namespace squeeze
