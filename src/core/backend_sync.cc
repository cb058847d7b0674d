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

// The capacity of the moved jobs given back, then each new placement taken in turn; nullopt
// when all fit, else the job that did not (everything is put back as it was).
std::optional<JobId> MoveAll(EngineState& s, std::vector<Job*>& jobs,
                             const std::vector<std::pair<JobId, Placement>>& moves) {
  for (Job* job : jobs) ReleaseCapacity(s, *job);
  std::vector<Placement> before;
  for (Job* job : jobs) before.push_back(job->placement);
  size_t taken = 0;
  std::optional<JobId> misfit;
  for (; taken < jobs.size(); ++taken) {
    bool fits = true;
    for (const NodeShare& share : moves[taken].second.shares) fits = fits && s.cluster.Fits(share);
    if (!fits) {
      misfit = jobs[taken]->spec.id;
      break;
    }
    jobs[taken]->placement = moves[taken].second;
    HoldCapacity(s, *jobs[taken]);
  }
  if (!misfit) return std::nullopt;
  for (size_t i = 0; i < taken; ++i) ReleaseCapacity(s, *jobs[i]);
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i]->placement = before[i];
    HoldCapacity(s, *jobs[i]);
  }
  return misfit;
}

}  // namespace

Status Scheduler::Relocate(const std::vector<std::pair<JobId, Placement>>& moves) {
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
  if (jobs.empty()) return Status::Ok();
  // Each node's share of the job's CPU and memory follows its GPUs, as at a start.
  std::vector<std::pair<JobId, Placement>> shared = moves;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const JobSpec& spec = jobs[i]->spec;
    // A job of no GPUs spreads them evenly over its nodes.
    const auto nodes = static_cast<int64_t>(shared[i].second.shares.size());
    const int64_t gpus = spec.gpus > 0 ? spec.gpus : nodes;
    for (NodeShare& share : shared[i].second.shares) {
      const auto mine = spec.gpus > 0 ? static_cast<int64_t>(share.gpus.size()) : int64_t{1};
      share.milli_per_gpu = spec.gpu_milli;
      share.cpu_milli = spec.cpu_milli * mine / gpus;
      share.memory_mib = spec.memory_mib * mine / gpus;
    }
  }
  if (std::optional<JobId> misfit = MoveAll(s, jobs, shared)) {
    return Status::Error("job " + std::to_string(*misfit) +
                         ": its new GPUs are not free");
  }
  return Status::Ok();
}

}  // namespace squeeze
