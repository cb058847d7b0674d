// What a cluster file says GPUs cost, by kind of capacity: owned GPUs (already paid), the
// cheapest reserved GPU-month, the cheapest on-demand and spot GPU-hours (region factors
// applied), and per region the cheapest of each hourly kind. A kind that is missing or priced
// unusably is absent, with a message in `skipped` that says which advice goes without it. Pure.
#ifndef SQUEEZE_ADVISE_PRICE_SHEET_H_
#define SQUEEZE_ADVISE_PRICE_SHEET_H_

#include <optional>
#include <string>
#include <vector>

#include "core/cluster_spec.h"

namespace squeeze {

struct ReservedPrice {
  std::string pool;
  int gpus = 0;
  double monthly_cost = 0;
  double per_gpu_month = 0;  // monthly_cost / gpus
};

struct HourlyPrice {
  std::string pool;
  std::string region;
  double per_gpu_hour = 0;  // price_per_gpu_hour x the region's price factor
};

struct SpotPrice {
  HourlyPrice price;
  Time mean_reclaim_interval = 0;
  Time warning = 0;
};

// The cheapest pool of an hourly kind in one region.
struct RegionPrice {
  std::string kind;  // "on-demand" or "spot"
  std::string region;
  std::string pool;
  double per_gpu_hour = 0;
};

struct PriceSheet {
  int owned_gpus = 0;
  std::vector<std::string> owned_pools;
  std::optional<ReservedPrice> reserved;
  std::optional<HourlyPrice> on_demand;
  std::optional<SpotPrice> spot;
  std::vector<RegionPrice> regions;  // by kind, then price
  std::vector<std::string> skipped;  // what is missing or unusable, and what goes without it
};

int PoolGpus(const ClusterSpec& cluster, const std::string& pool);
PriceSheet ReadPriceSheet(const ClusterSpec& cluster);

}  // namespace squeeze

#endif  // SQUEEZE_ADVISE_PRICE_SHEET_H_
