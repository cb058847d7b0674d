#include "core/actions/home_wait.h"

#include <algorithm>

namespace squeeze {
namespace {

void AddPool(const CycleContext& c, int pool, FreeingSchedule& out) {
  for (int g : c.s.cluster.PoolGroups(pool)) {
    for (int node : c.s.cluster.group(g).nodes) {
      if (c.s.unavailable.count(node)) continue;
      for (JobId id : c.s.node_jobs[node]) {
        const Job& job = c.s.jobs.at(id);
        const Time end = job.state == JobState::kCheckpointing ? c.now : c.ExpectedEnd(job);
        if (end == kNever) continue;
        int gpus = 0;
        for (const auto& share : job.placement.shares) {
          if (share.node == node && share.milli_per_gpu == kMilliPerGpu) {
            gpus += static_cast<int>(share.gpus.size());
          }
        }
        if (gpus > 0) out.emplace_back(std::max(end, c.now), gpus);
      }
    }
  }
}

}  // namespace

FreeingSchedule ScheduleOf(const CycleContext& c, int pool) {
  FreeingSchedule out;
  if (pool >= 0) {
    AddPool(c, pool, out);
  } else {
    for (int p = 0; p < c.s.cluster.PoolCount(); ++p) {
      if (!Opportunistic(c.s, p)) AddPool(c, p, out);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Time WaitFor(const CycleContext& c, const FreeingSchedule& schedule, int free, int wanted) {
  if (free >= wanted) return 0;
  for (const auto& [at, gpus] : schedule) {
    free += gpus;
    if (free >= wanted) return at - c.now;
  }
  return kNever;
}

Time WaitAtHome(const CycleContext& c, const Job& job, const FreeingSchedule& schedule,
                int ahead) {
  int free = 0;
  for (int g : c.GroupsFor(job.spec, job.home_pool)) free += c.s.cluster.group(g).whole_free;
  return WaitFor(c, schedule, free, ahead + std::max(1, job.spec.gpus));
}

}  // namespace squeeze
