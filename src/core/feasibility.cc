#include "core/feasibility.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace squeeze {
namespace {

std::string Join(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string Gpus(int n) { return std::to_string(n) + (n == 1 ? " GPU" : " GPUs"); }

// The GPU models of the cluster, from its node groups (a few, where the nodes are many): asked
// for every job a simulation submits, so kept off the nodes.
std::set<std::string> Models(const ClusterState& cs) {
  std::set<std::string> models;
  for (const NodeGroup& g : cs.groups()) models.insert(g.gpu_model);
  return models;
}

bool HasModel(const ClusterState& cs, const std::string& model) {
  for (const NodeGroup& g : cs.groups()) {
    if (g.gpu_model == model) return true;
  }
  return false;
}

// "pool a100: 4 nodes x 8 A100", or "pool mixed: 2 nodes of gpu, 12 GPUs in all".
std::string Describe(const ClusterState& cs, const NodeGroup& g) {
  bool uniform = true;
  for (int n : g.nodes) uniform = uniform && cs.node(n).gpus == g.max_gpus_per_node;
  const size_t count = g.nodes.size();
  const std::string nodes = std::to_string(count) + (count == 1 ? " node" : " nodes");
  const std::string pool = "pool " + cs.spec().pools[g.pool].name + ": ";
  if (uniform) return pool + nodes + " x " + std::to_string(g.max_gpus_per_node) + " " + g.gpu_model;
  return pool + nodes + " of " + g.gpu_model + ", " + std::to_string(g.total_gpus) + " GPUs in all";
}

// For a job that asks for GPU memory: the most any card has ("; the largest cards have 81920
// MiB (A100)"), or that the cluster says none.
std::string LargestCards(const ClusterState& cs, const JobSpec& spec) {
  if (spec.min_gpu_memory_mib <= 0) return "";
  int64_t most = 0;
  std::set<std::string> models;
  for (const NodeGroup& g : cs.groups()) {
    if (g.gpu_memory_mib > most) models.clear();
    if (g.gpu_memory_mib >= most) models.insert(g.gpu_model);
    most = std::max(most, g.gpu_memory_mib);
  }
  if (most == 0) {
    return "; the cluster file gives no card's memory (gpu_memory_mib of its nodes, or "
           "memory_mib of its gpu_models)";
  }
  return "; the largest cards have " + std::to_string(most) + " MiB (" + Join(models) + ")";
}

// "no node has its regions (mars) and GPU memory (at least 100000 MiB); models: A100, V100".
std::string NoNodeHas(const JobSpec& spec, const std::set<std::string>& models) {
  std::vector<std::string> asked;
  if (!spec.pool.empty()) asked.push_back("pool (" + spec.pool + ")");
  if (!spec.regions.empty()) {
    asked.push_back("regions (" + Join({spec.regions.begin(), spec.regions.end()}) + ")");
  }
  if (!spec.gpu_models.empty()) {
    asked.push_back("GPU models (" + Join({spec.gpu_models.begin(), spec.gpu_models.end()}) + ")");
  }
  if (spec.min_gpu_memory_mib > 0) {
    asked.push_back("GPU memory (at least " + std::to_string(spec.min_gpu_memory_mib) + " MiB)");
  }
  std::string what;
  for (size_t i = 0; i < asked.size(); ++i) {
    what += (i == 0 ? "" : i + 1 == asked.size() ? " and " : ", ") + asked[i];
  }
  return (asked.empty() ? std::string("no node it may use has GPUs")
                        : "no node has its " + what) + "; models: " + Join(models);
}

}  // namespace

Status CheckGpusFit(const CycleContext& c, const JobSpec& spec, int home_pool,
                    const std::string& note) {
  if (spec.gpus <= 0) return Status::Ok();
  const ClusterState& cs = c.s.cluster;
  if (spec.gpu_models.size() == 1 && !HasModel(cs, spec.gpu_models[0])) {
    return Status::Error("asks for GPU model '" + spec.gpu_models[0] +
                         "', which no node has; models: " + Join(Models(cs)));
  }
  int largest = 0;
  const NodeGroup* widest = nullptr;
  std::string one_node;  // the pools that run a job on one node, which limited `largest`
  for (int g : c.GroupsFor(spec, home_pool)) {
    const NodeGroup& group = cs.group(g);
    const PoolSpec& pool = cs.spec().pools[group.pool];
    const bool spread = spec.gpus > group.max_gpus_per_node && !pool.one_node_jobs;
    const int holds = spread ? group.total_gpus : group.max_gpus_per_node;
    if (widest == nullptr || holds > largest) {
      largest = holds;
      widest = &group;
    }
    const bool by_one_node = pool.one_node_jobs && spec.gpus > group.max_gpus_per_node &&
                             spec.gpus <= group.total_gpus;
    if (by_one_node && one_node.find("'" + pool.name + "'") == std::string::npos) {
      one_node += (one_node.empty() ? "" : ", ") + ("'" + pool.name + "'");
    }
  }
  if (widest == nullptr) {
    return Status::Error(NoNodeHas(spec, Models(cs)) + LargestCards(cs, spec) + note);
  }
  if (largest >= spec.gpus) return Status::Ok();
  return Status::Error("asks for " + Gpus(spec.gpus) + "; the largest possible request is " +
                       Gpus(largest) + " (" + Describe(cs, *widest) + ")" +
                       (one_node.empty() ? ""
                                         : "; pool " + one_node +
                                               " runs a job on one node (a job bigger than a "
                                               "node needs a Slurm pool)") +
                       note);
}

}  // namespace squeeze
