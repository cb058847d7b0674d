// The #SBATCH lines of a Slurm batch script, read as sbatch reads them: from the top of the
// script, after the #! line, up to the first line that is neither blank nor a comment; each
// line's options split as a shell would split them (quotes, backslashes), a " #" ending the
// line's options. Options come in their long names, whatever form they were written in
// (-J NAME, -JNAME, --job-name=NAME, --job-name NAME). Among them, #SQUEEZE lines give
// squeeze's own options that sbatch lacks (--gpu-memory=40GiB): sbatch takes them as comments,
// so the script stays one that sbatch runs.
#ifndef SQUEEZE_CONFIG_SBATCH_DIRECTIVES_H_
#define SQUEEZE_CONFIG_SBATCH_DIRECTIVES_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace squeeze {

struct SbatchDirective {
  int line = 0;              // 1-based line of the script
  std::string option;        // the long name, without "--": "job-name", "gres", "time"
  std::string written;       // as written: "-J", "--job-name"
  std::optional<std::string> value;  // nullopt for a flag (--requeue)
  bool squeeze = false;      // from a #SQUEEZE line: one of SqueezeScriptOptions()
};

// What one sbatch option is: its long name, its one-letter form (0: none), and whether it takes
// a value: always (the next word when not written --name=VALUE or -LVALUE), never (a flag), or
// only when written --name=VALUE (--exclusive, --nice).
enum class SbatchArity { kValue, kFlag, kOptional };
struct SbatchOption {
  std::string_view name;
  char letter = 0;
  SbatchArity arity = SbatchArity::kValue;
};

// Every option sbatch documents that a batch script may give, squeeze's or not (the caller
// decides what it supports). Unknown options are errors here.
const std::vector<SbatchOption>& SbatchOptions();
const SbatchOption* FindSbatchOption(std::string_view name_or_letter);
// squeeze's own options a script gives on #SQUEEZE lines, by their long names only: the
// `squeeze submit` flags that sbatch has no equal for (--gpu-memory, --estimate, ...).
const std::vector<SbatchOption>& SqueezeScriptOptions();

// The directives of `script` (its text), #SBATCH and #SQUEEZE lines in their order, or an error
// naming `source`, the line and the option ("train.sbatch:4: #SBATCH --tme: not an sbatch option
// (did you mean --time?)").
Result<std::vector<SbatchDirective>> ReadSbatchDirectives(std::string_view script,
                                                          std::string_view source);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_SBATCH_DIRECTIVES_H_
