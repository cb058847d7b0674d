// What sbatch's options make of a squeeze job: the #SBATCH lines of a batch script and the same
// options given to `squeeze submit` (-J, -t, --gres, ...), turned into submit's flags
// (docs/job-file.md has the table). An option squeeze has no equal for is an error naming it
// and its line, or, when the caller allows it (--ignore-unsupported), a warning. Pure apart
// from the environment given for --export; thread-safe.
#ifndef SQUEEZE_CLI_SBATCH_OPTIONS_H_
#define SQUEEZE_CLI_SBATCH_OPTIONS_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cli/submit_request.h"
#include "config/sbatch_directives.h"
#include "core/status.h"

namespace squeeze {

struct SbatchConversion {
  SubmitFlags flags;                  // the fields the options set (command and workdir aside)
  // The tasks they ask for: --ntasks, else --nodes x --ntasks-per-node (1 each by default);
  // a batch script's or --wrap's job field `tasks`.
  int64_t tasks = 1;
  std::vector<std::string> warnings;  // options left out (with ignore_unsupported)
};

// Converts `options` in their order (a later one wins, as sbatch's command line wins over the
// script's lines). `source` names where they come from in messages ("train.sbatch"; a
// directive with line 0 came from the command line). `environ`: the submitter's environment,
// for --export (ALL, the default, copies it but for SQUEEZE_* and names a job may not hold).
// `now`: the submission time, for --begin (whose clock times are the submitter's local time).
Result<SbatchConversion> ConvertSbatchOptions(const std::vector<SbatchDirective>& options,
                                              std::string_view source, bool ignore_unsupported,
                                              const std::map<std::string, std::string>& environ,
                                              Time now = 0);

// sbatch's --begin as the Time from `now` until it (0 or less: at once): now,
// now+N[seconds|minutes|hours|days|weeks], HH:MM[:SS] (today, else tomorrow),
// YYYY-MM-DD[THH:MM[:SS]] in the local time zone, midnight, noon, teatime (16:00), today,
// tomorrow. Clock times are whole seconds of the local time zone (`now` is read in whole
// seconds for them).
Result<Time> SecondsUntilBegin(std::string_view text, Time now);

// The urgency a --qos or --priority word stands for ("scavenger" -> "low"); empty if none.
std::string_view UrgencyOfQos(std::string_view qos);

// Whether `text` is a batch script rather than a YAML job file: its first line starts with
// "#!", or a "#SBATCH" or "#SQUEEZE" line comes before anything else.
bool IsBatchScript(std::string_view text);

// The command that runs the script at `path` (absolute) whose text is `text`, with `args`:
// a shell script (#! of sh, bash, zsh, ksh or dash; none means bash) runs from the text read
// now, as sbatch keeps a copy: {shell, -c, text, path, args...}; any other interpreter runs
// the file as it is at the start: {path, args...}, with a warning in `warnings`.
std::vector<std::string> BatchScriptCommand(const std::string& path, const std::string& text,
                                            const std::vector<std::string>& args,
                                            std::vector<std::string>& warnings);

}  // namespace squeeze

#endif  // SQUEEZE_CLI_SBATCH_OPTIONS_H_
