// squeeze-supervisor --check (supervisor.h): a job's workdir and command, checked as its owner
// in a process of their own, before the job is accepted; the job's PATH comes as data.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "exec/supervisor.h"
#include "exec/unix_account.h"

namespace squeeze {
namespace {

constexpr char kDefaultPath[] = "/usr/local/bin:/usr/bin:/bin";

int Problem(const std::string& text) {
  std::printf("%s\n", text.c_str());
  return 1;
}

// 0 when `path` is a file this process may execute, else the errno that says why not (ENOENT
// too when a folder on the way may not be searched: there may be nothing there).
int Runnable(const std::string& path, bool searching) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return searching && errno == EACCES ? ENOENT : errno;
  if (S_ISDIR(st.st_mode)) return EISDIR;
  return access(path.c_str(), X_OK) == 0 ? 0 : errno;
}

}  // namespace

int RunCheck(const CheckSpec& c) {
  std::string who;
  if (!c.user.empty()) {
    Result<UnixAccount> account = AccountNamed(c.user);
    if (!account.ok()) return Problem(account.status().message());
    if (Status s = BecomeAccount(*account); !s.ok()) return Problem(s.message());
    who = "user '" + c.user + "'";
  } else {
    Result<UnixAccount> self = CurrentAccount();
    who = self.ok() ? "user '" + self->name + "'" : "uid " + std::to_string(geteuid());
  }
  if (!c.workdir.empty() && chdir(c.workdir.c_str()) != 0) {
    return Problem("workdir '" + c.workdir + "': " + who + " cannot enter it (" +
                   std::strerror(errno) + ")");
  }
  const std::string& argv0 = c.command.at(0);
  if (argv0.find('/') != std::string::npos) {
    if (int err = Runnable(argv0, false); err != 0) {
      return Problem("command '" + argv0 + "': " + who + " cannot run it (" +
                     std::strerror(err) + ")");
    }
    return 0;
  }
  const std::string path = c.path.empty() ? kDefaultPath : c.path;
  std::string denied;
  for (size_t start = 0; start <= path.size();) {
    size_t colon = path.find(':', start);
    if (colon == std::string::npos) colon = path.size();
    const std::string dir = colon > start ? path.substr(start, colon - start) : ".";
    start = colon + 1;
    const std::string candidate = dir + "/" + argv0;
    const int err = Runnable(candidate, true);
    if (err == 0) return 0;
    if (err == EACCES && denied.empty()) denied = candidate;
  }
  if (!denied.empty()) {
    return Problem("command '" + argv0 + "': " + who + " cannot run '" + denied +
                   "' (Permission denied)");
  }
  return Problem("command '" + argv0 + "': not found on the PATH of " + who + " (" + path + ")");
}

}  // namespace squeeze
