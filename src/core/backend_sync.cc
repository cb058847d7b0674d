// The scheduler told what a backend that runs nodes of its own (a Slurm cluster) actually does:
// GPUs its other users hold, and jobs it runs elsewhere than they were placed.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/engine_state.h"
#include "core/scheduler.h"

namespace squeeze {

Status Scheduler::SetForeignGpus(int node, uint64_t gpus) {
  EngineState& s = *state_;
  if (node < 0 || node >= static_cast<int>(s.cluster.nodes().size())) {
    return Status::Error("node " + std::to_string(node) + " is not in the cluster");
  }
  const int count = std::min(s.cluster.node(node).gpus, 64);
  if (count < 64) gpus &= (uint64_t{1} << count) - 1;
  if (ForeignGpus(node) == gpus) return Status::Ok();
  if (gpus == 0) {
    s.foreign_gpus.erase(node);
  } else {
    s.foreign_gpus[node] = gpus;
  }
  // Held again from scratch under the new mask, as when a closed GPU opens.
  if (auto held = s.closed_hold.find(node); held != s.closed_hold.end()) {
    Placement release = std::move(held->second);
    s.closed_hold.erase(held);
    s.cluster.Release(release);
  }
  HoldClosed(s, node);
  if (s.unavailable.count(node)) HoldUnavailable(s, node);
  return Status::Ok();
}

uint64_t Scheduler::ForeignGpus(int node) const {
  auto it = state_->foreign_gpus.find(node);
  return it == state_->foreign_gpus.end() ? 0 : it->second;
}

namespace {

// `share`'s GPUs on its node taken again: the same ones when free, else as many whole free
// GPUs of that node (lowest indices first); nullopt when the node has too few.
std::optional<NodeShare> SameCountOnNode(const ClusterState& cluster, const NodeShare& share) {
  if (cluster.Fits(share)) return share;
  if (share.milli_per_gpu != kMilliPerGpu) return std::nullopt;
  NodeShare out = share;
  out.gpus.clear();
  const NodeState& n = cluster.node(share.node);
  for (int g = 0; g < n.gpus && out.gpus.size() < share.gpus.size(); ++g) {
    if (n.free_milli[g] == kMilliPerGpu) out.gpus.push_back(g);
  }
  if (out.gpus.size() < share.gpus.size() || !cluster.Fits(out)) return std::nullopt;
  return out;
}

bool Overlaps(const Placement& a, const Placement& b) {
  for (const NodeShare& x : a.shares) {
    for (const NodeShare& y : b.shares) {
      if (x.node != y.node) continue;
      for (int g : x.gpus) {
        if (std::find(y.gpus.begin(), y.gpus.end(), g) != y.gpus.end()) return true;
      }
    }
  }
  return false;
}

// The moved jobs' capacity, and that of the jobs whose GPUs they land on (bystanders), given
// back; the moved jobs take their new placements, then each bystander its old GPUs where free,
// else as many others on the same node. nullopt when all fit (`renumbered`: the bystanders whose
// GPUs changed), else the job that did not (everything is put back as it was).
std::optional<JobId> MoveAll(EngineState& s, const std::vector<Job*>& moved,
                             const std::vector<Placement>& to, std::vector<JobId>& renumbered) {
  std::vector<Job*> bystanders;
  for (size_t i = 0; i < moved.size(); ++i) {
    for (const NodeShare& share : to[i].shares) {
      for (JobId other : s.node_jobs[share.node]) {
        Job& o = s.jobs.at(other);
        const bool listed = std::find(moved.begin(), moved.end(), &o) != moved.end() ||
                            std::find(bystanders.begin(), bystanders.end(), &o) != bystanders.end();
        if (!listed && Overlaps(o.placement, to[i])) bystanders.push_back(&o);
      }
    }
  }
  std::vector<Job*> all = moved;
  all.insert(all.end(), bystanders.begin(), bystanders.end());
  std::vector<Placement> before;
  for (Job* job : all) before.push_back(job->placement);
  for (Job* job : all) ReleaseCapacity(s, *job);
  size_t taken = 0;
  std::optional<JobId> misfit;
  for (; taken < all.size(); ++taken) {
    Job& job = *all[taken];
    Placement next;
    if (taken < moved.size()) {
      next = to[taken];
      for (const NodeShare& share : next.shares) {
        if (!s.cluster.Fits(share)) misfit = job.spec.id;
      }
    } else {
      for (const NodeShare& share : before[taken].shares) {
        std::optional<NodeShare> again = SameCountOnNode(s.cluster, share);
        if (!again) {
          misfit = job.spec.id;
          break;
        }
        next.shares.push_back(std::move(*again));
      }
    }
    if (misfit) break;
    job.placement = std::move(next);
    HoldCapacity(s, job);
  }
  if (!misfit) {
    for (size_t i = moved.size(); i < all.size(); ++i) {
      bool same = true;
      for (size_t k = 0; k < before[i].shares.size(); ++k) {
        same = same && before[i].shares[k].gpus == all[i]->placement.shares[k].gpus;
      }
      if (!same) renumbered.push_back(all[i]->spec.id);
    }
    return std::nullopt;
  }
  for (size_t i = 0; i < taken; ++i) ReleaseCapacity(s, *all[i]);
  for (size_t i = 0; i < all.size(); ++i) {
    all[i]->placement = before[i];
    HoldCapacity(s, *all[i]);
  }
  return misfit;
}

}  // namespace

Result<std::vector<JobId>> Scheduler::Relocate(
    const std::vector<std::pair<JobId, Placement>>& moves) {
  EngineState& s = *state_;
  std::vector<Job*> jobs;
  for (const auto& [id, placement] : moves) {
    auto it = s.jobs.find(id);
    if (it == s.jobs.end() || !it->second.IsActive()) {
      return Status::Error("job " + std::to_string(id) + " is not running");
    }
    if (placement.GpuCount() != it->second.placement.GpuCount() || placement.empty()) {
      return Status::Error("job " + std::to_string(id) + " holds " +
                           std::to_string(it->second.placement.GpuCount()) +
                           " GPUs, not " + std::to_string(placement.GpuCount()));
    }
    for (const NodeShare& share : placement.shares) {
      if (share.node < 0 || share.node >= static_cast<int>(s.cluster.nodes().size())) {
        return Status::Error("job " + std::to_string(id) + ": node " +
                             std::to_string(share.node) + " is not in the cluster");
      }
    }
    jobs.push_back(&it->second);
  }
  std::vector<JobId> renumbered;
  if (jobs.empty()) return renumbered;
  // Each node's share of the job's CPU and memory follows its GPUs, as at a start.
  std::vector<Placement> to;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const JobSpec& spec = jobs[i]->spec;
    Placement p = moves[i].second;
    // A job of no GPUs spreads them evenly over its nodes.
    const auto nodes = static_cast<int64_t>(p.shares.size());
    const int64_t gpus = spec.gpus > 0 ? spec.gpus : nodes;
    for (NodeShare& share : p.shares) {
      const auto mine = spec.gpus > 0 ? static_cast<int64_t>(share.gpus.size()) : int64_t{1};
      share.milli_per_gpu = spec.gpu_milli;
      share.cpu_milli = spec.cpu_milli * mine / gpus;
      share.memory_mib = spec.memory_mib * mine / gpus;
    }
    to.push_back(std::move(p));
  }
  if (std::optional<JobId> misfit = MoveAll(s, jobs, to, renumbered)) {
    return Status::Error("job " + std::to_string(*misfit) + ": its new GPUs are not free");
  }
  return renumbered;
}

}  // namespace squeeze
