#include "config/job_feasibility.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace squeeze {
namespace {

// The nodes of one pool with one GPU model that the job may use.
struct Group {
  std::string pool;
  std::string model;
  int nodes = 0;
  int total_gpus = 0;
  int max_gpus_per_node = 0;
  bool uniform = true;  // every node has max_gpus_per_node GPUs
};

std::string Join(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string Describe(const Group& g) {
  const std::string nodes = std::to_string(g.nodes) + (g.nodes == 1 ? " node" : " nodes");
  if (g.uniform) {
    return "pool " + g.pool + ": " + nodes + " x " + std::to_string(g.max_gpus_per_node) + " " +
           g.model;
  }
  return "pool " + g.pool + ": " + nodes + " of " + g.model + ", " + std::to_string(g.total_gpus) +
         " GPUs in all";
}

std::string Gpus(int n) { return std::to_string(n) + (n == 1 ? " GPU" : " GPUs"); }

bool Allowed(const JobSpec& spec, const PoolSpec& pool, const NodeSpec& node) {
  if (!spec.pool.empty() && pool.name != spec.pool) return false;
  if (!spec.regions.empty() &&
      std::find(spec.regions.begin(), spec.regions.end(), pool.region) == spec.regions.end()) {
    return false;
  }
  if (!spec.gpu_models.empty() && std::find(spec.gpu_models.begin(), spec.gpu_models.end(),
                                            node.gpu_model) == spec.gpu_models.end()) {
    return false;
  }
  return spec.min_gpu_memory_mib == 0 || node.gpu_memory_mib >= spec.min_gpu_memory_mib;
}

// A job on one node needs a node with its CPU and memory (0 on a node = not tracked).
Status CheckCpuMemory(const JobSpec& spec, const std::vector<const NodeSpec*>& nodes) {
  if (spec.cpu_milli == 0 && spec.memory_mib == 0) return Status::Ok();
  int64_t best_cpu = 0, best_memory = 0;
  for (const NodeSpec* n : nodes) {
    if (spec.gpus > n->gpus) continue;
    const bool cpu_ok = n->cpu_milli == 0 || spec.cpu_milli <= n->cpu_milli;
    const bool memory_ok = n->memory_mib == 0 || spec.memory_mib <= n->memory_mib;
    if (cpu_ok && memory_ok) return Status::Ok();
    best_cpu = std::max(best_cpu, n->cpu_milli);
    best_memory = std::max(best_memory, n->memory_mib);
  }
  return Status::Error("asks for " + std::to_string(spec.cpu_milli) + " CPU millicores and " +
                       std::to_string(spec.memory_mib) + " MiB on one node; the largest node " +
                       "it may use has " + std::to_string(best_cpu) + " millicores and " +
                       std::to_string(best_memory) + " MiB");
}

}  // namespace

Status CheckFitsCluster(const JobSpec& spec, const ClusterSpec& cluster) {
  if (!spec.pool.empty() && cluster.PoolIndex(spec.pool) < 0) {
    std::set<std::string> pools;
    for (const PoolSpec& p : cluster.pools) pools.insert(p.name);
    return Status::Error("pool '" + spec.pool + "' does not exist; pools: " + Join(pools));
  }
  std::set<std::string> models;
  for (const NodeSpec& n : cluster.nodes) models.insert(n.gpu_model);
  for (const std::string& m : spec.gpu_models) {
    if (!models.count(m)) {
      if (spec.gpu_models.size() > 1) continue;
      return Status::Error("asks for GPU model '" + m +
                           "', which no node has; models: " + Join(models));
    }
  }
  std::map<std::pair<std::string, std::string>, Group> groups;
  std::vector<const NodeSpec*> allowed;
  for (const NodeSpec& n : cluster.nodes) {
    const int pool = cluster.PoolIndex(n.pool);
    if (pool < 0 || !Allowed(spec, cluster.pools[pool], n)) continue;
    allowed.push_back(&n);
    Group& g = groups[{n.pool, n.gpu_model}];
    g.pool = n.pool;
    g.model = n.gpu_model;
    if (g.nodes > 0 && n.gpus != g.max_gpus_per_node) g.uniform = false;
    g.nodes += 1;
    g.total_gpus += n.gpus;
    g.max_gpus_per_node = std::max(g.max_gpus_per_node, n.gpus);
  }
  if (allowed.empty()) {
    const std::set<std::string> asked(spec.gpu_models.begin(), spec.gpu_models.end());
    return Status::Error("no node has its pool, regions, GPU models (" + Join(asked) +
                         ") and GPU memory; models: " + Join(models));
  }
  if (spec.gpus == 0) return CheckCpuMemory(spec, allowed);
  int widest_node = 0;
  for (const NodeSpec* n : allowed) widest_node = std::max(widest_node, n->gpus);
  if (!spec.WholeGpus() && widest_node < 1) {
    return Status::Error("asks for a fraction of a GPU; no node it may use has a GPU");
  }
  const Group* largest = nullptr;
  for (const auto& [key, g] : groups) {
    if (largest == nullptr || g.total_gpus > largest->total_gpus) largest = &g;
  }
  if (spec.gpus > largest->total_gpus) {
    return Status::Error("asks for " + Gpus(spec.gpus) + "; the largest possible request is " +
                         Gpus(largest->total_gpus) + " (" + Describe(*largest) + ")");
  }
  return spec.gpus <= widest_node ? CheckCpuMemory(spec, allowed) : Status::Ok();
}

}  // namespace squeeze
