#include "slurm/batch_script.h"

#include <charconv>

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

std::string SlurmBatchScript(JobId id, int attempt, const JobRequest& request,
                             const std::string& checkpoint_dir, const std::string& exit_record) {
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
  if (!request.run_as.empty()) {
    // Its owner's run, submitted with --export=NONE: what it makes is its owner's alone, and
    // the steps it starts (srun) take this environment.
    s += "umask 077\n";
    s += "export SLURM_EXPORT_ENV=ALL\n";
  }
  if (!request.workdir.empty()) {
    s += "cd " + ShellQuote(request.workdir) +
         " || { echo \"squeeze: cannot enter workdir " + ShellQuote(request.workdir) +
         "\" >&2; exit 127; }\n";
  }
  if (exit_record.empty()) {
    s += "exec";
    for (const std::string& word : request.command) s += " " + ShellQuote(word);
    return s + "\n";
  }
  // The command runs as a child, so that its end is written down at once; the signals Slurm
  // sends the batch shell (the checkpoint request, a stop) are passed on to it. `wait` returns
  // early (above 128) when a signal comes, while the child may still run.
  for (const std::string& word : request.command) s += ShellQuote(word) + " ";
  s += "&\n";
  s += "squeeze_child=$!\n";
  s += "trap 'kill -USR1 $squeeze_child 2>/dev/null' USR1\n";
  s += "trap 'kill -TERM $squeeze_child 2>/dev/null' TERM\n";
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
