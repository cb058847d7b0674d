// The free capacity of a cluster, indexed for placement: nodes are grouped by (pool, GPU
// model), and within a group kept in buckets by their number of fully free GPUs, so that
// "the best-fitting node for g GPUs" is a bucket look-up, not a scan. Owned by the Scheduler;
// not thread-safe.
#ifndef SQUEEZE_CORE_CLUSTER_STATE_H_
#define SQUEEZE_CORE_CLUSTER_STATE_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "core/placement.h"

namespace squeeze {

struct NodeState {
  int index = 0;
  int pool = 0;
  int group = 0;
  int gpus = 0;
  int whole_free = 0;              // GPUs with all 1000 milli free
  std::vector<int> free_milli;     // per GPU
  int64_t cpu_free = 0;            // meaningful when cpu_tracked
  int64_t memory_free = 0;         // meaningful when memory_tracked
  bool cpu_tracked = false;
  bool memory_tracked = false;
  // Pods the node hosts by class, as GPU packing and clustering scores see them: "share"
  // (one GPU, part of it) and "k-gpu" (whole GPUs). CPU-only shares count in neither.
  int share_pods = 0;
  int kgpu_pods = 0;
  // Changes whenever the node's free capacity does; unique across every ClusterState and
  // copy in the process, so a plugin may cache a score per (node, stamp).
  uint64_t stamp = 0;
};

// Nodes of one pool with one GPU model.
struct NodeGroup {
  int pool = 0;
  std::string gpu_model;
  int64_t gpu_memory_mib = 0;      // smallest GPU memory of its nodes
  double speed = 1;                // its model's (ClusterSpec::ModelSpeed)
  int max_gpus_per_node = 0;
  std::vector<int> nodes;          // ascending node index
  std::vector<std::set<int>> by_whole_free;  // [k] = nodes with exactly k whole free GPUs
  int64_t free_milli = 0;          // sum of free milli over its GPUs
  int whole_free = 0;              // sum of whole free GPUs
  int total_gpus = 0;
};

class ClusterState {
 public:
  explicit ClusterState(const ClusterSpec& spec);

  const ClusterSpec& spec() const { return spec_; }
  const std::vector<NodeState>& nodes() const { return nodes_; }
  const NodeState& node(int i) const { return nodes_[i]; }
  const std::vector<NodeGroup>& groups() const { return groups_; }
  const NodeGroup& group(int g) const { return groups_[g]; }
  // Groups of a pool, in model-name order.
  const std::vector<int>& PoolGroups(int pool) const { return pool_groups_[pool]; }
  int PoolCount() const { return static_cast<int>(spec_.pools.size()); }
  // Whether every node has cards of one model and one memory size (no choice of cards).
  bool OneCardKind() const { return one_card_kind_; }
  int TotalGpus() const { return total_gpus_; }
  int64_t FreeMilli() const { return free_milli_; }
  int PoolTotalGpus(int pool) const { return pool_total_gpus_[pool]; }
  // A number that changes whenever the pool's free capacity changes, for callers that keep
  // what they derived from it.
  uint64_t PoolVersion(int pool) const { return pool_versions_[pool]; }

  // The topology (ClusterSpec::topology): how many levels, the domains of a level (each its
  // nodes, ascending), and a node's domain at a level (-1: the node is in none).
  int TopologyLevels() const { return static_cast<int>(domain_nodes_.size()); }
  const std::vector<std::vector<int>>& Domains(int level) const { return domain_nodes_[level]; }
  int DomainOf(int level, int node) const { return node_domain_[level][node]; }
  const std::vector<int>& NodeDomains(int level) const { return node_domain_[level]; }
  const std::string& DomainName(int level, int domain) const {
    return domain_names_[level][domain];
  }

  // Whether the node has room for `share` (GPUs free enough, CPU and memory).
  bool Fits(const NodeShare& share) const;
  void Allocate(const Placement& placement);
  void Release(const Placement& placement);

 private:
  void Take(const NodeShare& share, int sign);
  void Rebucket(NodeState& n, int old_whole);

  ClusterSpec spec_;
  std::vector<NodeState> nodes_;
  std::vector<NodeGroup> groups_;
  std::vector<std::vector<int>> pool_groups_;
  std::vector<int> pool_total_gpus_;
  std::vector<uint64_t> pool_versions_;
  void IndexTopology();
  std::vector<std::vector<std::vector<int>>> domain_nodes_;  // [level][domain] nodes
  std::vector<std::vector<std::string>> domain_names_;       // [level][domain]
  std::vector<std::vector<int>> node_domain_;                // [level][node], -1 none
  bool one_card_kind_ = true;
  int total_gpus_ = 0;
  int64_t free_milli_ = 0;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_CLUSTER_STATE_H_
