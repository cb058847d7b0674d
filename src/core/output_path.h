// Where a run's stdout and stderr go when the job names a file (sbatch -o/-e, the job file's
// output and error): the pattern as written, checked at submission and filled in for each run
// (%j job id, %A array id, %a task index, %x name, %u user, %% a percent; a number after the
// % pads %j, %A and %a with zeros, as sbatch does). Pure functions; thread-safe.
#ifndef SQUEEZE_EXEC_OUTPUT_PATH_H_
#define SQUEEZE_EXEC_OUTPUT_PATH_H_

#include <string>
#include <string_view>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

// Slurm's %a of a job that is no array task (NO_VAL - 1, as sbatch writes it).
inline constexpr std::string_view kNoArrayTask = "4294967294";

// What a pattern is filled in with for one run.
struct OutputRun {
  JobId id = 0;
  JobId array_id = 0;  // 0: not an array task (%A is then the job id)
  int array_task = 0;
  std::string name;
  std::string user;     // the account the run executes as
  std::string workdir;  // a relative path is taken from here; empty: it stays relative
};

// Whether `pattern` may be a job's output or error path: not empty, no NUL, no '~' to expand,
// not a directory (a trailing '/', "." or ".."), only the % letters above. The error says
// what is wrong without naming the field.
Status CheckOutputPattern(std::string_view pattern);

// The path `pattern` names for `run`: its % letters filled in and, when relative, joined to
// the workdir. An error for a pattern CheckOutputPattern refuses.
Result<std::string> ExpandOutputPath(std::string_view pattern, const OutputRun& run);

// `path` with every '%' doubled, so that sbatch --output takes it as it is.
std::string EscapePercent(std::string_view path);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_OUTPUT_PATH_H_
