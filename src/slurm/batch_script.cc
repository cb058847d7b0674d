#include "slurm/batch_script.h"

#include <algorithm>
#include <charconv>

#include "core/output_path.h"

namespace squeeze {

std::string ShellQuote(std::string_view word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string SlurmJobName(JobId id, int attempt) {
  return "squeeze-" + std::to_string(id) + "." + std::to_string(attempt);
}

bool ParseSlurmJobName(std::string_view name, JobId& id, int& attempt) {
  constexpr std::string_view kPrefix = "squeeze-";
  if (name.substr(0, kPrefix.size()) != kPrefix) return false;
  name.remove_prefix(kPrefix.size());
  const size_t dot = name.find('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view a = name.substr(0, dot), b = name.substr(dot + 1);
  auto [p1, e1] = std::from_chars(a.data(), a.data() + a.size(), id);
  auto [p2, e2] = std::from_chars(b.data(), b.data() + b.size(), attempt);
  return !a.empty() && !b.empty() && e1 == std::errc() && e2 == std::errc() &&
         p1 == a.data() + a.size() && p2 == b.data() + b.size() && id > 0 && attempt > 0;
}

int MasterPort(JobId id) { return 20000 + static_cast<int>(id % 40000); }

Result<std::vector<std::string>> SlurmOutputOptions(JobId id, int attempt, const JobRequest& job,
                                                    const std::string& user,
                                                    const std::string& log, std::string& note) {
  note.clear();
  const OutputRun run{id, job.spec.array_id, job.spec.array_task, job.spec.name, user,
                      job.workdir};
  std::string output = log, error;
  if (!job.output_path.empty()) {
    Result<std::string> path = ExpandOutputPath(job.output_path, run);
    if (!path.ok()) return path.status().WithContext("output '" + job.output_path + "'");
    output = *path;
  }
  if (!job.error_path.empty()) {
    Result<std::string> path = ExpandOutputPath(job.error_path, run);
    if (!path.ok()) return path.status().WithContext("error '" + job.error_path + "'");
    error = *path;
  }
  std::vector<std::string> options = {"--output=" + EscapePercent(output)};
  if (!error.empty()) options.push_back("--error=" + EscapePercent(error));
  const bool own = !job.output_path.empty();
  options.push_back(own && attempt == 1 ? "--open-mode=truncate" : "--open-mode=append");
  if (own || !error.empty()) {
    note = "squeeze: job " + std::to_string(id) + " attempt " + std::to_string(attempt) +
           ": stdout goes to " + (own ? output : std::string("this log")) +
           (error.empty() || error == output ? ", stderr with it" : ", stderr to " + error) +
           (attempt > 1 || !own ? " (appended to)" : "") + "\n";
  }
  return options;
}

namespace {

// The run's shape as SQUEEZE_* variables; SQUEEZE_NODE_RANK is 0 here, each srun task sets its
// own. One node: its name and the loopback address (no call to the controller per start).
// torch.distributed's env:// (MASTER_*) and torchrun's defaults (PET_MASTER_*: a plain
// `torchrun --nproc-per-node=N` takes rank 0's address and the job's port), as on a local pool.
constexpr const char* kLauncherEnv =
    "export MASTER_ADDR=$SQUEEZE_MASTER_ADDR MASTER_PORT=$SQUEEZE_MASTER_PORT\n"
    "export PET_MASTER_ADDR=$SQUEEZE_MASTER_ADDR PET_MASTER_PORT=$SQUEEZE_MASTER_PORT\n";

std::string ShapeEnv(JobId id, const BatchShape& shape) {
  std::string s;
  s += "export SQUEEZE_NNODES=" + std::to_string(shape.nodes) + "\n";
  s += "export SQUEEZE_NODE_RANK=0\n";
  s += "export SQUEEZE_GPUS_PER_NODE=" + std::to_string(shape.gpus_per_node) + "\n";
  s += "export SQUEEZE_WORLD_SIZE=" +
       std::to_string(shape.nodes * std::max(1, shape.gpus_per_node)) + "\n";
  s += "export SQUEEZE_MASTER_PORT=" + std::to_string(MasterPort(id)) + "\n";
  if (shape.nodes <= 1) {
    s += "export SQUEEZE_NODELIST=${SLURMD_NODENAME:-$(hostname -s)}\n";
    s += "export SQUEEZE_MASTER_ADDR=127.0.0.1\n";
    return s + kLauncherEnv;
  }
  if (!shape.slurm_conf.empty()) {
    s += "[[ -z ${SLURM_CONF:-} && -r " + ShellQuote(shape.slurm_conf) +
         " ]] && export SLURM_CONF=" + ShellQuote(shape.slurm_conf) + "\n";
  }
  s += "squeeze_nodes=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" 2>/dev/null)\n";
  s += "[[ -n $squeeze_nodes ]] || squeeze_nodes=${SLURMD_NODENAME:-$(hostname -s)}\n";
  s += "squeeze_first=$(head -n1 <<<\"$squeeze_nodes\")\n";
  s += "export SQUEEZE_NODELIST=$(paste -sd, <<<\"$squeeze_nodes\")\n";
  // The first node's address as Slurm knows it (NodeAddr), else its name.
  s += "SQUEEZE_MASTER_ADDR=$(scontrol show node \"$squeeze_first\" 2>/dev/null | "
       "grep -o 'NodeAddr=[^ ]*' | head -n1 | cut -d= -f2)\n";
  s += "export SQUEEZE_MASTER_ADDR=${SQUEEZE_MASTER_ADDR:-$squeeze_first}\n";
  return s + kLauncherEnv;
}

// The command as the script runs it: itself on one node, one srun task per node on several;
// a batch script's (request.tasks) itself, once, whose own srun starts its tasks.
std::string CommandWords(const JobRequest& request, const BatchShape& shape) {
  std::string s;
  if (shape.nodes > 1 && request.tasks == 0) {
    s += "srun --nodes=" + std::to_string(shape.nodes) + " --ntasks=" +
         std::to_string(shape.nodes) +
         " --ntasks-per-node=1 --kill-on-bad-exit=1 --export=ALL bash -c "
         "'export SQUEEZE_NODE_RANK=$SLURM_NODEID; exec \"$@\"' squeeze-task";
  }
  for (const std::string& word : request.command) s += (s.empty() ? "" : " ") + ShellQuote(word);
  return s;
}

}  // namespace

std::string SlurmBatchScript(JobId id, int attempt, const JobRequest& request,
                             const std::string& checkpoint_dir, const std::string& exit_record,
                             const BatchShape& shape) {
  std::string s = "#!/bin/bash\n";
  s += "# squeeze job " + std::to_string(id) + ", attempt " + std::to_string(attempt) +
       " (" + ShellQuote(request.spec.name) + "): written by squeeze serve\n";
  for (const auto& [key, value] : request.env) s += "export " + key + "=" + ShellQuote(value) + "\n";
  s += "export SQUEEZE_JOB_ID=" + std::to_string(id) + "\n";
  s += "export SQUEEZE_ATTEMPT=" + std::to_string(attempt) + "\n";
  s += "export SQUEEZE_CHECKPOINT_DIR=" + ShellQuote(checkpoint_dir) + "\n";
  s += "unset SQUEEZE_RESUME\n";
  s += "mkdir -p \"$SQUEEZE_CHECKPOINT_DIR\"\n";
  s += "[[ -s \"$SQUEEZE_CHECKPOINT_DIR/COMPLETE\" ]] && export SQUEEZE_RESUME=1\n";
  for (const auto& [key, value] : CheckpointStoreEnvironment(id, request.checkpoint_store)) {
    s += "export " + key + "=" + ShellQuote(value) + "\n";
  }
  // Its checkpoints are in the store too: a run on a node that has no copy of the folder
  // resumes from the store's newest complete one.
  if (request.checkpoint_store.named() && shape.resume) s += "export SQUEEZE_RESUME=1\n";
  s += ShapeEnv(id, shape);
  if (!request.run_as.empty()) {
    // Its owner's run: what it makes is its owner's alone, and the steps it starts (srun)
    // take this environment.
    s += "umask 077\n";
    s += "export SLURM_EXPORT_ENV=ALL\n";
  }
  if (!request.workdir.empty()) {
    s += "cd " + ShellQuote(request.workdir) +
         " || { echo \"squeeze: cannot enter workdir " + ShellQuote(request.workdir) +
         "\" >&2; exit 127; }\n";
  }
  if (exit_record.empty()) return s + "exec " + CommandWords(request, shape) + "\n";
  // The command runs as a child, so that its end is written down at once; the signals Slurm
  // sends the batch shell (the checkpoint request, a stop) are passed on to it (srun passes
  // them on to every task). `wait` returns early (above 128) when a signal comes, while the
  // child may still run.
  s += CommandWords(request, shape) + " &\n";
  s += "squeeze_child=$!\n";
  s += "trap 'kill -USR1 $squeeze_child 2>/dev/null' USR1\n";
  s += "trap 'kill -TERM $squeeze_child 2>/dev/null' TERM\n";
  // The record says the script runs and passes signals on: squeeze holds back a checkpoint
  // request until then (a signal to a batch step slurmd has not started yet is lost).
  s += "echo started >" + ShellQuote(exit_record) + "\n";
  s += "while :; do\n";
  s += "  wait $squeeze_child; squeeze_rc=$?\n";
  s += "  [[ $squeeze_rc -gt 128 ]] && kill -0 $squeeze_child 2>/dev/null && continue\n";
  s += "  break\n";
  s += "done\n";
  s += "if [[ $squeeze_rc -gt 128 ]]; then wait $squeeze_child 2>/dev/null; "
       "r=$?; [[ $r -ne 127 ]] && squeeze_rc=$r; fi\n";
  s += "echo \"exit $squeeze_rc\" >" + ShellQuote(exit_record) + "\n";
  return s + "exit $squeeze_rc\n";
}

}  // namespace squeeze
