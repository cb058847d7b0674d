#include "serve/run_as.h"

#include "exec/unix_account.h"

namespace squeeze {

RunAsPolicy RunAsPolicy::For(unsigned daemon_uid, const std::string& daemon_user,
                             bool allow_root_jobs) {
  RunAsPolicy p;
  p.owners = daemon_uid == 0;
  p.allow_root_jobs = allow_root_jobs;
  p.daemon_user = daemon_user;
  return p;
}

Result<std::string> RunAsPolicy::AccountFor(const std::string& owner) const {
  if (!owners) return std::string();
  Result<UnixAccount> account = AccountNamed(owner);
  if (!account.ok()) {
    return Status::Error(account.status().message() +
                         ": squeeze runs each job as its owner's Unix account");
  }
  if (account->uid == 0 && !allow_root_jobs) {
    return Status::Error("jobs of '" + owner +
                         "' (uid 0) would run as root: squeeze serve refuses them unless "
                         "started with --allow-root-jobs (on a machine only root uses, a "
                         "container say: `squeeze stop`, then start `squeeze serve` again with "
                         "--allow-root-jobs; on a shared one, submit as your own account)");
  }
  return account->name;
}

std::string RunAsPolicy::Describe() const {
  if (owners) {
    return std::string("each job runs as its owner's Unix account") +
           (allow_root_jobs ? " (root's jobs as root: --allow-root-jobs)" : "; root's are refused");
  }
  return "every job runs as user '" + daemon_user + "' (the daemon's own; start it as root to "
         "run each job as its owner)";
}

}  // namespace squeeze
