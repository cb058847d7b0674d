#include "core/cluster_state.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <map>

namespace squeeze {
namespace {

// Stamps for NodeState::stamp: unique over the process, so that two states never share one.
uint64_t NextStamp() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

ClusterState::ClusterState(const ClusterSpec& spec) : spec_(spec) {
  pool_groups_.resize(spec_.pools.size());
  pool_total_gpus_.assign(spec_.pools.size(), 0);
  pool_versions_.assign(spec_.pools.size(), 0);
  std::map<std::pair<int, std::string>, int> group_of;
  for (size_t i = 0; i < spec_.nodes.size(); ++i) {
    const NodeSpec& ns = spec_.nodes[i];
    const int pool = spec_.PoolIndex(ns.pool);
    assert(pool >= 0);
    auto [it, inserted] = group_of.emplace(std::make_pair(pool, ns.gpu_model),
                                           static_cast<int>(groups_.size()));
    if (inserted) {
      NodeGroup g;
      g.pool = pool;
      g.gpu_model = ns.gpu_model;
      g.gpu_memory_mib = ns.gpu_memory_mib;
      g.speed = spec_.ModelSpeed(ns.gpu_model);
      groups_.push_back(std::move(g));
    }
    NodeGroup& g = groups_[it->second];
    NodeState n;
    n.index = static_cast<int>(i);
    n.pool = pool;
    n.group = it->second;
    n.gpus = ns.gpus;
    n.whole_free = ns.gpus;
    n.free_milli.assign(ns.gpus, kMilliPerGpu);
    n.cpu_tracked = ns.cpu_milli > 0;
    n.memory_tracked = ns.memory_mib > 0;
    n.cpu_free = ns.cpu_milli;
    n.memory_free = ns.memory_mib;
    n.stamp = NextStamp();
    g.gpu_memory_mib = std::min(g.gpu_memory_mib, ns.gpu_memory_mib);
    g.max_gpus_per_node = std::max(g.max_gpus_per_node, ns.gpus);
    g.nodes.push_back(n.index);
    g.free_milli += static_cast<int64_t>(ns.gpus) * kMilliPerGpu;
    g.whole_free += ns.gpus;
    g.total_gpus += ns.gpus;
    pool_total_gpus_[pool] += ns.gpus;
    total_gpus_ += ns.gpus;
    nodes_.push_back(std::move(n));
  }
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    NodeGroup& g = groups_[gi];
    g.by_whole_free.resize(g.max_gpus_per_node + 1);
    for (int ni : g.nodes) g.by_whole_free[nodes_[ni].whole_free].insert(ni);
  }
  for (const auto& [key, gi] : group_of) pool_groups_[key.first].push_back(gi);
  for (const NodeGroup& g : groups_) {
    one_card_kind_ = one_card_kind_ && g.gpu_model == groups_.front().gpu_model &&
                     g.gpu_memory_mib == groups_.front().gpu_memory_mib;
  }
  free_milli_ = static_cast<int64_t>(total_gpus_) * kMilliPerGpu;
  IndexTopology();
}

void ClusterState::IndexTopology() {
  const size_t levels = spec_.topology.levels.size();
  domain_nodes_.assign(levels, {});
  domain_names_.assign(levels, {});
  node_domain_.assign(levels, std::vector<int>(nodes_.size(), -1));
  for (size_t l = 0; l < levels; ++l) {
    std::map<std::string, int> index;
    for (size_t n = 0; n < nodes_.size(); ++n) {
      const std::vector<std::string>& d = spec_.nodes[n].domains;
      if (d.size() != levels) continue;
      auto [it, added] = index.emplace(d[l], static_cast<int>(domain_nodes_[l].size()));
      if (added) {
        domain_nodes_[l].emplace_back();
        domain_names_[l].push_back(d[l]);
      }
      domain_nodes_[l][it->second].push_back(static_cast<int>(n));
      node_domain_[l][n] = it->second;
    }
  }
}

bool ClusterState::Fits(const NodeShare& share) const {
  const NodeState& n = nodes_[share.node];
  for (int g : share.gpus) {
    if (g < 0 || g >= n.gpus || n.free_milli[g] < share.milli_per_gpu) return false;
  }
  if (n.cpu_tracked && share.cpu_milli > n.cpu_free) return false;
  if (n.memory_tracked && share.memory_mib > n.memory_free) return false;
  return true;
}

void ClusterState::Allocate(const Placement& placement) {
  for (const auto& s : placement.shares) Take(s, -1);
}

void ClusterState::Release(const Placement& placement) {
  for (const auto& s : placement.shares) Take(s, +1);
}

void ClusterState::Take(const NodeShare& share, int sign) {
  NodeState& n = nodes_[share.node];
  NodeGroup& g = groups_[n.group];
  ++pool_versions_[n.pool];
  const int old_whole = n.whole_free;
  for (int gpu : share.gpus) {
    int& f = n.free_milli[gpu];
    if (f == kMilliPerGpu) --n.whole_free;
    f += sign * share.milli_per_gpu;
    assert(f >= 0 && f <= kMilliPerGpu);
    if (f == kMilliPerGpu) ++n.whole_free;
  }
  const int64_t milli = static_cast<int64_t>(share.gpus.size()) * share.milli_per_gpu * sign;
  g.free_milli += milli;
  free_milli_ += milli;
  n.cpu_free += sign * share.cpu_milli;
  n.memory_free += sign * share.memory_mib;
  if (!share.gpus.empty()) {
    const bool is_share = share.gpus.size() == 1 && share.milli_per_gpu < kMilliPerGpu;
    (is_share ? n.share_pods : n.kgpu_pods) -= sign;  // sign -1 takes capacity: a pod more
  }
  n.stamp = NextStamp();
  if (n.whole_free != old_whole) Rebucket(n, old_whole);
}

void ClusterState::Rebucket(NodeState& n, int old_whole) {
  NodeGroup& g = groups_[n.group];
  g.by_whole_free[old_whole].erase(n.index);
  g.by_whole_free[n.whole_free].insert(n.index);
  g.whole_free += n.whole_free - old_whole;
}

}  // namespace squeeze
