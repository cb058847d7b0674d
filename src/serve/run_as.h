// Who the jobs of a daemon run as. A daemon started as root runs each job as its owner's Unix
// account (never as root unless the owner is root and --allow-root-jobs was given); any other
// daemon runs every job as its own user and says so. Plain data and pure checks; thread-safe.
#ifndef SQUEEZE_SERVE_RUN_AS_H_
#define SQUEEZE_SERVE_RUN_AS_H_

#include <string>

#include "core/status.h"

namespace squeeze {

struct RunAsPolicy {
  bool owners = false;           // each job as its owner (the daemon is root)
  bool allow_root_jobs = false;  // owners: root's own jobs may run (as root)
  std::string daemon_user;       // the account the daemon runs as

  // The policy of a daemon running as `daemon_user` (uid `daemon_uid`).
  static RunAsPolicy For(unsigned daemon_uid, const std::string& daemon_user,
                         bool allow_root_jobs);
  // The account a job of `owner` runs as, or why it may not run at all (an error for a 403):
  // an owner with no Unix account here, or root without allow_root_jobs.
  Result<std::string> AccountFor(const std::string& owner) const;
  // What the daemon tells at start, in `squeeze nodes` and in the API: "each job runs as its
  // owner" or "every job runs as user 'x' (the daemon's)".
  std::string Describe() const;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_RUN_AS_H_
