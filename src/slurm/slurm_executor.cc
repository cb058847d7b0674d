#include "slurm/slurm_executor.h"

#include <sys/stat.h>

#include <charconv>
#include <filesystem>
#include <set>

#include "slurm/batch_script.h"

namespace squeeze {
namespace {

// How a run ended, from Slurm's record. Only COMPLETED (or FAILED with its non-zero code) is
// the job's own exit; anything else Slurm did (a cancel, even of a job that never started, a
// time limit, a node failure) never reads as success.
ExitStatus ExitOf(const SlurmJob& job) {
  ExitStatus e;
  const int code = job.exit_code.value_or(-1);
  if (code > 128) {
    e.signaled = true;
    e.code = code - 128;
  } else {
    e.code = code;
  }
  if (job.state == "COMPLETED" && job.exit_code) return e;
  if (job.state == "FAILED" && !e.Succeeded() && job.exit_code) return e;
  e.error = "Slurm ended the job " + job.state;
  if (!job.reason.empty() && job.reason != "None") e.error += " (" + job.reason + ")";
  if (!job.start_time) e.error += " before it started";
  if (e.Succeeded()) {
    e.signaled = job.state == "CANCELLED";
    e.code = e.signaled ? 15 : -1;
  }
  return e;
}

}  // namespace

SlurmExecutor::SlurmExecutor(SlurmExecutorOptions options) : options_(std::move(options)) {}

Result<CommandOutput> SlurmExecutor::Slurm(const std::vector<std::string>& argv) const {
  return RunCommand(argv, {{"SLURM_CONF", options_.pool.conf}}, options_.command_timeout_ms);
}

std::string SlurmExecutor::SubmittedPath(JobId id, int attempt) const {
  return options_.data_dir + "/slurm/" + std::to_string(id) + "." + std::to_string(attempt) +
         ".sbatch";
}

Result<std::vector<SlurmJob>> SlurmExecutor::Squeue() {
  auto out = Slurm({"squeue", "--json"});
  if (!out.ok() || out->exit_code != 0) {
    unreachable_ = out.ok() ? "squeue --json: exit " + std::to_string(out->exit_code) + ": " +
                                  out->err.substr(0, 300)
                            : out.status().message();
    return Status::Error("cluster " + options_.pool.cluster + ": " + *unreachable_);
  }
  unreachable_.reset();
  return ParseSqueueJson(out->out);
}

std::optional<SlurmJob> SlurmExecutor::Ended(int64_t slurm_id) const {
  auto out = Slurm({"scontrol", "show", "job", std::to_string(slurm_id)});
  if (!out.ok() || out->exit_code != 0) return std::nullopt;
  auto job = ParseScontrolJob(out->out);
  if (!job.ok() || !SlurmStateEnded(job->state)) return std::nullopt;
  return *job;
}

Result<RunInfo> SlurmExecutor::Start(JobId id, int attempt, const JobRequest& request,
                                     const std::vector<int>& gpu_indices, bool resume) {
  const std::string name = SlurmJobName(id, attempt);
  const std::string what = "job " + std::to_string(id) + " attempt " + std::to_string(attempt) +
                           " on Slurm cluster " + options_.pool.cluster;
  if (runs_.count(id)) return Status::Error(what + ": the job is already running");
  if (request.command.empty()) return Status::Error(what + ": the job has no command");
  const std::string submitted = SubmittedPath(id, attempt);
  if (std::filesystem::exists(submitted)) {
    return Status::Error(what + " was already submitted (" + submitted + " exists)");
  }
  std::error_code ec;
  std::filesystem::create_directories(options_.data_dir + "/slurm", ec);
  std::filesystem::create_directories(options_.data_dir + "/logs", ec);
  const RunPaths paths = PathsOf(options_.data_dir, id, attempt);
  std::filesystem::create_directories(paths.checkpoint_dir, ec);
  if (ec) return Status::Error(what + ": cannot create " + paths.checkpoint_dir + ": " + ec.message());

  Run run;
  run.info = RunInfo{id, attempt, 0, 0, std::nullopt, paths.log, ReadCheckpointMarker(paths.checkpoint_dir), ""};
  // A daemon killed between sbatch and the record below left a job of this name: take it.
  auto listed = Squeue();
  if (!listed.ok()) return listed.status().WithContext(what);
  for (const SlurmJob& j : *listed) {
    if (j.name == name) run.slurm_id = j.id;
  }
  if (run.slurm_id == 0) {
    const std::string script = options_.data_dir + "/slurm/" + std::to_string(id) + "." +
                               std::to_string(attempt) + ".sh";
    if (Status s = WriteFileAtomically(script, SlurmBatchScript(id, attempt, request,
                                                                  paths.checkpoint_dir));
        !s.ok()) {
      return s.WithContext(what);
    }
    chmod(script.c_str(), 0700);
    std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=" + name,
                                     "--comment=squeeze job " + std::to_string(id),
                                     "--output=" + paths.log, "--open-mode=append", "--requeue"};
    if (!options_.pool.partition.empty()) argv.push_back("--partition=" + options_.pool.partition);
    if (!options_.pool.user.empty()) argv.push_back("--uid=" + options_.pool.user);
    const int gpus = request.spec.gpus;
    if (gpus > 0) argv.push_back("--gres=gpu:" + std::to_string(gpus));
    argv.push_back(script);
    auto out = Slurm(argv);
    if (!out.ok()) return out.status().WithContext(what);
    const std::string text = out->out.substr(0, out->out.find_first_of(";\n"));
    int64_t slurm_id = 0;
    auto [ptr, e] = std::from_chars(text.data(), text.data() + text.size(), slurm_id);
    if (out->exit_code != 0 || e != std::errc() || slurm_id <= 0) {
      return Status::Error(what + ": sbatch failed (exit " + std::to_string(out->exit_code) +
                           "): " + out->err.substr(0, 300));
    }
    run.slurm_id = slurm_id;
  }
  (void)gpu_indices;  // Slurm picks the GPUs (--gres); SlurmView says which
  (void)resume;       // the script sets SQUEEZE_RESUME itself from the checkpoint marker
  run.info.backend_id = std::to_string(run.slurm_id);
  if (Status s = WriteFileAtomically(submitted, run.info.backend_id + "\n"); !s.ok()) {
    return s.WithContext(what + " (submitted as Slurm job " + run.info.backend_id + ")");
  }
  runs_[id] = run;
  return run.info;
}

Status SlurmExecutor::RequestCheckpoint(JobId id) {
  auto it = runs_.find(id);
  if (it == runs_.end()) return Status::Error("job " + std::to_string(id) + " is not running");
  auto out = Slurm({"scancel", "--signal=USR1", "--batch", std::to_string(it->second.slurm_id)});
  if (!out.ok()) return out.status();
  if (out->exit_code != 0) return Status::Error("scancel --signal=USR1: " + out->err.substr(0, 300));
  return Status::Ok();
}

Status SlurmExecutor::Stop(JobId id, Time now, Time grace) {
  auto it = runs_.find(id);
  if (it == runs_.end()) return Status::Error("job " + std::to_string(id) + " is not running");
  auto out = Slurm({"scancel", std::to_string(it->second.slurm_id)});
  if (!out.ok()) return out.status();
  if (out->exit_code != 0) return Status::Error("scancel: " + out->err.substr(0, 300));
  return Status::Ok();
}

std::vector<ExecEvent> SlurmExecutor::Poll(Time now) {
  std::vector<ExecEvent> events;
  if (runs_.empty()) return events;
  auto listed = Squeue();
  if (!listed.ok()) return events;  // the controller is away: nothing is known to have changed
  std::map<int64_t, const SlurmJob*> by_id;
  for (const SlurmJob& j : *listed) by_id[j.id] = &j;
  for (auto it = runs_.begin(); it != runs_.end();) {
    Run& run = it->second;
    const std::string marker =
        ReadCheckpointMarker(PathsOf(options_.data_dir, it->first, run.info.attempt).checkpoint_dir);
    if (!marker.empty() && marker != run.info.last_checkpoint) {
      run.info.last_checkpoint = marker;
      ExecEvent& e = events.emplace_back();
      e.kind = ExecEvent::Kind::kCheckpoint;
      e.id = it->first;
      e.attempt = run.info.attempt;
      e.checkpoint = marker;
    }
    auto found = by_id.find(run.slurm_id);
    std::optional<SlurmJob> ended;
    if (found != by_id.end()) {
      run.last_seen = *found->second;
      if (SlurmStateEnded(found->second->state)) ended = *found->second;
    } else {
      ended = Ended(run.slurm_id);
      if (!ended) {  // neither squeue nor scontrol knows it: Slurm lost it
        SlurmJob lost;
        lost.state = "LOST";
        ended = lost;
      }
    }
    if (ended) {
      ExecEvent e;
      e.id = it->first;
      e.attempt = run.info.attempt;
      e.exit = ExitOf(*ended);
      if (ended->state == "LOST") {
        e.exit = ExitStatus{false, -1, "Slurm no longer knows job " + run.info.backend_id};
      }
      events.push_back(e);
      it = runs_.erase(it);
      continue;
    }
    ++it;
  }
  return events;
}

Result<std::vector<RunInfo>> SlurmExecutor::Reattach() {
  auto listed = Squeue();
  if (!listed.ok()) return listed.status().WithContext("taking back the Slurm jobs");
  std::map<JobId, std::pair<int, const SlurmJob*>> latest;
  for (const SlurmJob& j : *listed) {
    JobId id = 0;
    int attempt = 0;
    if (!ParseSlurmJobName(j.name, id, attempt)) continue;
    auto [it, added] = latest.emplace(id, std::make_pair(attempt, &j));
    if (!added && attempt > it->second.first) it->second = {attempt, &j};
  }
  std::vector<RunInfo> out;
  for (const auto& [id, entry] : latest) {
    const auto& [attempt, job] = entry;
    const RunPaths paths = PathsOf(options_.data_dir, id, attempt);
    Run run;
    run.slurm_id = job->id;
    run.last_seen = *job;
    run.info = RunInfo{id, attempt, 0, 0, std::nullopt, paths.log, ReadCheckpointMarker(paths.checkpoint_dir),
                       std::to_string(job->id)};
    if (SlurmStateEnded(job->state)) {
      run.info.exit = ExitOf(*job);
    } else {
      runs_[id] = run;
    }
    if (!std::filesystem::exists(SubmittedPath(id, attempt))) {
      (void)WriteFileAtomically(SubmittedPath(id, attempt), run.info.backend_id + "\n");
    }
    out.push_back(run.info);
  }
  return out;
}

std::optional<std::string> SlurmExecutor::BackendStatus(JobId id) const {
  auto it = runs_.find(id);
  if (it == runs_.end()) return std::nullopt;
  std::string out = "Slurm job " + std::to_string(it->second.slurm_id) + " on cluster " +
                    options_.pool.cluster;
  if (unreachable_) return out + ": the controller does not answer (" + *unreachable_ + ")";
  const auto& seen = it->second.last_seen;
  if (!seen) return out + ": submitted, not seen in squeue yet";
  out += ": " + seen->state;
  if (!seen->reason.empty() && seen->reason != "None") out += " (" + seen->reason + ")";
  if (!seen->nodes.empty() && seen->state == "RUNNING") out += " on " + seen->nodes;
  return out;
}

const SlurmJob* SlurmExecutor::SlurmView(JobId id) const {
  auto it = runs_.find(id);
  return it == runs_.end() || !it->second.last_seen ? nullptr : &*it->second.last_seen;
}

}  // namespace squeeze
