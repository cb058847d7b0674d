// LiveQueue and the backends that run nodes of their own (Slurm clusters): their nodes' states
// as node availability in the scheduler, the runs they lose queued again, and the jobs they run
// that squeeze does not know reported (never touched).
#include <set>

#include "config/job_values.h"
#include "serve/live_queue.h"

namespace squeeze {

void LiveQueue::ApplyBackendReports(Time now) {
  const ClusterState& cs = scheduler_->cluster();
  for (const auto& [pool, exec] : pool_executors_) {
    std::optional<BackendReport> report = exec->Report();
    if (!report) continue;
    const BackendReport* before = reports_.count(pool) ? &reports_.at(pool) : nullptr;
    if (report->reachable != (before ? before->reachable : true)) {
      Log(report->reachable ? "the controller of cluster " + report->cluster + " answers again"
                            : "the controller of cluster " + report->cluster +
                                  " does not answer: " + report->error);
    }
    std::set<std::string> known;
    if (before) known.insert(before->unknown_jobs.begin(), before->unknown_jobs.end());
    for (const std::string& stranger : report->unknown_jobs) {
      if (!known.count(stranger)) {
        Log("cluster " + report->cluster + " runs a job squeeze does not know (left alone): " +
            stranger);
      }
    }
    for (size_t n = 0; n < cs.nodes().size(); ++n) {
      const NodeSpec& spec = cs.spec().nodes[n];
      if (cs.node(static_cast<int>(n)).pool != pool) continue;
      std::string why;
      if (!report->reachable) {
        why = "the controller of Slurm cluster " + report->cluster + " does not answer since " +
              FormatDateTime(report->unreachable_since.value_or(report->at));
      } else if (auto it = report->nodes.find(spec.name); it == report->nodes.end()) {
        why = "Slurm cluster " + report->cluster + " no longer lists it";
      } else if (!it->second.empty()) {
        why = "Slurm says " + it->second;
      }
      const int node = static_cast<int>(n);
      const bool available = why.empty();
      if (available) {
        node_down_.erase(node);
      } else {
        node_down_[node] = why;
      }
      if (scheduler_->NodeReportedDown(node) == !available) continue;
      // A spot pool's node that Slurm takes away while its controller answers is a reclaim: it
      // counts toward the pool's learned time between reclaims. Its runs are lost already;
      // Slurm's reports of them queue them again.
      const bool spot = cs.spec().pools[pool].kind == PoolKind::kSpot;
      Status s;
      if (spot && !available && report->reachable) {
        s = scheduler_->Reclaimed(node, now, 0, /*stop_jobs=*/false);
      } else if (spot && available) {
        s = scheduler_->Returned(node, now);
      } else {
        s = scheduler_->SetNodeAvailable(node, available);
      }
      if (!s.ok()) {
        Log("node " + spec.name + ": " + s.message());
        continue;
      }
      Log(available ? "node " + spec.name + " takes jobs again"
                    : "node " + spec.name + " takes no new jobs: " + why +
                          (spot && report->reachable ? " (counted as a spot reclaim)" : ""));
    }
    reports_[pool] = std::move(*report);
  }
}

void LiveQueue::OnLost(JobId id, LiveJob& job, const ExitStatus& exit, Time now) {
  ++counters_.lost;
  const std::string reason =
      exit.error + "; queued again, " +
      (job.has_checkpoint ? "resumes from its checkpoint" : "restarts from the start") +
      " (not counted as a failure)";
  Log("job " + std::to_string(id) + " attempt " + std::to_string(job.attempts) + ": " + reason);
  RunEnd end{-1, JobState::kPending, reason, false, job.failures, std::nullopt};
  if (Status s = store_.RecordRunEnd(id, end, now); !s.ok()) Log(s.message());
  job.queued_since = now;
  RequeueRun(id, job, now);  // may forget `job`; its history kept
}

std::string LiveQueue::NodeUnavailableWhy(int n) const {
  if (auto r = reclaimed_.find(n); r != reclaimed_.end()) {
    return "reclaimed: its provider takes it back at " + FormatDateTime(r->second.leave_by) +
           " (notice at " + FormatDateTime(r->second.at) + ")";
  }
  auto it = node_down_.find(n);
  return it == node_down_.end() ? "" : it->second;
}

}  // namespace squeeze
