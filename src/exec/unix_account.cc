#include "exec/unix_account.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace squeeze {
namespace {

constexpr size_t kBuffer = 16384;

Result<UnixAccount> FromPasswd(const passwd& pw) {
  UnixAccount a;
  a.name = pw.pw_name;
  a.uid = pw.pw_uid;
  a.gid = pw.pw_gid;
  a.home = pw.pw_dir ? pw.pw_dir : "/";
  int n = 64;
  std::vector<gid_t> groups(static_cast<size_t>(n));
  while (getgrouplist(pw.pw_name, pw.pw_gid, groups.data(), &n) < 0) {
    if (n > 65536) return Status::Error("user '" + a.name + "' is in too many groups");
    groups.resize(static_cast<size_t>(n));
  }
  groups.resize(static_cast<size_t>(n));
  a.groups = std::move(groups);
  return a;
}

}  // namespace

Result<UnixAccount> AccountNamed(const std::string& name) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(kBuffer);
  const int err = getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found);
  if (err != 0) {
    return Status::Error("cannot look up user '" + name + "': " + std::strerror(err));
  }
  if (found == nullptr) return Status::Error("no Unix account '" + name + "' on this machine");
  return FromPasswd(pw);
}

Result<UnixAccount> AccountOfUid(uid_t uid) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(kBuffer);
  const int err = getpwuid_r(uid, &pw, buf.data(), buf.size(), &found);
  if (err != 0) {
    return Status::Error("cannot look up uid " + std::to_string(uid) + ": " + std::strerror(err));
  }
  if (found == nullptr) {
    return Status::Error("uid " + std::to_string(uid) + " has no account on this machine");
  }
  return FromPasswd(pw);
}

Result<UnixAccount> CurrentAccount() { return AccountOfUid(geteuid()); }

std::string GroupName(gid_t gid) {
  group gr{};
  group* found = nullptr;
  std::vector<char> buf(kBuffer);
  if (getgrgid_r(gid, &gr, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return std::to_string(gid);
  }
  return gr.gr_name;
}

bool InGroup(const UnixAccount& account, const std::string& name) {
  group gr{};
  group* found = nullptr;
  std::vector<char> buf(kBuffer);
  if (getgrnam_r(name.c_str(), &gr, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return false;
  }
  return std::find(account.groups.begin(), account.groups.end(), gr.gr_gid) !=
         account.groups.end();
}

Status GiveTo(const std::string& path, const UnixAccount& a, mode_t mode) {
  if (chown(path.c_str(), a.uid, a.gid) != 0 || chmod(path.c_str(), mode) != 0) {
    return Status::Error("cannot give " + path + " to user '" + a.name + "': " +
                         std::strerror(errno));
  }
  return Status::Ok();
}

Status BecomeAccount(const UnixAccount& a) {
  const std::string who = "user '" + a.name + "' (uid " + std::to_string(a.uid) + ")";
  if (setgroups(a.groups.size(), a.groups.data()) != 0 && geteuid() == 0) {
    return Status::Error("cannot take the groups of " + who + ": " + std::strerror(errno));
  }
  if (setresgid(a.gid, a.gid, a.gid) != 0) {
    return Status::Error("cannot take the group of " + who + ": " + std::strerror(errno));
  }
  if (setresuid(a.uid, a.uid, a.uid) != 0) {
    return Status::Error("cannot become " + who + ": " + std::strerror(errno));
  }
  uid_t r = 0, e = 0, s = 0;
  if (getresuid(&r, &e, &s) != 0 || r != a.uid || e != a.uid || s != a.uid ||
      (a.uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))) {
    return Status::Error("became " + who + " but could regain root: refusing to run");
  }
  umask(077);
  setenv("HOME", a.home.c_str(), 1);
  setenv("USER", a.name.c_str(), 1);
  setenv("LOGNAME", a.name.c_str(), 1);
  return Status::Ok();
}

std::map<std::string, std::string> OwnerBaseEnvironment() {
  std::map<std::string, std::string> env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}};
  for (const char* name : {"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ"}) {
    if (const char* v = std::getenv(name)) env[name] = v;
  }
  return env;
}

}  // namespace squeeze
