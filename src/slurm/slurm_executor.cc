#include "slurm/slurm_executor.h"

#include <algorithm>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <cstdio>
#include <random>
#include <filesystem>
#include <set>

#include "exec/unix_account.h"
#include "slurm/batch_script.h"
#include "slurm/slurm_reconcile.h"

namespace squeeze {
namespace {

// DIR/slurm/instance: a random word written when the directory is first used, so that the
// Slurm jobs of an earlier data directory at the same path (Slurm lists ended jobs for
// MinJobAge) are never taken for this one's. Empty when it can be neither read nor written
// (then Start fails on the same directory anyway).
std::string DataDirInstance(const std::string& data_dir) {
  const std::string path = data_dir + "/slurm/instance";
  std::string word = ReadFileIfPresent(path).value_or("");
  while (!word.empty() && (word.back() == '\n' || word.back() == ' ')) word.pop_back();
  if (!word.empty()) return word;
  std::random_device random;
  char text[17];
  std::snprintf(text, sizeof(text), "%08x%08x", random(), random());
  std::error_code ec;
  std::filesystem::create_directories(data_dir + "/slurm", ec);
  if (!WriteFileAtomically(path, std::string(text) + "\n").ok()) return "";
  return text;
}

}  // namespace

SlurmExecutor::SlurmExecutor(SlurmExecutorOptions options) : options_(std::move(options)) {
  SlurmWatchOptions w;
  w.cluster = options_.pool.cluster;
  w.conf = options_.pool.conf;
  w.timeout_ms = options_.watch_timeout_ms;
  w.interval_ms = options_.watch_interval_ms;
  watch_ = std::make_unique<SlurmWatch>(w);
  instance_ = DataDirInstance(options_.data_dir);
}

std::optional<std::string> SlurmExecutor::Away() const {
  auto look = watch_->Latest();
  if (!look || look->reachable) return std::nullopt;
  return look->error;
}

Status SlurmExecutor::Scancel(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto out = Slurm(argv);
  if (!out.ok()) return out.status();
  if (out->exit_code != 0) return Status::Error(CommandLine(argv) + ": " + out->err.substr(0, 300));
  return Status::Ok();
}

Result<CommandOutput> SlurmExecutor::Slurm(const std::vector<std::string>& argv) const {
  // Below the daemon's own priority: a busy node's sbatch and scancel do not slow its API.
  return RunCommand(argv, {{"SLURM_CONF", options_.pool.conf}}, options_.command_timeout_ms,
                    kBackgroundNicer);
}

Result<CommandOutput> SlurmExecutor::SbatchAs(const std::vector<std::string>& argv,
                                              const UnixAccount& owner) const {
  std::map<std::string, std::string> env = OwnerBaseEnvironment();
  env["HOME"] = owner.home;
  env["USER"] = owner.name;
  env["LOGNAME"] = owner.name;
  env["SLURM_CONF"] = options_.pool.conf;
  std::vector<std::string> strings;
  for (const auto& [key, value] : env) strings.push_back(key + "=" + value);
  return RunCommandWithEnvironment(argv, strings, options_.command_timeout_ms, kBackgroundNicer);
}

std::string SlurmExecutor::Comment(JobId id) const {
  return "squeeze job " + std::to_string(id) + " of " + options_.data_dir + " (" + instance_ + ")";
}

std::string SlurmExecutor::ExitRecordPath(JobId id, int attempt) const {
  return options_.data_dir + "/logs/" + std::to_string(id) + "." + std::to_string(attempt) +
         ".exit";
}

std::vector<uid_t> SlurmExecutor::AccountsOf(JobId id) const {
  std::vector<uid_t> uids = {geteuid()};
  struct stat st;
  if (lstat(PathsOf(options_.data_dir, id, 0).checkpoint_dir.c_str(), &st) == 0 &&
      S_ISDIR(st.st_mode)) {
    uids.push_back(st.st_uid);
  }
  if (!options_.pool.user.empty()) {
    if (Result<UnixAccount> account = AccountNamed(options_.pool.user); account.ok()) {
      uids.push_back(account->uid);
    }
  }
  return uids;
}

std::string SlurmExecutor::ReadExitRecord(JobId id, int attempt) const {
  constexpr int64_t kMaxRecord = 4096;
  Result<std::string> text = ReadOwnedSmallFile(ExitRecordPath(id, attempt), AccountsOf(id), kMaxRecord);
  return text.ok() ? *text : "";
}

std::string SlurmExecutor::SubmittedPath(JobId id, int attempt) const {
  return options_.data_dir + "/slurm/" + std::to_string(id) + "." + std::to_string(attempt) +
         ".sbatch";
}

Result<std::vector<SlurmJob>> SlurmExecutor::Squeue() {
  auto out = Slurm({"squeue", "--json"});
  std::lock_guard lock(mu_);
  if (!out.ok() || out->exit_code != 0) {
    unreachable_ = out.ok() ? "squeue --json: exit " + std::to_string(out->exit_code) + ": " +
                                  out->err.substr(0, 300)
                            : out.status().message();
    return Status::Error("cluster " + options_.pool.cluster + ": " + *unreachable_);
  }
  unreachable_.reset();
  return ParseSqueueJson(out->out);
}

namespace {

// The account the daemon runs as, for %u of a run that runs as the daemon.
std::string DaemonUser() {
  Result<UnixAccount> self = CurrentAccount();
  return self.ok() ? self->name : "";
}

// Gives `path` to `owner`: a folder (there already, mode 0700) or a file (created empty, 0600).
Status GiveToOwner(const std::string& path, const UnixAccount& owner, bool folder) {
  if (!folder) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd >= 0) close(fd);
  }
  return GiveTo(path, owner, folder ? 0700 : 0600);
}

}  // namespace

Result<RunInfo> SlurmExecutor::Start(JobId id, int attempt, const JobRequest& request,
                                     const RunPlace& place, bool resume) {
  const std::string what = "job " + std::to_string(id) + " attempt " + std::to_string(attempt) +
                           " on Slurm cluster " + options_.pool.cluster;
  {
    std::lock_guard lock(mu_);
    if (runs_.count(id) || starting_.count(id)) {
      return Status::Error(what + ": the job is already running");
    }
    starting_.insert(id);
  }
  // The script sets SQUEEZE_RESUME itself from the checkpoint marker, or from `resume` where
  // the job's checkpoints are in a store too.
  Result<Run> run = Submit(id, attempt, request, place, resume, what);
  std::lock_guard lock(mu_);
  starting_.erase(id);
  if (!run.ok()) return run.status();
  runs_[id] = *run;
  return run->info;
}

Result<SlurmExecutor::Run> SlurmExecutor::Submit(JobId id, int attempt, const JobRequest& request,
                                                 const RunPlace& place, bool resume,
                                                 const std::string& what) {
  const std::string name = SlurmJobName(id, attempt);
  if (auto away = Away()) return Status::Error(what + ": the controller does not answer (" + *away + ")");
  if (request.command.empty()) return Status::Error(what + ": the job has no command");
  const std::string submitted = SubmittedPath(id, attempt);
  if (std::filesystem::exists(submitted)) {
    return Status::Error(what + " was already submitted (" + submitted + " exists)");
  }
  std::error_code ec;
  std::filesystem::create_directories(options_.data_dir + "/slurm", ec);
  if (Status s = MakeRunDirs(options_.data_dir, id); !s.ok()) return s.WithContext(what);
  const RunPaths paths = PathsOf(options_.data_dir, id, attempt);
  // A root daemon's run is its owner's: submitted with their uid and gid, none of the daemon's
  // environment, and its log, script and checkpoint folder theirs.
  std::optional<UnixAccount> owner;
  JobRequest job = request;
  if (!request.run_as.empty()) {
    Result<UnixAccount> account = AccountNamed(request.run_as);
    if (!account.ok()) return account.status().WithContext(what);
    owner = std::move(*account);
    job.env["HOME"] = owner->home;
    job.env["USER"] = job.env["LOGNAME"] = owner->name;
    job.env.try_emplace("PATH", "/usr/local/bin:/usr/bin:/bin");
    if (Status s = GiveToOwner(paths.checkpoint_dir, *owner, true); !s.ok()) return s.WithContext(what);
    if (Status s = GiveToOwner(paths.log, *owner, false); !s.ok()) return s.WithContext(what);
  }

  Run run;
  run.info = RunInfo{id, attempt, 0, 0, std::nullopt, paths.log, ReadCheckpointMarker(paths.checkpoint_dir, AccountsOf(id)), ""};
  // The batch script is written (atomically) just before sbatch: without it, no sbatch of this
  // attempt can have happened, and Slurm need not be asked (a whole-cluster `squeue --json`
  // per start made dispatch slow as the cluster filled: bench/README.md slurm_bench). With it,
  // a daemon killed between sbatch and the record below may have left a job of this name:
  // take it.
  const std::string script = options_.data_dir + "/slurm/" + std::to_string(id) + "." +
                             std::to_string(attempt) + ".sh";
  if (std::filesystem::exists(script)) {
    auto listed = Squeue();
    if (!listed.ok()) return listed.status().WithContext(what);
    for (const SlurmJob& j : *listed) {
      // Only a live one: an ended job of that name is an earlier data directory's at this
      // path (Slurm keeps ended jobs for MinJobAge), and a restart's Reattach finds this
      // daemon's.
      if (j.name == name && j.comment == Comment(id) && !SlurmStateEnded(j.state)) {
        run.slurm_id = j.id;
      }
    }
  }
  if (run.slurm_id == 0) {
    Result<int64_t> slurm_id = SubmitBatch(id, attempt, job, place, resume, owner, script, what);
    if (!slurm_id.ok()) return slurm_id.status();
    run.slurm_id = *slurm_id;
    run.submitted_ms = SlurmWatch::SteadyMs();
  }
  run.info.backend_id = std::to_string(run.slurm_id);
  for (const RunPlace::Node& n : place.nodes) run.asked_nodes.push_back(n.name);
  if (Status s = WriteFileAtomically(submitted, run.info.backend_id + "\n"); !s.ok()) {
    return s.WithContext(what + " (submitted as Slurm job " + run.info.backend_id + ")");
  }
  return run;
}

namespace {

// sbatch's --ntasks and --cpus-per-task of a batch script's run (JobRequest::tasks): the tasks
// it asked for, at least one per node, each with its share of the job's CPUs; as many on each
// node when they divide evenly (as --ntasks-per-node asked), else as Slurm lays them out.
std::vector<std::string> TaskOptions(const JobRequest& job, int nodes) {
  const int64_t tasks = std::max<int64_t>(job.tasks, nodes);
  std::vector<std::string> argv = {"--ntasks=" + std::to_string(tasks)};
  if (nodes > 1 && tasks % nodes == 0) {
    argv.push_back("--ntasks-per-node=" + std::to_string(tasks / nodes));
  }
  if (job.spec.cpu_milli > 0) {
    const int64_t per_task = std::max<int64_t>(1, (job.spec.cpu_milli / 1000 + tasks - 1) / tasks);
    argv.push_back("--cpus-per-task=" + std::to_string(per_task));
  }
  return argv;
}

// sbatch's options for where the scheduler placed the run: its nodes by name, one task on each
// (a batch script's tasks instead), and the same GPUs on each (the scheduler places a job of a
// Slurm pool in that shape); with no nodes named, Slurm picks one node with the job's GPUs.
Result<std::vector<std::string>> PlaceOptions(const JobRequest& job, const RunPlace& place,
                                              BatchShape& shape) {
  shape.gpus_per_node = job.spec.gpus;
  if (place.nodes.empty()) {
    std::vector<std::string> argv;
    if (job.spec.gpus > 0) argv.push_back("--gres=gpu:" + std::to_string(job.spec.gpus));
    if (job.tasks > 0) {
      const std::vector<std::string> tasks = TaskOptions(job, 1);
      argv.insert(argv.end(), tasks.begin(), tasks.end());
    }
    return argv;
  }
  std::string names;
  for (const RunPlace::Node& n : place.nodes) {
    if (n.gpus.size() != place.nodes.front().gpus.size()) {
      std::string shares;
      for (const RunPlace::Node& m : place.nodes) {
        shares += (shares.empty() ? "" : " + ") + std::to_string(m.gpus.size()) + " on " + m.name;
      }
      return Status::Error("Slurm gives every node of a job the same GPUs; placed as " + shares);
    }
    names += (names.empty() ? "" : ",") + n.name;
  }
  shape.nodes = static_cast<int>(place.nodes.size());
  shape.gpus_per_node = static_cast<int>(place.nodes.front().gpus.size());
  std::vector<std::string> argv = {"--nodes=" + std::to_string(shape.nodes),
                                   "--nodelist=" + names};
  if (job.tasks > 0) {
    const std::vector<std::string> tasks = TaskOptions(job, shape.nodes);
    argv.insert(argv.end(), tasks.begin(), tasks.end());
  } else {
    argv.push_back("--ntasks-per-node=1");
  }
  if (shape.gpus_per_node > 0) argv.push_back("--gres=gpu:" + std::to_string(shape.gpus_per_node));
  return argv;
}

}  // namespace

Result<int64_t> SlurmExecutor::SubmitBatch(JobId id, int attempt, const JobRequest& job,
                                           const RunPlace& place, bool resume,
                                           const std::optional<UnixAccount>& owner,
                                           const std::string& script, const std::string& what) {
  const RunPaths paths = PathsOf(options_.data_dir, id, attempt);
  BatchShape shape;
  shape.slurm_conf = options_.pool.conf;
  shape.resume = resume;
  Result<std::vector<std::string>> where = PlaceOptions(job, place, shape);
  if (!where.ok()) return where.status().WithContext(what);
  const std::string name = SlurmJobName(id, attempt);
  std::error_code ec;
  // The run's exit record, written by the batch script as its command ends
  // (batch_script.h): made here, empty, and given to whom the script runs as.
  const std::string record = ExitRecordPath(id, attempt);
  std::optional<UnixAccount> runs_as = owner;
  if (!runs_as && !options_.pool.user.empty()) {
    if (Result<UnixAccount> account = AccountNamed(options_.pool.user); account.ok()) {
      runs_as = std::move(*account);
    }
  }
  std::filesystem::remove(record, ec);
  Status made = runs_as ? GiveToOwner(record, *runs_as, false) : WriteFileAtomically(record, "");
  if (!made.ok()) return made.WithContext(what);
  const std::string batch = SlurmBatchScript(id, attempt, job, paths.checkpoint_dir, record, shape);
  if (Status s = WriteFileAtomically(script, batch, 0700); !s.ok()) {
    return s.WithContext(what);
  }
  chmod(script.c_str(), 0700);
  if (owner && chown(script.c_str(), owner->uid, owner->gid) != 0) {
    return Status::Error(what + ": cannot give " + script + " to user '" + owner->name + "'");
  }
  std::string note;
  Result<std::vector<std::string>> output =
      SlurmOutputOptions(id, attempt, job,
                         runs_as                       ? runs_as->name
                         : options_.pool.user.empty() ? DaemonUser()
                                                       : options_.pool.user,
                         paths.log, note);
  if (!output.ok()) return output.status().WithContext(what);
  // Where the output goes, in the run's log (Slurm's own file then for stderr alone at most).
  if (!note.empty()) {
    if (runs_as) (void)GiveToOwner(paths.log, *runs_as, false);
    if (const int fd = open(paths.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        fd >= 0) {
      if (write(fd, note.data(), note.size()) < 0) {
      }
      close(fd);
    }
  }
  std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=" + name,
                                   "--comment=" + Comment(id), "--requeue"};
  argv.insert(argv.end(), output->begin(), output->end());
  if (!options_.pool.partition.empty()) argv.push_back("--partition=" + options_.pool.partition);
  if (owner) {
    argv.push_back("--uid=" + std::to_string(owner->uid));
    argv.push_back("--gid=" + std::to_string(owner->gid));
    argv.push_back("--export=ALL");  // sbatch's own environment: the owner's base (SbatchAs)
  } else if (!options_.pool.user.empty()) {
    argv.push_back("--uid=" + options_.pool.user);
  }
  argv.insert(argv.end(), where->begin(), where->end());
  argv.push_back(script);
  auto out = owner ? SbatchAs(argv, *owner) : Slurm(argv);
  if (!out.ok()) return out.status().WithContext(what);
  const std::string text = out->out.substr(0, out->out.find_first_of(";\n"));
  int64_t slurm_id = 0;
  auto [ptr, e] = std::from_chars(text.data(), text.data() + text.size(), slurm_id);
  if (out->exit_code != 0 || e != std::errc() || slurm_id <= 0) {
    return Status::Error(what + ": sbatch failed (exit " + std::to_string(out->exit_code) +
                         "): " + out->err.substr(0, 300));
  }
  return slurm_id;
}

Result<std::vector<RunInfo>> SlurmExecutor::Reattach() {
  auto listed = Squeue();
  if (!listed.ok()) return listed.status().WithContext("taking back the Slurm jobs");
  std::map<JobId, std::pair<int, const SlurmJob*>> latest;
  for (const SlurmJob& j : *listed) {
    JobId id = 0;
    int attempt = 0;
    if (!ParseSlurmJobName(j.name, id, attempt) || j.comment != Comment(id)) continue;
    auto [it, added] = latest.emplace(id, std::make_pair(attempt, &j));
    if (added) continue;
    // The latest attempt; of two jobs of one name (a copy), the live one, else the newer.
    const auto& [best_attempt, best] = it->second;
    const bool live = !SlurmStateEnded(j.state), best_live = !SlurmStateEnded(best->state);
    if (attempt > best_attempt ||
        (attempt == best_attempt && (live > best_live || (live == best_live && j.id > best->id)))) {
      it->second = {attempt, &j};
    }
  }
  std::vector<RunInfo> out;
  for (const auto& [id, entry] : latest) {
    const auto& [attempt, job] = entry;
    const RunPaths paths = PathsOf(options_.data_dir, id, attempt);
    Run run;
    run.slurm_id = job->id;
    run.last_seen = *job;
    run.info = RunInfo{id, attempt, 0, 0, std::nullopt, paths.log, ReadCheckpointMarker(paths.checkpoint_dir, AccountsOf(id)),
                       std::to_string(job->id)};
    // The nodes it runs on (the nodes it was sent to, for a run that runs): what its verdicts
    // need (a run of several nodes, one kept waiting behind others' jobs).
    for (const auto& [node, gpus] : job->node_gpus) run.asked_nodes.push_back(node);
    if (SlurmStateEnded(job->state)) {
      run.info.exit = SlurmExit(*job, {});
    } else {
      std::lock_guard lock(mu_);
      run.launch_reported = true;  // taken back as it runs: no launch to wait for
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
  std::lock_guard lock(mu_);
  auto it = runs_.find(id);
  if (it == runs_.end()) return std::nullopt;
  std::string out = "Slurm job " + std::to_string(it->second.slurm_id) + " on cluster " +
                    options_.pool.cluster;
  if (auto look = watch_->Latest(); look && !look->reachable) {
    return out + ": the controller does not answer since " +
           FormatUtc(look->unreachable_since.value_or(look->at)) + " (" + look->error + ")";
  }
  if (!it->second.lost.empty()) {
    return out + ": " + it->second.lost + "; squeeze queues the job again once Slurm has ended it";
  }
  const auto& seen = it->second.last_seen;
  if (!seen) return out + ": submitted, not seen in squeue yet";
  out += ": " + seen->state;
  if (!seen->reason.empty() && seen->reason != "None") out += " (" + seen->reason + ")";
  if (!seen->nodes.empty() && seen->state == "RUNNING") out += " on " + seen->nodes;
  return out;
}

std::optional<SlurmJob> SlurmExecutor::SlurmView(JobId id) const {
  std::lock_guard lock(mu_);
  auto it = runs_.find(id);
  if (it == runs_.end()) return std::nullopt;
  return it->second.last_seen;
}

}  // namespace squeeze
