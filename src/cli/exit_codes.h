// The exit code of a squeeze command that failed, by the kind of its error (core/status.h), the
// same for every subcommand, so that a script can tell the cases apart without reading the
// message (docs/api.md, "Errors"):
//   1  the request or its input is wrong (and any other failure)
//   3  not found: no such job, node or file
//   4  permission: not yours, admins only, no token
//   5  conflict: the job's state does not allow it now (already ended, not held, ...)
//   6  the daemon failed to do it (its disk or store)
//   7  unavailable: the daemon (or what it needs) does not answer
// A command line that cannot be parsed (an unknown flag, a missing value) exits 2, as usage
// errors do (cli/main.cc says it as a sentence).
#ifndef SQUEEZE_CLI_EXIT_CODES_H_
#define SQUEEZE_CLI_EXIT_CODES_H_

#include "core/status.h"

namespace squeeze {

int ExitCodeOf(ErrorKind kind);
inline int ExitCodeOf(const Status& error) { return error.ok() ? 0 : ExitCodeOf(error.kind()); }

}  // namespace squeeze

#endif  // SQUEEZE_CLI_EXIT_CODES_H_
