#include "core/plugins/scored_order.h"

#include <algorithm>
#include <limits>

#include "core/plugins/node_orders.h"
#include "core/plugins/placement_scores.h"

namespace squeeze {
namespace {

bool MemoryFits(const NodeState& n, const JobSpec& job) {
  return !n.memory_tracked || n.memory_free >= job.memory_mib;
}

// A quick test that needs no view: whether the node has the GPUs at all.
bool MayHaveGpus(const NodeState& n, const JobSpec& job) {
  if (job.gpus <= 0) return true;
  if (job.WholeGpus()) return n.whole_free >= job.gpus;
  for (int l : n.free_milli) {
    if (l >= job.gpu_milli) return true;
  }
  return false;
}

}  // namespace

bool RecentShapes::Add(PodSpec pod) {
  pod.memory_mib = 0;
  if (ring_.size() < kWindow) {
    ring_.push_back(std::move(pod));
  } else {
    ring_[next_] = std::move(pod);
    next_ = (next_ + 1) % kWindow;
  }
  ++seen_;
  return seen_ <= kWindow ? (seen_ & (seen_ - 1)) == 0 : seen_ % kWindow == 0;
}

bool NeedsSeveralNodes(const PlaceRequest& req, const ClusterState& cluster) {
  const JobSpec& job = *req.job;
  if (job.gpus <= 1) return false;
  for (int gi : req.groups) {
    if (job.gpus <= cluster.group(gi).max_gpus_per_node) return false;
  }
  return true;
}

PodSpec PodOf(const JobSpec& job) {
  PodSpec pod;
  pod.cpu_milli = job.cpu_milli;
  pod.memory_mib = job.memory_mib;
  pod.gpus = std::max(job.gpus, 0);
  pod.gpu_milli = job.gpus > 0 ? job.gpu_milli : 0;
  pod.gpu_models = job.gpu_models;
  return pod;
}

NodeView ViewOf(const NodeState& node, const NodeGroup& group) {
  NodeView v;
  v.cpu_free = node.cpu_tracked ? node.cpu_free : 0;
  v.memory_free = node.memory_tracked ? node.memory_free : std::numeric_limits<int64_t>::max();
  v.free_milli = node.free_milli;
  v.gpu_model = group.gpu_model;
  v.hosts_share = node.share_pods > 0;
  v.hosts_kgpu = node.kgpu_pods > 0;
  v.hosts_any_gpu_pod = v.hosts_share || v.hosts_kgpu;
  return v;
}

NodeView CappedView(NodeView view, int usable) {
  for (int& l : view.free_milli) {
    if (l < kMilliPerGpu) continue;
    if (usable > 0) {
      --usable;
    } else {
      l = 0;
    }
  }
  return view;
}

std::vector<int> ScoredNodeOrder::Gpus(const NodeView& node, const PodSpec& pod) const {
  return ChooseGpus(node, pod);
}

int ScoredNodeOrder::RankOf(int node) const {
  return node < static_cast<int>(rank_.size()) ? rank_[node]
                                               : static_cast<int>(rank_.size()) + node;
}

int ScoredNodeOrder::ShapeId(const PodSpec& pod) const {
  auto [it, inserted] = shape_ids_.emplace(
      std::make_tuple(pod.cpu_milli, pod.gpu_milli, pod.gpus, pod.GpuSpec()),
      static_cast<int>(shape_ids_.size()));
  return it->second;
}

std::optional<Placement> ScoredNodeOrder::Place(const PlaceRequest& req,
                                                const ClusterState& cluster) const {
  if (NeedsSeveralNodes(req, cluster)) return ConsolidationOrder().Place(req, cluster);
  const std::vector<Feasible>& feasible = ScoreFeasibleNodes(req, cluster);
  if (feasible.empty()) return std::nullopt;
  const Feasible* best = &feasible.front();
  for (const Feasible& f : feasible) {
    if (f.score > best->score || (f.score == best->score && RankOf(f.node) < RankOf(best->node))) {
      best = &f;
    }
  }
  return PlaceOn(best->node, req, cluster);
}

const std::vector<ScoredNodeOrder::Feasible>& ScoredNodeOrder::ScoreFeasibleNodes(
    const PlaceRequest& req, const ClusterState& cluster) const {
  const JobSpec& job = *req.job;
  const PodSpec pod = PodOf(job);
  PodSpec pod_no_cpu = pod;  // for nodes that do not track CPU
  pod_no_cpu.cpu_milli = 0;
  PodSpec shape = pod;       // memory is checked outside the cache
  shape.memory_mib = 0;
  const int id = ShapeId(pod);
  last_shape_ = id;
  if (static_cast<int>(cache_.size()) <= id) cache_.resize(id + 1);
  std::vector<Cached>& cache = cache_[id];
  if (cache.size() < cluster.nodes().size()) cache.resize(cluster.nodes().size());

  std::vector<Feasible>& feasible = feasible_;
  feasible.clear();
  for (int gi : req.groups) {
    const NodeGroup& group = cluster.group(gi);
    for (int ni : group.nodes) {
      const NodeState& n = cluster.node(ni);
      if (!MayHaveGpus(n, job) || !MemoryFits(n, job)) continue;
      const PodSpec& p = n.cpu_tracked ? shape : pod_no_cpu;
      const int usable = req.Usable(n);
      if (usable < n.whole_free) {  // capped by a reservation: not cached
        const NodeView v = CappedView(ViewOf(n, group), usable);
        if (PodFits(v, p)) feasible.push_back({ni, Score(v, p)});
        continue;
      }
      Cached& c = cache[ni];
      if (c.stamp != n.stamp) {
        const NodeView v = ViewOf(n, group);
        c.stamp = n.stamp;
        c.fits = PodFits(v, p);
        c.score = c.fits ? Score(v, p) : 0;
      }
      if (c.fits) feasible.push_back({ni, c.score});
    }
  }
  if (NormalisesScores() && !feasible.empty()) {
    std::vector<int64_t> raw;
    raw.reserve(feasible.size());
    for (const Feasible& f : feasible) raw.push_back(f.score);
    const std::vector<int> norm = NormaliseMinMax(raw);
    for (size_t i = 0; i < feasible.size(); ++i) feasible[i].score = norm[i];
  }
  return feasible;
}

std::optional<Placement> ScoredNodeOrder::PlaceOn(int node, const PlaceRequest& req,
                                                  const ClusterState& cluster) const {
  const JobSpec& job = *req.job;
  const PodSpec pod = PodOf(job);
  PodSpec pod_no_cpu = pod;
  pod_no_cpu.cpu_milli = 0;
  const NodeState& n = cluster.node(node);
  const NodeView v = CappedView(ViewOf(n, cluster.group(n.group)), req.Usable(n));
  const PodSpec& p = n.cpu_tracked ? pod : pod_no_cpu;
  NodeShare share;
  share.node = node;
  share.gpus = pod.CpuOnly() ? std::vector<int>{} : Gpus(v, p);
  share.milli_per_gpu = pod.CpuOnly() ? 0 : pod.gpu_milli;
  share.cpu_milli = job.cpu_milli;
  share.memory_mib = job.memory_mib;
  if (!pod.CpuOnly() && static_cast<int>(share.gpus.size()) != pod.gpus) return std::nullopt;
  Placement placement;
  placement.shares.push_back(std::move(share));
  return placement;
}

}  // namespace squeeze
