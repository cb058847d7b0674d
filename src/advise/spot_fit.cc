#include "advise/spot_fit.h"

#include <cmath>
#include <fmt/format.h>
#include <map>
#include <tuple>

#include "core/duration.h"
#include "core/job.h"
#include "core/spot_math.h"

namespace squeeze {
namespace {

std::string GpuGroup(int gpus) {
  if (gpus <= 1) return "1 GPU";
  if (gpus <= 8) return "2-8 GPUs";
  return ">8 GPUs";
}

int LengthOrder(Time work) {
  if (work < kHour) return 0;
  if (work <= 12 * kHour) return 1;
  return 2;
}

constexpr const char* kLengths[] = {"<1h", "1-12h", ">12h"};

// One job on spot: the interval it would checkpoint at (0 = none), its expected run time, and
// whether the rules allow it there; in seconds.
struct JobOnSpot {
  double interval = 0;
  double expected = 0;
  double checkpoint_cost = 0;
  bool allowed = true;
};

JobOnSpot PlaceOnSpot(const HistoryJob& j, const SpotTerms& terms, const SpotRules& rules) {
  JobOnSpot out;
  // The spot arithmetic in seconds: each Time to seconds first.
  const double m = ToSeconds(terms.mean_reclaim_interval);
  const Time cost = j.checkpoint_cost > 0 ? j.checkpoint_cost : rules.default_checkpoint_cost;
  out.checkpoint_cost = ToSeconds(cost);
  // Asynchronous checkpoints pause the job for their stall only (core/job.h).
  const double pause = ToSeconds(CheckpointPause(cost, j.checkpoint_stall));
  const double work = ToSeconds(j.Work());
  const double every = ToSeconds(rules.long_job_checkpoint);
  const bool own_frequent =
      j.checkpoint_interval > 0 && j.checkpoint_interval <= rules.long_job_checkpoint;
  if (j.FaultTolerant()) {
    out.interval = own_frequent ? ToSeconds(j.checkpoint_interval) : DalyInterval(pause, m);
  } else {
    out.allowed = !rules.fault_tolerant_only;
  }
  if (j.Work() > rules.max_length && !(out.interval > 0 && out.interval <= every)) {
    // squeeze asks a checkpointable one for checkpoints every `every` when they are cheap.
    if (j.checkpointable && CheckpointsAffordable(pause, every, rules.long_job_comply)) {
      out.interval = every;
    } else {
      out.allowed = false;
    }
  }
  out.expected = ExpectedRunTimeAsync(work, out.interval, pause, out.checkpoint_cost,
                                      ToSeconds(j.restart_overhead), m);
  return out;
}

void Conclude(SpotClass& c, const SpotRules& rules) {
  const double w = c.gpu_hours > 0 ? c.gpu_hours : 1;
  c.interval_s /= w;
  c.checkpoint_cost_s /= w;
  c.slowdown = c.gpu_hours > 0 ? c.expected_gpu_hours / c.gpu_hours : 0;
  const std::string costs =
      std::isfinite(c.cost_spot)
          ? fmt::format("spot {:.0f} vs on demand {:.0f}", c.cost_spot, c.cost_on_demand)
          : fmt::format("spot never finishes vs on demand {:.0f}", c.cost_on_demand);
  if (c.jobs_ruled_out > 0) {
    c.suits_spot = false;
    if (!c.fault_tolerant && rules.fault_tolerant_only) {
      c.reason = "no checkpoints: a reclaim loses all its work (fault-tolerant work only)";
    } else {
      c.reason = fmt::format(
          "{} of {} jobs run longer than {} without checkpoints every {} (rule); {}",
          c.jobs_ruled_out, c.jobs, FormatDuration(rules.max_length),
          FormatDuration(rules.long_job_checkpoint), costs);
    }
  } else if (c.cost_spot < c.cost_on_demand) {
    c.suits_spot = true;
    c.reason = fmt::format("cheaper on spot: {} ({:.0f}% saved)", costs,
                           100 * (1 - c.cost_spot / c.cost_on_demand));
  } else {
    c.suits_spot = false;
    c.reason = "reclaims and checkpoints cost more than the discount: " + costs;
  }
}

}  // namespace

std::string SpotClass::Name() const {
  return group + ", " + length + (fault_tolerant ? "" : ", no checkpoints");
}

std::vector<SpotClass> FitSpot(const History& history, const SpotTerms& terms,
                               const SpotRules& rules) {
  // (team or GPU group order, group, length order, not fault-tolerant) -> class
  std::map<std::tuple<int, std::string, int, bool>, SpotClass> classes;
  for (const HistoryJob& j : history.jobs) {
    if (j.Work() <= 0) continue;
    const std::string group = history.has_teams
                                  ? "team " + (j.team.empty() ? std::string("(none)") : j.team)
                                  : GpuGroup(j.gpus);
    const int group_order = history.has_teams ? 0 : (j.gpus <= 1 ? 0 : j.gpus <= 8 ? 1 : 2);
    const int length = LengthOrder(j.Work());
    SpotClass& c = classes[{group_order, group, length, !j.FaultTolerant()}];
    c.group = group;
    c.length = kLengths[length];
    c.fault_tolerant = j.FaultTolerant();
    const JobOnSpot s = PlaceOnSpot(j, terms, rules);
    const double gpu_hours = ToSeconds(j.Work()) * j.gpus / 3600.0;
    ++c.jobs;
    if (!s.allowed) ++c.jobs_ruled_out;
    c.gpu_hours += gpu_hours;
    c.expected_gpu_hours += s.expected * j.gpus / 3600.0;
    c.interval_s += s.interval * gpu_hours;
    c.checkpoint_cost_s += s.checkpoint_cost * gpu_hours;
  }
  std::vector<SpotClass> out;
  for (auto& [key, c] : classes) {
    c.cost_spot = c.expected_gpu_hours * terms.spot_per_gpu_hour;
    c.cost_on_demand = c.gpu_hours * terms.on_demand_per_gpu_hour;
    Conclude(c, rules);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace squeeze
