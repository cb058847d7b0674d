// sbatch's --export, for every form of `squeeze submit`: which of the submitter's environment
// a job takes. Pure; thread-safe.
#ifndef SQUEEZE_CLI_SBATCH_EXPORT_H_
#define SQUEEZE_CLI_SBATCH_EXPORT_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace squeeze {

// Appends to `env` ("NAME=VALUE" each) what `exported` gives: ALL (sbatch's default), NONE,
// or names (NAME, taken from `environ`, or NAME=VALUE) after an optional ALL. ALL leaves out
// squeeze's own variables, shell functions, names a job may not hold, a Slurm job's SLURM_*
// and bash's own; a name given that a job may not hold is an error naming it (`source` says
// where it was given).
Status AddExportedEnvironment(const std::string& exported,
                              const std::map<std::string, std::string>& environ,
                              std::string_view source, std::vector<std::string>& env);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_SBATCH_EXPORT_H_
