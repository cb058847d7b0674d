// A job's reason or event text in its two forms (docs/serve.md "Users, tokens and who jobs run
// as"): what every user sees in `squeeze queue`, `show`, `why` and GET /v1/jobs, and the
// detail its owner and the admins see instead, which may quote what is theirs alone (a path,
// the command, the account, the backend's own message about them). Built where a reason is
// made of such things (a run's end, a start the backend refused), so that none reaches another
// user. Plain data and pure functions; thread-safe.
#ifndef SQUEEZE_SERVE_REASON_TEXT_H_
#define SQUEEZE_SERVE_REASON_TEXT_H_

#include <string>
#include <string_view>

#include "core/status.h"
#include "exec/run_files.h"

namespace squeeze {

struct ReasonText {
  std::string shown;   // every user's
  std::string detail;  // the owner's and admins'; empty: `shown` says all

  // Both forms followed by the same public words ("; retry 1 of 3 at ...").
  ReasonText Then(std::string_view more) const;
};

// How a run ended. A plain exit or signal is public ("exit 3", "killed by signal 9"), as is
// what a backend says of a run it lost or ended (Slurm's states and reasons name no user's
// value). What the supervisor says of a run it could not start names paths, the command and
// the account: every user sees only which step failed, "the output file could not be opened
// (exit 127)"; a text it does not know, "the run could not start (exit 127)".
ReasonText ExitReason(const ExitStatus& exit);

// A start the backend refused (its message may quote the job's script, paths or account):
// "the run could not be started" for everyone, "cannot start: MESSAGE" in detail.
ReasonText StartFailure(const Status& status);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_REASON_TEXT_H_
