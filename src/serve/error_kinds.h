// The one mapping between an error's kind (core/status.h) and HTTP: what status the API answers
// a failed call with, and what kind a client reads back from a status. The CLI's exit codes are
// chosen from the kind (cli/exit_codes.h), so a script can tell "no such job" from "not yours"
// from "the daemon is down" without reading messages. Pure; thread-safe.
#ifndef SQUEEZE_SERVE_ERROR_KINDS_H_
#define SQUEEZE_SERVE_ERROR_KINDS_H_

#include "core/status.h"

namespace squeeze {

// invalid 400, permission 403, not found 404, conflict 409, io and internal 500,
// unavailable 503.
int HttpStatusOf(ErrorKind kind);
// The kind of an error status a server answered: 401 and 403 permission, 404 not found, 409
// conflict, 503 unavailable, 500 and other 5xx io (the server failed, not the request), the
// other 4xx (400, 408, 413, 431, ...) invalid.
ErrorKind ErrorKindOfHttpStatus(int status);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_ERROR_KINDS_H_
