#include "sim/metrics.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace squeeze {
namespace {

constexpr double kSlowdownFloorS = 10.0;

// Nearest-rank percentile of sorted values, in seconds.
double Percentile(const std::vector<Time>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * sorted.size()));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return ToSeconds(sorted[rank - 1]);
}

}  // namespace

namespace {

// Each pool's GPU-hours and cost, and the demand fragmentation blocked in it.
void AddPoolCosts(const SimResult& result, const ClusterSpec& cluster, Summary& s) {
  for (size_t p = 0; p < result.pool_gpu_s.size() && p < cluster.pools.size(); ++p) {
    PoolUse& use = s.pool_use[cluster.pools[p].name];
    use.gpu_hours = result.pool_gpu_s[p] / 3600.0;
    use.usage_cost = use.gpu_hours * cluster.PricePerGpuHour(static_cast<int>(p));
    use.fixed_cost = cluster.pools[p].monthly_cost * ToSeconds(result.makespan) /
                     (30.0 * 86400.0);
    use.cost = use.usage_cost + use.fixed_cost;
    s.cost += use.cost;
  }
  const auto& blocked = result.frag_blocked_gpu_s_by_scope;
  for (size_t scope = 0; scope < blocked.size(); ++scope) {
    const bool any = scope >= cluster.pools.size();
    auto it = s.per_pool.find(any ? "*" : cluster.pools[scope].name);
    if (it != s.per_pool.end()) it->second.frag_blocked_gpu_hours = blocked[scope] / 3600.0;
  }
}

// The run's counts, as the simulator kept them.
void CopyCounts(const SimResult& result, Summary& s) {
  s.preemptions = result.preemptions + result.slice_yields;
  s.slice_yields = result.slice_yields;
  s.borrowed_starts = result.borrowed_starts;
  s.defrag_moves = result.defrag_moves;
  s.resizes = result.resizes;
  s.shrinks = result.shrinks;
  s.widened_starts = result.widened_starts;
  for (const JobRecord& j : result.jobs) {
    if (!j.elastic) continue;
    ++s.elastic_jobs;
    for (const auto& [width, t] : j.time_at_width) {
      s.elastic_gpu_hours_by_width[width] += ToSeconds(t) * width / 3600.0;
    }
  }
  s.region_moves = result.region_moves;
  s.data_moved_gb = result.data_moved_gb;
  s.data_transfer_cost = result.data_transfer_cost;
  s.spot_starts = result.spot_starts;
  s.spot_long_bridges = result.spot_long_bridges;
  s.spot_long_every = result.spot_long_every;
  s.colocated_starts = result.colocated_starts;
  s.reclaims = result.reclaims;
  s.inference_evictions = result.inference_evictions;
  s.returned_home = result.returned_home;
  s.hardware_moves = result.hardware_moves;
  s.multi_node_starts = result.multi_node_starts;
  s.one_block_starts = result.one_block_starts;
  s.inference_violations = result.inference_violations;
  s.frag_blocked_gpu_hours = result.frag_blocked_gpu_s / 3600.0;
  s.makespan_s = WholeSeconds(result.makespan);
  s.rejected = static_cast<int64_t>(result.rejected.size());
  s.dependency_never = static_cast<int64_t>(result.dependency_never.size());
  s.most_array_running = result.most_array_running;
  s.wall_s = result.wall_s;
}

}  // namespace

Summary Summarize(const SimResult& result, const ClusterSpec& cluster) {
  Summary s;
  s.policy = result.policy;
  s.jobs = static_cast<int64_t>(result.jobs.size());
  std::vector<Time> queues;
  queues.reserve(result.jobs.size());
  double queue_sum = 0, jct_sum = 0, slowdown_sum = 0, lost = 0;
  std::map<std::string, std::pair<double, double>> pool_sums;
  s.by_length = {{"<1h"}, {"1h-12h"}, {">=12h"}};
  std::vector<LengthClass> urgencies(4);  // by Urgency value
  for (const JobRecord& r : result.jobs) {
    // Figures in seconds: each Time to seconds before the arithmetic.
    const double jct = ToSeconds(r.end - r.submit);
    const double queue = ToSeconds(r.queue);
    LengthClass& urgency = urgencies[static_cast<int>(r.urgency)];
    ++urgency.jobs;
    urgency.avg_queue_s += queue;
    urgency.avg_jct_s += jct;
    urgency.lost_gpu_hours += r.lost_gpu_s / 3600.0;
    LengthClass& length = s.by_length[r.duration < kHour ? 0 : (r.duration < 12 * kHour ? 1 : 2)];
    ++length.jobs;
    length.avg_queue_s += queue;
    length.avg_jct_s += jct;
    length.lost_gpu_hours += r.lost_gpu_s / 3600.0;
    queues.push_back(r.queue);
    queue_sum += queue;
    jct_sum += jct;
    slowdown_sum += std::max(1.0, jct / std::max(kSlowdownFloorS, ToSeconds(r.duration)));
    lost += r.lost_gpu_s;
    if (r.had_deadline) ++s.deadlines;
    if (r.deadline_missed) ++s.deadline_misses;
    if (r.timed_out) ++s.timed_out;
    const std::string pool = r.pool >= 0 ? cluster.pools[r.pool].name : "*";
    PoolSummary& ps = s.per_pool[pool];
    ++ps.jobs;
    auto& sums = pool_sums[pool];
    sums.first += queue;
    sums.second += jct;
  }
  for (LengthClass& length : s.by_length) {
    if (length.jobs == 0) continue;
    length.avg_queue_s /= static_cast<double>(length.jobs);
    length.avg_jct_s /= static_cast<double>(length.jobs);
  }
  for (int u = 3; u >= 0; --u) {
    LengthClass& c = urgencies[u];
    if (c.jobs == 0) continue;
    c.name = std::string(UrgencyName(static_cast<Urgency>(u)));
    c.avg_queue_s /= static_cast<double>(c.jobs);
    c.avg_jct_s /= static_cast<double>(c.jobs);
    s.by_urgency.push_back(std::move(c));
  }
  for (auto& [pool, ps] : s.per_pool) {
    ps.avg_queue_s = pool_sums[pool].first / ps.jobs;
    ps.avg_jct_s = pool_sums[pool].second / ps.jobs;
  }
  AddPoolCosts(result, cluster, s);
  std::sort(queues.begin(), queues.end());
  if (s.jobs > 0) {
    s.avg_queue_s = queue_sum / s.jobs;
    s.avg_jct_s = jct_sum / s.jobs;
    s.avg_bounded_slowdown = slowdown_sum / s.jobs;
  }
  s.p50_queue_s = Percentile(queues, 50);
  s.p95_queue_s = Percentile(queues, 95);
  s.p99_queue_s = Percentile(queues, 99);
  const double capacity = static_cast<double>(result.total_gpus) * ToSeconds(result.makespan);
  s.gpu_utilization = capacity > 0 ? result.busy_gpu_s / capacity : 0;
  CopyCounts(result, s);
  s.lost_gpu_hours = lost / 3600.0;
  return s;
}

}  // namespace squeeze
