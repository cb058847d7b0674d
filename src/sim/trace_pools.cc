#include "sim/trace_pools.h"

#include <algorithm>
#include <map>

namespace squeeze {
namespace {

// Pools listed by name in a message before "and N more".
constexpr size_t kPoolsShown = 12;

std::string JobCount(int64_t n) { return std::to_string(n) + (n == 1 ? " job" : " jobs"); }

std::string ListMissing(const std::vector<MissingPool>& missing) {
  std::string out;
  for (size_t i = 0; i < missing.size() && i < kPoolsShown; ++i) {
    out += (i ? ", '" : "'") + missing[i].name + "' (" + JobCount(missing[i].jobs) + ")";
  }
  if (missing.size() > kPoolsShown) {
    out += " and " + std::to_string(missing.size() - kPoolsShown) + " more";
  }
  return out;
}

std::string ListPools(const ClusterSpec& cluster) {
  std::string out;
  for (size_t i = 0; i < cluster.pools.size() && i < kPoolsShown; ++i) {
    out += (i ? ", '" : "'") + cluster.pools[i].name + "'";
  }
  if (cluster.pools.size() > kPoolsShown) {
    out += " and " + std::to_string(cluster.pools.size() - kPoolsShown) + " more";
  }
  return out.empty() ? "none" : out;
}

int64_t Jobs(const std::vector<MissingPool>& missing) {
  int64_t jobs = 0;
  for (const MissingPool& m : missing) jobs += m.jobs;
  return jobs;
}

std::string Pools(size_t n) { return std::to_string(n) + (n == 1 ? " pool" : " pools"); }

}  // namespace

std::vector<MissingPool> PoolsMissingFrom(const Trace& trace, const ClusterSpec& cluster) {
  std::map<std::string, int64_t> absent;
  std::map<std::string, bool> known;  // pool name -> in the cluster, for each name seen
  for (const TraceJob& job : trace.jobs) {
    const std::string& pool = job.spec.pool;
    if (pool.empty()) continue;
    auto it = known.find(pool);
    if (it == known.end()) it = known.emplace(pool, cluster.PoolIndex(pool) >= 0).first;
    if (!it->second) ++absent[pool];
  }
  std::vector<MissingPool> out;
  for (const auto& [name, jobs] : absent) out.push_back({name, jobs});
  std::stable_sort(out.begin(), out.end(),
                   [](const MissingPool& a, const MissingPool& b) { return a.jobs > b.jobs; });
  return out;
}

Status CheckTracePools(const Trace& trace, const ClusterSpec& cluster,
                       const std::string& cluster_name) {
  const std::vector<MissingPool> missing = PoolsMissingFrom(trace, cluster);
  if (missing.empty() || Jobs(missing) < static_cast<int64_t>(trace.jobs.size())) {
    return Status::Ok();
  }
  return Status::Error(
      "the trace's jobs name " + Pools(missing.size()) + " the cluster " + cluster_name +
      " does not have: " + ListMissing(missing) + "; none of the trace's " +
      std::to_string(trace.jobs.size()) + " jobs could run. The cluster's pools: " +
      ListPools(cluster) +
      ". Give --ignore-pools to let every job run in any pool, or name the trace's pools in "
      "the cluster file (docs/cluster-file.md)");
}

std::string MissingPoolsNote(const Trace& trace, const ClusterSpec& cluster,
                             const std::string& cluster_name) {
  const std::vector<MissingPool> missing = PoolsMissingFrom(trace, cluster);
  const int64_t jobs = Jobs(missing);
  if (missing.empty() || jobs == static_cast<int64_t>(trace.jobs.size())) return "";
  return std::to_string(jobs) + " of the trace's " + std::to_string(trace.jobs.size()) +
         " jobs name " + Pools(missing.size()) + " the cluster " + cluster_name +
         " does not have: " + ListMissing(missing) +
         "; they are rejected (--ignore-pools lets every job run in any pool)";
}

}  // namespace squeeze
