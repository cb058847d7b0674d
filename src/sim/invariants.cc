#include "sim/invariants.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace squeeze {

InvariantChecker::InvariantChecker(const ClusterState& cluster) {
  for (const auto& n : cluster.nodes()) used_milli_.emplace_back(n.gpus, 0);
}

Status InvariantChecker::OnStart(const Job& job) {
  for (const auto& share : job.placement.shares) {
    for (int g : share.gpus) {
      int& used = used_milli_.at(share.node).at(g);
      used += share.milli_per_gpu;
      if (used > kMilliPerGpu) {
        return Status::Error("invariant: GPU " + std::to_string(g) + " of node " +
                             std::to_string(share.node) + " given twice (job " +
                             std::to_string(job.spec.id) + " brings it to " +
                             std::to_string(used) + " milli)");
      }
    }
  }
  if (job.spec.array_id != 0 && job.spec.array_limit > 0) {
    const int running = ++array_running_[job.spec.array_id];
    if (running > job.spec.array_limit) {
      return Status::Error("invariant: array " + std::to_string(job.spec.array_id) + " runs " +
                           std::to_string(running) + " tasks at once (job " +
                           std::to_string(job.spec.id) + " started), above its limit %" +
                           std::to_string(job.spec.array_limit));
    }
    most_array_running_ = std::max(most_array_running_, running);
  }
  return Status::Ok();
}

void InvariantChecker::OnStop(const Job& job, Time run_start, Time stop_at, Time now) {
  if (job.spec.array_id != 0 && job.spec.array_limit > 0) --array_running_[job.spec.array_id];
  for (const auto& share : job.placement.shares) {
    for (int g : share.gpus) used_milli_[share.node][g] -= share.milli_per_gpu;
  }
  Ledger& l = ledgers_[job.spec.id];
  l.held_s += ToSeconds(now - run_start);
  const double width = static_cast<double>(job.spec.gpus) * job.spec.gpu_milli / kMilliPerGpu;
  l.held_gpu_s += ToSeconds(now - run_start) * width;
  if (stop_at == kNever) {
    l.overhead += job.run_overhead;
    l.lost_gpu_s += ToSeconds(job.run_overhead) * width;
    const Time elapsed = std::max<Time>(0, now - run_start - job.run_overhead);
    l.final_progress = ProgressAtSpeed(elapsed, job.run_speed_milli);
    l.slow += elapsed - l.final_progress;
    return;
  }
  // A run stopped before its overhead (restart, data copy) was over paid only that part.
  const Time overhead = std::min(job.run_overhead, stop_at - run_start);
  l.overhead += overhead;
  const Time elapsed = std::max<Time>(0, stop_at - run_start - job.run_overhead);
  const Time progress = ProgressAtSpeed(elapsed, job.run_speed_milli);
  l.slow += elapsed - progress;
  const Time lost = progress - (job.saved_at_stop - job.work_done);
  l.lost += lost;
  l.checkpoint += now - stop_at;
  // The lost progress took its share of the run's time (at the run's speed).
  const double lost_s = job.run_speed_milli > 0 ? ToSeconds(lost) * 1000.0 / job.run_speed_milli : 0;
  l.lost_gpu_s += (ToSeconds(overhead + (now - stop_at)) + lost_s) * width;
}

double InvariantChecker::LostGpuSeconds(JobId id) const {
  auto it = ledgers_.find(id);
  return it == ledgers_.end() ? 0 : it->second.lost_gpu_s;
}

Status InvariantChecker::OnFinish(const Job& job, Time duration) {
  const Ledger l = ledgers_[job.spec.id];
  ledgers_.erase(job.spec.id);
  const std::string who = "invariant: job " + std::to_string(job.spec.id);
  // Faster than full speed, a run's progress counts in whole seconds of run time: the last one
  // may pass the work by less than its speed (run_speed_milli / 1000 s).
  const Time slack = job.run_speed_milli > 1000 ? job.run_speed_milli * kSecond / 1000 : 0;
  if (job.work_done < duration || job.work_done - duration > slack) {
    return Status::Error(who + " finished with " + std::to_string(ToSeconds(job.work_done)) +
                         " s of work done, its duration is " +
                         std::to_string(ToSeconds(duration)));
  }
  const double expected = ToSeconds(job.work_done + l.overhead + l.lost + l.checkpoint + l.slow);
  if (std::abs(l.held_s - expected) > 1e-6) {
    return Status::Error(who + " held its GPUs " + std::to_string(l.held_s) +
                         " s, but duration + overhead + lost work + checkpoints + slowed time = " +
                         std::to_string(expected));
  }
  if (std::abs(job.attained_gpu_s - l.held_gpu_s) > 1e-6 * std::max(1.0, l.held_gpu_s)) {
    return Status::Error(who + ": the scheduler counts " + std::to_string(job.attained_gpu_s) +
                         " GPU-s attained, the simulator " + std::to_string(l.held_gpu_s));
  }
  return Status::Ok();
}

}  // namespace squeeze
