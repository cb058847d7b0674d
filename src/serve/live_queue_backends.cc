// LiveQueue and the backends that run nodes of their own (Slurm clusters): their nodes' states
// as node availability in the scheduler, the runs they lose queued again, and the jobs they run
// that squeeze does not know reported (never touched).
#include <algorithm>
#include <optional>
#include <set>

#include "config/job_values.h"
#include "serve/live_queue.h"

namespace squeeze {

void LiveQueue::ApplyBackendReports(Time now) {
  for (const auto& [pool, exec] : pool_executors_) {
    std::optional<BackendReport> report = exec->Report();
    if (!report) continue;
    const BackendReport* before = reports_.count(pool) ? &reports_.at(pool) : nullptr;
    LogReportChanges(before, *report);
    ApplyNodeStates(pool, *report, now);
    if (report->reachable) {
      // Others' GPUs first: a GPU one of squeeze's runs leaves as it is moved to where Slurm
      // runs it is then held at once if another user's job has it.
      HoldForeignGpus(pool, *report);
      TakeBackendPlacements(pool, *report, now);
    }
    reports_[pool] = std::move(*report);
  }
}

void LiveQueue::LogReportChanges(const BackendReport* before, const BackendReport& report) const {
  if (report.reachable != (before ? before->reachable : true)) {
    Log(report.reachable ? "the controller of cluster " + report.cluster + " answers again"
                         : "the controller of cluster " + report.cluster +
                               " does not answer: " + report.error);
  }
  std::set<std::string> known;
  if (before) known.insert(before->unknown_jobs.begin(), before->unknown_jobs.end());
  for (const std::string& stranger : report.unknown_jobs) {
    if (!known.count(stranger)) {
      Log("cluster " + report.cluster + " runs a job squeeze does not know (left alone): " +
          stranger);
    }
  }
  std::set<std::string> holding;
  if (before) holding.insert(before->foreign_jobs.begin(), before->foreign_jobs.end());
  for (const std::string& other : report.foreign_jobs) {
    if (!holding.count(other)) {
      Log("cluster " + report.cluster + ": " + other +
          " holds GPUs squeeze does not schedule; they take no job of squeeze's until it ends");
    }
  }
}

void LiveQueue::ApplyNodeStates(int pool, const BackendReport& report, Time now) {
  const ClusterState& cs = scheduler_->cluster();
  for (size_t n = 0; n < cs.nodes().size(); ++n) {
    const NodeSpec& spec = cs.spec().nodes[n];
    if (cs.node(static_cast<int>(n)).pool != pool) continue;
    std::string why;
    if (!report.reachable) {
      why = "the controller of Slurm cluster " + report.cluster + " does not answer since " +
            FormatDateTime(report.unreachable_since.value_or(report.at));
    } else if (auto it = report.nodes.find(spec.name); it == report.nodes.end()) {
      why = "Slurm cluster " + report.cluster + " no longer lists it";
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
    if (spot && !available && report.reachable) {
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
                        (spot && report.reachable ? " (counted as a spot reclaim)" : ""));
  }
}

namespace {

std::string PlacedText(const std::vector<RunPlace::Node>& nodes) {
  std::string out;
  for (const RunPlace::Node& n : nodes) {
    out += (out.empty() ? "" : " ") + n.name + ":";
    for (size_t i = 0; i < n.gpus.size(); ++i) out += (i ? "," : "") + std::to_string(n.gpus[i]);
  }
  return out;
}

// How where Slurm runs a job differs from where squeeze placed it, for its history: nullopt
// when it does not; a text starting with '=' when only the GPUs on the same nodes differ (kept
// out of the daemon's log).
std::optional<std::string> PlacementDifference(std::vector<RunPlace::Node> placed,
                                               std::vector<RunPlace::Node> reported) {
  for (auto* list : {&placed, &reported}) {
    for (RunPlace::Node& n : *list) std::sort(n.gpus.begin(), n.gpus.end());
    std::sort(list->begin(), list->end(),
              [](const RunPlace::Node& a, const RunPlace::Node& b) { return a.name < b.name; });
  }
  bool same = placed.size() == reported.size();
  bool same_nodes = same;
  for (size_t i = 0; same && i < placed.size(); ++i) {
    same_nodes = same_nodes && placed[i].name == reported[i].name;
    same = same_nodes && placed[i].gpus == reported[i].gpus;
  }
  if (same) return std::nullopt;
  return std::string(same_nodes ? "=Slurm gave it other GPUs: " : "Slurm runs it on ") +
         PlacedText(reported) + ", not where squeeze placed it (" + PlacedText(placed) +
         "); squeeze follows Slurm";
}

}  // namespace

void LiveQueue::TakeBackendPlacements(int pool, const BackendReport& report, Time now) {
  const ClusterSpec& spec = scheduler_->cluster().spec();
  std::vector<std::pair<JobId, Placement>> moves;
  std::vector<std::string> texts;
  for (const auto& [id, nodes] : report.placed) {
    const Job* known = scheduler_->Find(id);
    if (known == nullptr || !known->IsActive() || !jobs_.count(id)) continue;
    Placement there;
    bool ours = true;
    for (const RunPlace::Node& n : nodes) {
      const int node = NodeIndex(n.name);
      ours = ours && node >= 0 && scheduler_->cluster().node(node).pool == pool;
      if (!ours) break;
      NodeShare& share = there.shares.emplace_back();
      share.node = node;
      share.gpus = n.gpus;
    }
    if (!ours) continue;  // a node squeeze does not schedule: left as placed
    std::vector<RunPlace::Node> placed;
    for (const NodeShare& share : known->placement.shares) {
      placed.push_back({spec.nodes[share.node].name, share.gpus});
    }
    std::optional<std::string> differs = PlacementDifference(std::move(placed), nodes);
    if (!differs) continue;
    moves.push_back({id, std::move(there)});
    texts.push_back(std::move(*differs));
  }
  if (moves.empty()) return;
  Result<std::vector<JobId>> renumbered = scheduler_->Relocate(moves);
  if (!renumbered.ok()) {
    Log("cluster " + report.cluster + ": the runs' placement Slurm reports is not taken: " +
        renumbered.status().message());
    return;
  }
  // Starts Slurm has not begun that held those GPUs in squeeze's view: other GPUs of the same
  // node (Slurm picks theirs itself; their own report corrects them again).
  for (JobId id : *renumbered) {
    auto it = jobs_.find(id);
    if (it == jobs_.end()) continue;
    it->second.cuda_gpus = cluster_.CudaIndices(scheduler_->Find(id)->placement);
    Record([id, gpus = it->second.cuda_gpus, now](JobStore& s) {
      return s.RecordRunGpus(id, gpus, now,
                             "its GPUs renumbered on the same nodes: Slurm runs another job on "
                             "those squeeze had in mind");
    });
  }
  for (size_t i = 0; i < moves.size(); ++i) {
    const JobId id = moves[i].first;
    LiveJob& job = jobs_[id];
    job.cuda_gpus = cluster_.CudaIndices(scheduler_->Find(id)->placement);
    const bool quiet = texts[i].front() == '=';
    const std::string text = quiet ? texts[i].substr(1) : texts[i];
    Record([id, gpus = job.cuda_gpus, now, text](JobStore& s) {
      return s.RecordRunGpus(id, gpus, now, text);
    });
    if (!quiet) Log("job " + std::to_string(id) + ": " + text);
  }
}

void LiveQueue::HoldForeignGpus(int pool, const BackendReport& report) {
  const ClusterState& cs = scheduler_->cluster();
  for (size_t n = 0; n < cs.nodes().size(); ++n) {
    const int node = static_cast<int>(n);
    if (cs.node(node).pool != pool) continue;
    uint64_t mask = 0;
    if (auto it = report.foreign_gpus.find(cs.spec().nodes[n].name); it != report.foreign_gpus.end()) {
      for (int g : it->second) {
        if (g >= 0 && g < 64) mask |= uint64_t{1} << g;
      }
    }
    if (Status s = scheduler_->SetForeignGpus(node, mask); !s.ok()) Log(s.message());
  }
}

void LiveQueue::OnLost(JobId id, LiveJob& job, const ExitStatus& exit, Time now) {
  ++counters_.lost;
  const ReasonText reason =
      ExitReason(exit).Then(std::string("; queued again, ") +
                            (job.has_checkpoint ? "resumes from its checkpoint"
                                                : "restarts from the start") +
                            " (not counted as a failure)");
  Log("job " + std::to_string(id) + " attempt " + std::to_string(job.attempts) + ": " +
      (reason.detail.empty() ? reason.shown : reason.detail));
  RunEnd end{-1, JobState::kPending, reason.shown, false, job.failures, std::nullopt,
             reason.detail};
  RecordRunEnd(id, end, now);
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
