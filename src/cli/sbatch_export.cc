#include "cli/sbatch_export.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace squeeze {
namespace {

bool Exportable(const std::string& name) {
  if (name.empty() || name.starts_with("SQUEEZE_") || name.starts_with("BASH_FUNC_")) return false;
  if (std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Whether ALL takes `name` from the submitter's environment: not the variables of a Slurm job
// the submitter may be inside (each run gets its own SLURM_*: a stale SLURM_JOB_ID or
// SLURM_NTASKS would mislead the job's srun), nor those bash keeps for itself and refuses to
// have exported over (a batch script on a Slurm pool sets the job's environment with
// `export`). Named in --export, a SLURM_ variable is still given.
bool Inherited(const std::string& name) {
  static const std::set<std::string> kShellOwn = {"BASHOPTS", "BASH_VERSINFO", "EUID", "PPID",
                                                  "SHELLOPTS", "UID", "_"};
  return !name.starts_with("SLURM_") && !kShellOwn.count(name);
}

}  // namespace

Status AddExportedEnvironment(const std::string& exported,
                              const std::map<std::string, std::string>& environ,
                              std::string_view source, std::vector<std::string>& env) {
  std::vector<std::string> items;
  for (size_t start = 0;;) {
    const size_t comma = exported.find(',', start);
    items.push_back(exported.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const std::string& item : items) {
    if (item == "NONE" || item == "NIL") continue;
    if (item == "ALL") {
      for (const auto& [name, value] : environ) {
        if (Exportable(name) && Inherited(name)) env.push_back(name + "=" + value);
      }
      continue;
    }
    const size_t eq = item.find('=');
    const std::string name = item.substr(0, eq);
    if (!Exportable(name)) {
      return Status::Error(std::string(source) + ": --export: '" + name +
                           "' is not a variable a job may be given");
    }
    if (eq != std::string::npos) {
      env.push_back(item);
    } else if (auto it = environ.find(name); it != environ.end()) {
      env.push_back(name + "=" + it->second);
    }
  }
  return Status::Ok();
}

}  // namespace squeeze
