// The region action: a waiting job whose data may leave its home region starts in another
// region when its expected wait at home is longer than copying its data there (plus the
// policy's region_min_gain). Runs after the actions that place jobs at home, so that it only
// sees jobs still waiting, and respects the reservations of the other region's own jobs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>

#include "core/actions/actions.h"
#include "core/actions/home_wait.h"
#include "core/duration.h"

namespace squeeze {
namespace {

bool Allowed(const JobSpec& spec, const std::string& region) {
  return spec.regions.empty() ||
         std::find(spec.regions.begin(), spec.regions.end(), region) != spec.regions.end();
}

// What copying a job's data to a region takes: nothing when a copy is there already or it has
// no data.
struct Copy {
  Time transfer = 0;  // how long the copy takes
  double gb = 0;
  double cost = 0;
};

// The copy to `region` from the job's home region, or nullopt when no link joins them.
std::optional<Copy> CopyTo(const CycleContext& c, const Job& job, int region) {
  const bool copied = region < 64 && (job.data_regions >> region & 1);
  if (copied || job.spec.data_gb <= 0) return Copy{};
  const RegionLink* link = c.s.cluster.spec().LinkBetween(
      c.s.regions[c.s.pool_region[job.home_pool]], c.s.regions[region]);
  if (link == nullptr) return std::nullopt;
  Copy copy;
  copy.gb = job.spec.data_gb;
  copy.transfer = Seconds(static_cast<int64_t>(std::ceil(copy.gb * 8 / link->bandwidth_gbps)));
  copy.cost = copy.gb * link->price_per_gb;
  return copy;
}

std::string WaitText(Time wait) {
  return wait == kNever ? "unknown (no job there has an expected end)" : FormatDuration(wait);
}

// Another region a job could run in, on one of its pools.
struct RegionOption : Copy {
  int pool = 0;
  int region = 0;
  bool operator<(const RegionOption& o) const {
    return std::tie(transfer, cost, pool) < std::tie(o.transfer, o.cost, o.pool);
  }
};

std::vector<RegionOption> OptionsFor(const CycleContext& c, const Job& job) {
  std::vector<RegionOption> out;
  const int home = c.s.pool_region[job.home_pool];
  for (int pool = 0; pool < c.s.cluster.PoolCount(); ++pool) {
    const int region = c.s.pool_region[pool];
    if (region == home || !Allowed(job.spec, c.s.regions[region])) continue;
    if (Opportunistic(c.s, pool)) continue;  // the spot and colocate actions' to give
    if (!c.ScopeHasFreeGpus(pool)) continue;
    auto copy = CopyTo(c, job, region);
    if (!copy) continue;  // no way to move the data there
    RegionOption o;
    static_cast<Copy&>(o) = *copy;
    o.pool = pool;
    o.region = region;
    out.push_back(o);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string MoveReason(const CycleContext& c, const Job& job, const RegionOption& o, Time wait) {
  std::string out = "moved from region " + c.s.regions[c.s.pool_region[job.home_pool]] +
                    " to " + c.s.regions[o.region] + ": expected wait at home ";
  out += WaitText(wait);
  if (o.gb > 0) {
    char copy[96];
    std::snprintf(copy, sizeof copy, " > %s to copy %.1f GB (cost %.2f)",
                  FormatDuration(o.transfer).c_str(), o.gb, o.cost);
    out += copy;
  } else {
    out += " > 0s (no data to copy)";
  }
  return out;
}

}  // namespace

std::vector<std::string> RegionOutlook(const CycleContext& c, const Job& job) {
  std::vector<std::string> out;
  if (c.s.regions.size() < 2 || job.home_pool < 0) return out;
  const std::string& home = c.s.regions[c.s.pool_region[job.home_pool]];
  int ahead = 0;
  c.s.pending.Walk(
      [&](const QueuePosition& p) {
        if (p.entry.id == job.spec.id) return PendingQueue::Visit::kStop;
        const Job& other = c.s.jobs.at(p.entry.id);
        if (other.home_pool == job.home_pool) ahead += std::max(1, other.spec.gpus);
        return PendingQueue::Visit::kNext;
      },
      nullptr);
  const Time wait = WaitAtHome(c, job, ScheduleOf(c, job.home_pool), ahead);
  out.push_back("expected wait in its home region " + home + ": " + WaitText(wait));
  for (size_t r = 0; r < c.s.regions.size(); ++r) {
    const std::string& region = c.s.regions[r];
    if (region == home) continue;
    if (!Allowed(job.spec, region)) {
      out.push_back("its data may not go to region " + region + " (allowed regions: " +
                    [&] {
                      std::string list;
                      for (const auto& a : job.spec.regions) list += (list.empty() ? "" : ", ") + a;
                      return list;
                    }() +
                    ")");
      continue;
    }
    const auto to = CopyTo(c, job, static_cast<int>(r));
    if (!to) {
      out.push_back("no region link from " + home + " to " + region + " to copy its data over");
      continue;
    }
    std::string copy = "no data to copy";
    if (to->gb > 0) {
      char text[96];
      std::snprintf(text, sizeof text, "copying its %.1f GB takes %s", to->gb,
                    FormatDuration(to->transfer).c_str());
      copy = text;
    }
    int free = 0;
    for (int pool = 0; pool < c.s.cluster.PoolCount(); ++pool) {
      if (c.s.pool_region[pool] != static_cast<int>(r)) continue;
      for (int g : c.GroupsFor(job.spec, pool)) free += c.s.cluster.group(g).whole_free;
    }
    out.push_back("region " + region + ": " + std::to_string(free) + " GPUs it may use free now; " +
                  copy + "; it moves there when GPUs there fit it and its wait at home is longer" +
                  (c.s.policy.Has("region") ? "" : " (the policy has no region action)"));
  }
  return out;
}

void RunRegion(CycleContext& c) {
  if (c.s.regions.size() < 2) return;
  std::map<int, FreeingSchedule> schedules;  // by home pool, built when first needed
  std::map<int, int> ahead;  // home pool -> whole GPUs wanted by waiting jobs walked so far
  c.s.pending.Walk(
      [&](const QueuePosition& p) {
        if (c.s.cluster.FreeMilli() == 0) return PendingQueue::Visit::kStop;
        const Job& job = c.job(p.entry.id);
        if (job.home_pool < 0 || c.s.awaiting_stops.count(job.spec.id)) {
          return PendingQueue::Visit::kNext;
        }
        const int need = std::max(1, job.spec.gpus);
        int& before = ahead[job.home_pool];
        const int wanted = before + need;
        before = wanted;
        std::vector<RegionOption> options = OptionsFor(c, job);
        if (options.empty()) return PendingQueue::Visit::kNext;
        auto it = schedules.find(job.home_pool);
        if (it == schedules.end()) {
          it = schedules.emplace(job.home_pool, ScheduleOf(c, job.home_pool)).first;
        }
        const Time wait = WaitAtHome(c, job, it->second, wanted - need);
        for (const RegionOption& o : options) {
          if (wait != kNever && wait <= o.transfer + c.s.policy.region_min_gain) break;
          auto placement = c.Place(job, c.GroupsFor(job.spec, o.pool), &c.caps);
          if (!placement) continue;
          StartOptions how;
          how.kind = StartKind::kRegion;
          how.charge_caps = true;
          how.borrowed = job.spec.preemptible;
          how.transfer = o.transfer;
          how.reason = MoveReason(c, job, o, wait);
          how.data_region = o.region;
          how.data_gb = o.gb;
          how.data_cost = o.cost;
          before -= need;  // it no longer waits at home
          Statement st(c);
          st.Start(job.spec.id, std::move(*placement), how);
          st.Commit();
          break;
        }
        return PendingQueue::Visit::kNext;
      },
      FairShareMeasure(c));
  c.FlushStarted();
}

}  // namespace squeeze
