#include "advise/price_sheet.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace squeeze {
namespace {

std::string PoolLabel(const PoolSpec& p) {
  return fmt::format("pool '{}' (kind {})", p.name, PoolKindName(p.kind));
}

void ReadReserved(const ClusterSpec& c, PriceSheet& sheet) {
  bool any = false;
  for (const PoolSpec& p : c.pools) {
    if (p.kind != PoolKind::kReserved) continue;
    any = true;
    const int gpus = PoolGpus(c, p.name);
    if (gpus <= 0) {
      sheet.skipped.push_back(PoolLabel(p) + ": has no GPUs (no nodes), so its monthly_cost " +
                              fmt::format("{:g}", p.monthly_cost) +
                              " cannot be divided per GPU; the pool is not used");
      continue;
    }
    if (p.monthly_cost <= 0) {
      sheet.skipped.push_back(PoolLabel(p) + ": monthly_cost is " +
                              fmt::format("{:g}", p.monthly_cost) +
                              "; a reserved pool needs what its GPUs cost per month; the pool is "
                              "not used");
      continue;
    }
    ReservedPrice r{p.name, gpus, p.monthly_cost, p.monthly_cost / gpus};
    if (!sheet.reserved || r.per_gpu_month < sheet.reserved->per_gpu_month) sheet.reserved = r;
  }
  if (!any) {
    sheet.skipped.push_back(
        "no pool of kind reserved: the reserve vs on-demand split is skipped");
  } else if (!sheet.reserved) {
    sheet.skipped.push_back(
        "no usable pool of kind reserved: the reserve vs on-demand split is skipped");
  }
}

// The cheapest pool of `kind` with a price; fills `regions` with the cheapest per region.
std::optional<int> ReadHourly(const ClusterSpec& c, PoolKind kind, const std::string& what,
                              PriceSheet& sheet) {
  std::optional<int> best;
  std::map<std::string, int> by_region;
  const std::string kind_name(PoolKindName(kind));
  bool any = false;
  for (int i = 0; i < static_cast<int>(c.pools.size()); ++i) {
    const PoolSpec& p = c.pools[i];
    if (p.kind != kind) continue;
    any = true;
    if (c.PricePerGpuHour(i) <= 0) {
      sheet.skipped.push_back(PoolLabel(p) + ": price_per_gpu_hour is " +
                              fmt::format("{:g}", c.PricePerGpuHour(i)) +
                              "; an hourly pool needs a price above 0; the pool is not used");
      continue;
    }
    if (kind == PoolKind::kSpot && p.spot.mean_reclaim_interval <= 0) {
      sheet.skipped.push_back(PoolLabel(p) + ": spot.mean_reclaim_interval is 0 (never "
                              "reclaimed); the spot advice needs how often nodes are taken back; "
                              "the pool is not used");
      continue;
    }
    if (!best || c.PricePerGpuHour(i) < c.PricePerGpuHour(*best)) best = i;
    auto it = by_region.find(p.region);
    if (it == by_region.end() || c.PricePerGpuHour(i) < c.PricePerGpuHour(it->second)) {
      by_region[p.region] = i;
    }
  }
  if (!any) {
    sheet.skipped.push_back("no pool of kind " + kind_name + ": " + what + " skipped");
  } else if (!best) {
    sheet.skipped.push_back("no usable pool of kind " + kind_name + ": " + what + " skipped");
  }
  std::vector<RegionPrice> regions;
  for (const auto& [region, i] : by_region) {
    regions.push_back({kind_name, region, c.pools[i].name, c.PricePerGpuHour(i)});
  }
  std::stable_sort(regions.begin(), regions.end(),
                   [](const RegionPrice& a, const RegionPrice& b) {
                     return a.per_gpu_hour < b.per_gpu_hour;
                   });
  sheet.regions.insert(sheet.regions.end(), regions.begin(), regions.end());
  return best;
}

}  // namespace

int PoolGpus(const ClusterSpec& cluster, const std::string& pool) {
  int gpus = 0;
  for (const NodeSpec& n : cluster.nodes) {
    if (n.pool == pool) gpus += n.gpus;
  }
  return gpus;
}

PriceSheet ReadPriceSheet(const ClusterSpec& c) {
  PriceSheet sheet;
  for (const PoolSpec& p : c.pools) {
    if (p.kind != PoolKind::kOwned) continue;
    sheet.owned_gpus += PoolGpus(c, p.name);
    sheet.owned_pools.push_back(p.name);
  }
  ReadReserved(c, sheet);
  if (auto i = ReadHourly(c, PoolKind::kOnDemand,
                          "the reserve vs on-demand split and the spot comparison are", sheet)) {
    sheet.on_demand = HourlyPrice{c.pools[*i].name, c.pools[*i].region, c.PricePerGpuHour(*i)};
  }
  if (auto i = ReadHourly(c, PoolKind::kSpot, "the spot advice is", sheet)) {
    const PoolSpec& p = c.pools[*i];
    sheet.spot = SpotPrice{HourlyPrice{p.name, p.region, c.PricePerGpuHour(*i)},
                           p.spot.mean_reclaim_interval, p.spot.warning};
  }
  return sheet;
}

}  // namespace squeeze
