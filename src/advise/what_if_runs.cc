#include "advise/what_if_runs.h"

#include "advise/reserve_split.h"

namespace squeeze {
namespace {

Result<double> ExtraCost(const WhatIf& w, const PriceSheet& prices) {
  double extra = 0;
  for (const WhatIfChange& c : w.changes) {
    if (!c.priced_as) continue;
    const std::string where = "--what-if '" + w.text + "': @" + std::string(PoolKindName(*c.priced_as));
    switch (*c.priced_as) {
      case PoolKind::kReserved:
        if (!prices.reserved) return Status::Error(where + ": the cluster has no usable reserved pool to price it");
        extra += c.gpus * prices.reserved->per_gpu_month;
        break;
      case PoolKind::kOnDemand:
        if (!prices.on_demand) return Status::Error(where + ": the cluster has no usable on-demand pool to price it");
        extra += c.gpus * kHoursPerMonth * prices.on_demand->per_gpu_hour;
        break;
      case PoolKind::kSpot:
        if (!prices.spot) return Status::Error(where + ": the cluster has no usable spot pool to price it");
        extra += c.gpus * kHoursPerMonth * prices.spot->price.per_gpu_hour;
        break;
      default:
        break;
    }
  }
  return extra;
}

Result<WhatIfOutcome> RunOne(const Trace& trace, const ClusterSpec& cluster, const Policy& policy,
                             const SimOptions& options) {
  auto result = Simulate(trace, cluster, policy, options);
  if (!result.ok()) return result.status();
  WhatIfOutcome out;
  out.summary = Summarize(*result, cluster);
  out.cost_per_month = MonthlyCost(out.summary, cluster);
  return out;
}

}  // namespace

double MonthlyCost(const Summary& summary, const ClusterSpec& cluster) {
  double usage = 0;
  for (const auto& [pool, use] : summary.pool_use) usage += use.usage_cost;
  double fixed = 0;
  for (const PoolSpec& p : cluster.pools) fixed += p.monthly_cost;
  const double months = static_cast<double>(summary.makespan_s) / (kHoursPerMonth * 3600);
  return (months > 0 ? usage / months : 0) + fixed;
}

Result<std::vector<WhatIfOutcome>> RunWhatIfs(const Trace& trace, const ClusterSpec& cluster,
                                              const PriceSheet& prices,
                                              const std::vector<WhatIf>& what_ifs,
                                              const Policy& policy, const SimOptions& options) {
  std::vector<WhatIfOutcome> out;
  auto base = RunOne(trace, cluster, policy, options);
  if (!base.ok()) return base.status().WithContext("simulating the cluster as it is");
  base->label = "as is";
  base->description = "the cluster as it is";
  out.push_back(std::move(*base));
  for (const WhatIf& w : what_ifs) {
    auto extra = ExtraCost(w, prices);
    if (!extra.ok()) return extra.status();
    auto changed = ApplyWhatIf(cluster, w);
    if (!changed.ok()) return changed.status();
    auto run = RunOne(trace, *changed, policy, options);
    if (!run.ok()) return run.status().WithContext("--what-if '" + w.text + "'");
    run->label = w.text;
    run->description = w.Describe();
    run->gpus_added = w.Gpus();
    run->extra_cost_per_month = *extra;
    run->cost_per_month += *extra;
    out.push_back(std::move(*run));
  }
  return out;
}

}  // namespace squeeze
