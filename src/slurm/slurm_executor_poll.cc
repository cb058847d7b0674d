// SlurmExecutor: following the runs through the watch's looks (Poll), stopping them, and the
// report of the cluster's nodes and of the squeeze-* jobs it does not follow.
#include <set>

#include "slurm/slurm_executor.h"
#include "slurm/slurm_reconcile.h"

namespace squeeze {

Result<int64_t> SlurmExecutor::SlurmIdOf(JobId id) const {
  std::lock_guard lock(mu_);
  auto it = runs_.find(id);
  if (it == runs_.end()) return Status::Error("job " + std::to_string(id) + " is not running");
  return it->second.slurm_id;
}

bool SlurmExecutor::ScriptStarted(JobId id, int attempt) const {
  return !ReadExitRecord(id, attempt).empty();
}

Status SlurmExecutor::RequestCheckpoint(JobId id) {
  Result<int64_t> slurm_id = SlurmIdOf(id);
  if (!slurm_id.ok()) return slurm_id.status();
  if (auto away = Away()) return Status::Error("the controller does not answer (" + *away + ")");
  {
    // Slurm takes a signal for a batch step that slurmd has not started yet and drops it: a
    // request that comes before the script runs waits for it (Poll).
    std::lock_guard lock(mu_);
    auto it = runs_.find(id);
    if (it != runs_.end() && !ScriptStarted(id, it->second.info.attempt)) {
      it->second.checkpoint_due = true;
      return Status::Ok();
    }
  }
  return Scancel({"--signal=USR1", "--batch", std::to_string(*slurm_id)});
}

Status SlurmExecutor::Stop(JobId id, Time now, Time grace) {
  Result<int64_t> slurm_id = SlurmIdOf(id);
  if (!slurm_id.ok()) return slurm_id.status();
  const bool away = Away().has_value();
  {
    std::lock_guard lock(mu_);
    if (auto it = runs_.find(id); it != runs_.end()) {
      it->second.stop_asked = true;
      if (away) it->second.cancel_due = true;  // sent when the controller answers again (Poll)
    }
  }
  if (away) return Status::Ok();
  return Scancel({std::to_string(*slurm_id)});
}

SlurmExecutor::Known SlurmExecutor::Ended(int64_t slurm_id, SlurmJob* ended) const {
  auto out = Slurm({"scontrol", "show", "job", std::to_string(slurm_id)});
  if (!out.ok() || out->timed_out) return Known::kNoAnswer;
  if (out->exit_code != 0) {
    return out->err.find("Invalid job id") != std::string::npos ? Known::kForgotten
                                                                : Known::kNoAnswer;
  }
  auto job = ParseScontrolJob(out->out);
  if (!job.ok()) return Known::kNoAnswer;
  if (!SlurmStateEnded(job->state)) return Known::kLive;
  *ended = *job;
  return Known::kEnded;
}

void SlurmExecutor::CheckpointEvent(JobId id, Run& run, std::vector<ExecEvent>& events) {
  const std::string marker =
      ReadCheckpointMarker(PathsOf(options_.data_dir, id, run.info.attempt).checkpoint_dir,
                           AccountsOf(id));
  if (marker.empty() || marker == run.info.last_checkpoint) return;
  run.info.last_checkpoint = marker;
  ExecEvent& e = events.emplace_back();
  e.kind = ExecEvent::Kind::kCheckpoint;
  e.id = id;
  e.attempt = run.info.attempt;
  e.checkpoint = marker;
}

void SlurmExecutor::CheckpointEvents(std::vector<ExecEvent>& events) {
  for (auto& [id, run] : runs_) CheckpointEvent(id, run, events);
}

std::set<int64_t> SlurmExecutor::FollowedIds() const {
  std::set<int64_t> followed;
  for (const auto& [id, run] : runs_) followed.insert(run.slurm_id);
  for (const auto& [slurm_id, read_ms] : ended_by_record_) followed.insert(slurm_id);
  return followed;
}

std::map<std::string, std::string> SlurmExecutor::ForeignHolders(const SlurmLook& look) const {
  const std::set<int64_t> followed = FollowedIds();
  std::map<std::string, std::string> out;
  for (const SlurmJob& j : look.jobs) {
    if (SlurmStateEnded(j.state) || followed.count(j.id)) continue;
    for (const auto& [node, gpus] : j.node_gpus) {
      if (!gpus.empty()) out.emplace(node, DescribeSlurmJob(j));
    }
  }
  return out;
}

namespace {

// How long a run squeeze placed may wait in Slurm's own queue before it is taken for one that
// waits behind others' jobs (a start on an ending job's GPUs waits a moment; this does not).
constexpr int64_t kBehindStrangersMs = 10000;

}  // namespace

std::optional<ExitStatus> SlurmExecutor::Judge(Run& run, const SlurmLook& look,
                                               const std::map<std::string, std::string>& strangers) {
  const SlurmJob* job = nullptr;
  switch (FateOf(run.slurm_id, look.jobs, &job)) {
    case SlurmFate::kLive:
      run.last_seen = *job;
      if (job->state == "RUNNING" && !job->nodes.empty()) run.ran_on = job->nodes;
      if (job->state == "RUNNING" && run.running_since_ms == 0) {
        run.running_since_ms = SlurmWatch::SteadyMs();
      }
      // Sent to nodes whose GPUs another user's job took meanwhile: Slurm would keep it waiting
      // behind that job. Cancelled, and queued again in squeeze, which now counts those GPUs.
      if (job->state == "PENDING" && run.lost.empty() &&
          SlurmWatch::SteadyMs() - run.submitted_ms > kBehindStrangersMs) {
        for (const std::string& node : run.asked_nodes) {
          auto holder = strangers.find(node);
          if (holder == strangers.end()) continue;
          run.lost = "Slurm kept it waiting (" + job->reason + ") behind a job squeeze does not run, " +
                     holder->second + "; squeeze cancelled Slurm job " +
                     std::to_string(run.slurm_id) + " and counts those GPUs as taken";
          (void)Scancel({std::to_string(run.slurm_id)});
          break;
        }
      }
      return std::nullopt;
    case SlurmFate::kRequeued:
      // Slurm would run it again by itself; squeeze keeps its own queue: its copy goes first,
      // and the job is queued again only once Slurm says it has ended, so nothing runs twice.
      run.last_seen = *job;
      if (run.lost.empty()) {
        run.lost = LostReason(*job, run.ran_on, look.nodes) + "; Slurm requeued job " +
                   std::to_string(run.slurm_id) + " and squeeze cancelled that copy";
      }
      (void)Scancel({std::to_string(run.slurm_id)});
      return std::nullopt;
    case SlurmFate::kEnded:
      run.last_seen = *job;
      if (!run.lost.empty()) return SlurmLost(run.lost);
      if (SlurmLostIt(*job)) {
        return SlurmLost(LostReason(*job, run.ran_on.empty() ? job->nodes : run.ran_on, look.nodes));
      }
      return SlurmExit(*job, look.nodes);
    case SlurmFate::kMissing:
      break;
  }
  if (look.began_ms < run.submitted_ms) return std::nullopt;  // looked before it was submitted
  SlurmJob ended;
  switch (Ended(run.slurm_id, &ended)) {
    case Known::kEnded:
      if (!run.lost.empty()) return SlurmLost(run.lost);
      return SlurmExit(ended, look.nodes);
    case Known::kForgotten:
      return SlurmLost("Slurm no longer knows job " + std::to_string(run.slurm_id) +
                       (run.ran_on.empty() ? "" : " (it ran on " + run.ran_on + ")"));
    case Known::kLive:
    case Known::kNoAnswer:
      break;
  }
  return std::nullopt;
}

std::optional<ExitStatus> SlurmExecutor::ExitRecorded(JobId id, Run& run,
                                                      std::vector<ExecEvent>& events) const {
  const std::string text = ReadExitRecord(id, run.info.attempt);
  // Launched: its script wrote the record's first line, or Slurm has run it for the grace.
  if (!text.empty() || (run.running_since_ms != 0 && SlurmWatch::SteadyMs() -
                        run.running_since_ms >= options_.launch_grace_ms)) {
    ReportLaunch(id, run, events);
  }
  if (text.empty()) return std::nullopt;
  return ParseExitStatus(text);
}

void SlurmExecutor::ReportLaunch(JobId id, Run& run, std::vector<ExecEvent>& events) {
  if (run.launch_reported) return;
  run.launch_reported = true;
  ExecEvent& e = events.emplace_back();
  e.kind = ExecEvent::Kind::kStarted;
  e.id = id;
  e.attempt = run.info.attempt;
}

// A run whose record says it ended: Slurm should end it within moments (its epilog). One that
// Slurm still runs long after (a record written by hand, a command that left children, ranks
// on a node that went down) is cancelled, and again while Slurm keeps it, so that its GPUs
// come free in Slurm as they are in squeeze. It stays squeeze's own until Slurm lets it go.
void SlurmExecutor::FollowEndedByRecord(const SlurmLook& look) {
  constexpr int64_t kGraceMs = 30000;
  const int64_t now_ms = SlurmWatch::SteadyMs();
  for (auto it = ended_by_record_.begin(); it != ended_by_record_.end();) {
    const SlurmJob* job = nullptr;
    const SlurmFate fate = FateOf(it->first, look.jobs, &job);
    if (fate == SlurmFate::kEnded || (fate == SlurmFate::kMissing && look.began_ms > it->second)) {
      it = ended_by_record_.erase(it);
      continue;
    }
    if (now_ms - it->second > kGraceMs && Scancel({std::to_string(it->first)}).ok()) {
      it->second = now_ms;
    }
    ++it;
  }
}

namespace {

// How long a failed record of a run of several nodes waits for Slurm to say whether one of its
// nodes failed: beyond the test clusters' SlurmdTimeout (10 s) and a look or two.
constexpr int64_t kNodeVerdictMs = 30000;

}  // namespace

std::optional<ExitStatus> SlurmExecutor::SeveralNodesVerdict(Run& run,
                                                             const ExitStatus& recorded) const {
  const int64_t now_ms = SlurmWatch::SteadyMs();
  if (run.failed_record_ms == 0) run.failed_record_ms = now_ms;
  if (auto look = watch_->Latest(); look && look->reachable) {
    for (const std::string& name : run.asked_nodes) {
      for (const SlurmNode& n : look->nodes) {
        if (n.name != name) continue;
        if (std::string trouble = NodeTrouble(n); !trouble.empty()) {
          return SlurmLost("node " + name + " failed (" + trouble + ") under its run of " +
                           std::to_string(run.asked_nodes.size()) +
                           " nodes, and the other nodes' ranks were ended (" +
                           (recorded.signaled ? "signal " : "exit ") +
                           std::to_string(recorded.code) + ")");
        }
      }
    }
  }
  if (now_ms - run.failed_record_ms < kNodeVerdictMs) return std::nullopt;
  return recorded;
}

std::vector<ExecEvent> SlurmExecutor::Poll(Time now) {
  std::lock_guard lock(mu_);
  std::vector<ExecEvent> events;
  CheckpointEvents(events);
  for (auto it = runs_.begin(); it != runs_.end();) {
    std::optional<ExitStatus> exit = ExitRecorded(it->first, it->second, events);
    // A run squeeze stopped ends as it was asked: no node's verdict is awaited.
    if (exit && !exit->Succeeded() && it->second.asked_nodes.size() > 1 &&
        !it->second.stop_asked) {
      exit = SeveralNodesVerdict(it->second, *exit);
    }
    if (!exit) {
      ++it;
      continue;
    }
    ended_by_record_[it->second.slurm_id] = SlurmWatch::SteadyMs();
    ExecEvent& e = events.emplace_back();
    e.id = it->first;
    e.attempt = it->second.info.attempt;
    e.exit = *exit;
    it = runs_.erase(it);
  }
  if (runs_.empty() && ended_by_record_.empty()) return events;
  auto look = watch_->Look();
  if (!look->reachable) {
    unreachable_ = look->error;  // nothing is known to have changed; runs keep on slurmd
    return events;
  }
  unreachable_.reset();
  for (auto& [id, run] : runs_) {
    if (run.cancel_due && Scancel({std::to_string(run.slurm_id)}).ok()) run.cancel_due = false;
    if (run.checkpoint_due && !run.cancel_due && ScriptStarted(id, run.info.attempt) &&
        Scancel({"--signal=USR1", "--batch", std::to_string(run.slurm_id)}).ok()) {
      run.checkpoint_due = false;
    }
  }
  if (look->seq == judged_seq_) return events;
  judged_seq_ = look->seq;
  FollowEndedByRecord(*look);
  const std::map<std::string, std::string> strangers = ForeignHolders(*look);
  for (auto it = runs_.begin(); it != runs_.end();) {
    if (it->second.failed_record_ms != 0) {  // its verdict waits on the nodes (above)
      ++it;
      continue;
    }
    std::optional<ExitStatus> exit = Judge(it->second, *look, strangers);
    if (!exit) {
      ++it;
      continue;
    }
    // A checkpoint written after this poll's first read of the marker and before the run
    // ended is reported before the exit, or it would be lost with the run.
    CheckpointEvent(it->first, it->second, events);
    ExecEvent& e = events.emplace_back();
    e.id = it->first;
    e.attempt = it->second.info.attempt;
    e.exit = *exit;
    it = runs_.erase(it);
  }
  return events;
}

std::optional<BackendReport> SlurmExecutor::Report() const {
  auto look = watch_->Latest();
  if (!look) return std::nullopt;
  BackendReport r;
  r.cluster = options_.pool.cluster;
  r.reachable = look->reachable;
  r.error = look->error;
  r.unreachable_since = look->unreachable_since;
  r.at = look->at;
  if (!look->reachable) return r;
  for (const SlurmNode& n : look->nodes) r.nodes[n.name] = NodeTrouble(n);
  std::set<int64_t> followed;
  std::map<int64_t, JobId> run_of;  // Slurm job -> the squeeze job whose run it is
  {
    std::lock_guard lock(mu_);
    followed = FollowedIds();
    for (const auto& [id, run] : runs_) run_of[run.slurm_id] = id;
  }
  for (const SlurmJob& j : UnknownSqueezeJobs(look->jobs, followed)) {
    r.unknown_jobs.push_back(DescribeSlurmJob(j));
  }
  for (const SlurmJob& j : look->jobs) {
    if (SlurmStateEnded(j.state) || j.state == "PENDING" || j.node_gpus.empty()) continue;
    if (auto run = run_of.find(j.id); run != run_of.end()) {
      auto& nodes = r.placed[run->second];
      for (const auto& [node, gpus] : j.node_gpus) nodes.push_back({node, gpus});
    } else if (!followed.count(j.id)) {
      bool holds = false;
      for (const auto& [node, gpus] : j.node_gpus) {
        auto& held = r.foreign_gpus[node];
        held.insert(held.end(), gpus.begin(), gpus.end());
        holds = holds || !gpus.empty();
      }
      if (holds) r.foreign_jobs.push_back(DescribeSlurmJob(j));
    }
  }
  return r;
}

}  // namespace squeeze
