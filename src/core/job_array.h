// Job arrays and dependencies as Slurm users write them: sbatch's --array ("0-99:2%8",
// "1,3,5-7") and --dependency ("afterok:12:13_2,afterany:14", '?' for any one). Parsers of
// outside input: errors name the text and what is wrong. Pure; thread-safe.
#ifndef SQUEEZE_CORE_JOB_ARRAY_H_
#define SQUEEZE_CORE_JOB_ARRAY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"
#include "core/status.h"

namespace squeeze {

inline constexpr int kMaxArrayTaskIndex = 4000000;  // Slurm's largest MaxArraySize - 1
inline constexpr size_t kMaxArrayTasks = 100000;    // tasks in one array

struct ArraySpec {
  std::vector<int> tasks;  // task indices, ascending, each once
  int limit = 0;           // most tasks running at once (%N); 0 = no limit
};
// "0-99", "0-99:2", "1,3,5-7", any of them ending in "%N".
Result<ArraySpec> ParseArraySpec(std::string_view text);
// Ascending indices as ranges: {4,5,6,9} -> "4-6,9".
std::string FormatTaskRanges(const std::vector<int>& tasks);

// A job named in a dependency: a job (or a whole array, by its id), or one task of an array.
struct JobRef {
  JobId id = 0;
  std::optional<int> task;  // 12_4: task 4 of array 12
};
// "12" or "12_4".
Result<JobRef> ParseJobRef(std::string_view text);
std::string FormatJobRef(const JobRef& ref);

struct DependencyText {
  struct Clause {
    DependencyKind kind = DependencyKind::kAfterAny;
    std::vector<JobRef> jobs;  // none for singleton
  };
  std::vector<Clause> clauses;
  bool any = false;  // clauses joined by '?': any one suffices
};
// after, afterany, afterok, afternotok with ":ID" lists, and singleton; joined by ',' (all
// must hold) or '?' (any one), not both.
Result<DependencyText> ParseDependency(std::string_view text);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_JOB_ARRAY_H_
