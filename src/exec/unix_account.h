// The Unix accounts jobs run as: looked up in the system's user and group databases (getpwnam,
// getgrouplist), and the one-way switch a process makes into one before it runs a job. The
// lookups are thread-safe (the _r calls); BecomeAccount changes the calling process for good.
#ifndef SQUEEZE_EXEC_UNIX_ACCOUNT_H_
#define SQUEEZE_EXEC_UNIX_ACCOUNT_H_

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace squeeze {

struct UnixAccount {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;               // the primary group
  std::string home;
  std::vector<gid_t> groups;   // every group it is in, the primary one included
};

// What a run of another user starts from instead of the daemon's environment (which may hold
// the daemon's own secrets), on every backend: a default PATH, and the daemon's locale and time
// zone. The run's HOME, USER and LOGNAME are its owner's (added by whoever starts it).
std::map<std::string, std::string> OwnerBaseEnvironment();

// The account called `name`, with its groups; an error naming it when there is none.
Result<UnixAccount> AccountNamed(const std::string& name);
// The account of `uid`; an error naming the uid when there is none.
Result<UnixAccount> AccountOfUid(uid_t uid);
// The account this process runs as (its effective uid).
Result<UnixAccount> CurrentAccount();
// The name of group `gid`, or the number when it has none.
std::string GroupName(gid_t gid);
// Whether the account is in the group called `group` (by name); false when there is no such
// group.
bool InGroup(const UnixAccount& account, const std::string& group);

// Gives `path` to `account` with `mode` (a job's log 0600, its checkpoint folder 0700); an
// error names the path and the user.
Status GiveTo(const std::string& path, const UnixAccount& account, mode_t mode);

// Makes the calling process `account` for good: its supplementary groups, gid and uid (real,
// effective and saved), umask 077, and HOME, USER and LOGNAME in its environment. Checks that
// root cannot be regained. Call it in a forked, single-threaded child before exec.
Status BecomeAccount(const UnixAccount& account);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_UNIX_ACCOUNT_H_
