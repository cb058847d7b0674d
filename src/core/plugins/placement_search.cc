#include "core/plugins/placement_search.h"

#include <algorithm>

namespace squeeze {

int PlaceRequest::Usable(const NodeState& node) const {
  if (node_domain != nullptr && (*node_domain)[node.index] != domain) return 0;
  if (node_gpu_cap != nullptr) {
    auto it = node_gpu_cap->find(node.index);
    if (it != node_gpu_cap->end()) return std::min(node.whole_free, it->second);
  }
  return node.whole_free;
}

namespace {

bool CpuMemoryFit(const NodeState& n, int64_t cpu, int64_t mem) {
  if (n.cpu_tracked && cpu > n.cpu_free) return false;
  if (n.memory_tracked && mem > n.memory_free) return false;
  return true;
}

// The job's CPU and memory for `gpus` of its GPUs (all of it when the job has no GPUs).
std::pair<int64_t, int64_t> ResourcesFor(const JobSpec& job, int gpus) {
  if (job.gpus <= 0) return {job.cpu_milli, job.memory_mib};
  return {job.cpu_milli * gpus / job.gpus, job.memory_mib * gpus / job.gpus};
}

bool IsCapped(const PlaceRequest& req, int node) {
  return req.node_gpu_cap != nullptr && req.node_gpu_cap->count(node) > 0;
}

Placement Single(NodeShare share) {
  Placement p;
  p.shares.push_back(std::move(share));
  return p;
}

}  // namespace

std::optional<NodeShare> WholeShare(const PlaceRequest& req, const ClusterState& cluster,
                                    int node, int gpus) {
  const NodeState& n = cluster.node(node);
  auto [cpu, mem] = ResourcesFor(*req.job, gpus);
  if (!CpuMemoryFit(n, cpu, mem)) return std::nullopt;
  NodeShare s;
  s.node = node;
  s.milli_per_gpu = kMilliPerGpu;
  s.cpu_milli = cpu;
  s.memory_mib = mem;
  for (int g = 0; g < n.gpus && static_cast<int>(s.gpus.size()) < gpus; ++g) {
    if (n.free_milli[g] == kMilliPerGpu) s.gpus.push_back(g);
  }
  if (static_cast<int>(s.gpus.size()) < gpus) return std::nullopt;
  return s;
}

std::optional<NodeShare> FractionShare(const PlaceRequest& req, const ClusterState& cluster,
                                       int node, int gpu) {
  const NodeState& n = cluster.node(node);
  if (!CpuMemoryFit(n, req.job->cpu_milli, req.job->memory_mib)) return std::nullopt;
  NodeShare s;
  s.node = node;
  s.gpus = {gpu};
  s.milli_per_gpu = req.job->gpu_milli;
  s.cpu_milli = req.job->cpu_milli;
  s.memory_mib = req.job->memory_mib;
  return s;
}

std::optional<Placement> PlaceCpuOnly(const PlaceRequest& req, const ClusterState& cluster) {
  for (int gi : req.groups) {
    for (int ni : cluster.group(gi).nodes) {
      const NodeState& n = cluster.node(ni);
      if (!CpuMemoryFit(n, req.job->cpu_milli, req.job->memory_mib)) continue;
      NodeShare s;
      s.node = ni;
      s.milli_per_gpu = 0;
      s.cpu_milli = req.job->cpu_milli;
      s.memory_mib = req.job->memory_mib;
      return Single(std::move(s));
    }
  }
  return std::nullopt;
}

std::optional<Placement> PlaceOnOneNode(const PlaceRequest& req, const ClusterState& cluster,
                                        FitRule rule) {
  const int want = req.job->gpus;
  int best_node = -1;
  int best_free = 0;
  auto consider = [&](int node, int usable) {
    if (usable < want) return;
    const bool better = best_node < 0 ||
                        (rule == FitRule::kBest
                             ? (usable < best_free || (usable == best_free && node < best_node))
                             : node < best_node);
    if (!better) return;
    if (!WholeShare(req, cluster, node, want)) return;
    best_node = node;
    best_free = usable;
  };
  for (int gi : req.groups) {
    const NodeGroup& g = cluster.group(gi);
    if (want > g.max_gpus_per_node || g.whole_free < want) continue;
    for (int k = want; k <= g.max_gpus_per_node; ++k) {
      if (rule == FitRule::kBest && best_node >= 0 && k > best_free) break;
      for (int ni : g.by_whole_free[k]) {
        if (IsCapped(req, ni)) continue;
        if (rule == FitRule::kFirst && best_node >= 0 && ni > best_node) break;
        const int before = best_node;
        consider(ni, k);
        if (best_node != before) break;  // the first fitting node of a bucket is its best
      }
    }
  }
  if (req.node_gpu_cap != nullptr) {
    for (const auto& [ni, cap] : *req.node_gpu_cap) {
      const NodeState& n = cluster.node(ni);
      if (std::find(req.groups.begin(), req.groups.end(), n.group) == req.groups.end()) continue;
      consider(ni, req.Usable(n));
    }
  }
  if (best_node < 0) return std::nullopt;
  return Single(*WholeShare(req, cluster, best_node, want));
}

std::optional<Placement> PlaceFraction(const PlaceRequest& req, const ClusterState& cluster,
                                       FitRule rule) {
  const int milli = req.job->gpu_milli;
  int best_node = -1, best_gpu = -1, best_free = kMilliPerGpu + 1;
  for (int gi : req.groups) {
    const NodeGroup& g = cluster.group(gi);
    if (g.free_milli < milli) continue;
    for (int ni : g.nodes) {
      const NodeState& n = cluster.node(ni);
      for (int k = 0; k < n.gpus; ++k) {
        const int f = n.free_milli[k];
        if (f < milli) continue;
        if (f == kMilliPerGpu && req.Usable(n) < 1) continue;
        if (rule == FitRule::kBest && f >= best_free) continue;
        if (!FractionShare(req, cluster, ni, k)) continue;
        best_node = ni;
        best_gpu = k;
        best_free = f;
        if (rule == FitRule::kFirst) return Single(*FractionShare(req, cluster, ni, k));
      }
    }
  }
  if (best_node < 0) return std::nullopt;
  return Single(*FractionShare(req, cluster, best_node, best_gpu));
}

std::vector<NodeFree> NodesByFreeDescending(const PlaceRequest& req, const ClusterState& cluster,
                                            int group) {
  const NodeGroup& g = cluster.group(group);
  std::vector<NodeFree> out;
  for (int k = g.max_gpus_per_node; k >= 1; --k) {
    for (int ni : g.by_whole_free[k]) {
      const int usable = req.Usable(cluster.node(ni));
      if (usable > 0) out.push_back({ni, usable});
    }
  }
  if (req.node_gpu_cap != nullptr) {
    std::stable_sort(out.begin(), out.end(), [](const NodeFree& a, const NodeFree& b) {
      return a.usable != b.usable ? a.usable > b.usable : a.node < b.node;
    });
  }
  return out;
}

bool GroupTooSmall(const NodeGroup& group, int gpus) { return group.whole_free < gpus; }

bool EvenShares(const Placement& p) {
  for (const NodeShare& s : p.shares) {
    if (s.gpus.size() != p.shares.front().gpus.size()) return false;
  }
  return true;
}

namespace {

// `nodes` nodes of the group with `per` whole GPUs each, best fit first; nullopt if too few.
std::optional<Placement> EvenOnGroup(const PlaceRequest& req, const ClusterState& cluster,
                                     int group, int nodes, int per) {
  std::vector<std::pair<int, int>> fits;  // (usable, node)
  for (int ni : cluster.group(group).nodes) {
    const int usable = req.Usable(cluster.node(ni));
    if (usable >= per) fits.push_back({usable, ni});
  }
  if (static_cast<int>(fits.size()) < nodes) return std::nullopt;
  std::sort(fits.begin(), fits.end());
  Placement p;
  for (const auto& [usable, ni] : fits) {
    auto share = WholeShare(req, cluster, ni, per);
    if (!share) continue;
    p.shares.push_back(std::move(*share));
    if (static_cast<int>(p.shares.size()) == nodes) {
      std::sort(p.shares.begin(), p.shares.end(),
                [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
      return p;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Placement> PlaceEvenly(const PlaceRequest& req, const ClusterState& cluster) {
  const JobSpec& job = *req.job;
  if (job.gpus <= 0 || !job.WholeGpus()) return std::nullopt;
  if (auto p = PlaceOnOneNode(req, cluster, FitRule::kBest)) return p;
  for (int gi : req.groups) {
    const NodeGroup& g = cluster.group(gi);
    if (g.max_gpus_per_node <= 0 || GroupTooSmall(g, job.gpus)) continue;
    const int most = std::min<int>(job.gpus, static_cast<int>(g.nodes.size()));
    for (int k = (job.gpus + g.max_gpus_per_node - 1) / g.max_gpus_per_node; k <= most; ++k) {
      if (job.gpus % k != 0) continue;
      if (auto p = EvenOnGroup(req, cluster, gi, k, job.gpus / k)) return p;
    }
  }
  return std::nullopt;
}

}  // namespace squeeze
