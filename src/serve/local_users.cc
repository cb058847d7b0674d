#include "serve/local_users.h"

#include "exec/unix_account.h"

namespace squeeze {

LocalUsers::LocalUsers(const Authenticator& tokens, std::string admin_group, RunAsPolicy run_as,
                       unsigned daemon_uid)
    : tokens_(tokens),
      admin_group_(std::move(admin_group)),
      run_as_(std::move(run_as)),
      daemon_uid_(daemon_uid) {}

Result<Principal> LocalUsers::PrincipalOf(const PeerCredentials& peer) const {
  Result<UnixAccount> account = AccountOfUid(peer.uid);
  if (!account.ok()) return account.status();
  if (!run_as_.owners && peer.uid != daemon_uid_ && peer.uid != 0) {
    return Status::Error("this squeeze serve runs every job as user '" + run_as_.daemon_user +
                         "', so only '" + run_as_.daemon_user + "' may use its socket, not '" +
                         account->name + "' (start it as root to run each job as its owner)");
  }
  Principal who;
  who.user = account->name;
  who.team = tokens_.TeamOf(who.user).value_or(GroupName(account->gid));
  who.admin = peer.uid == 0 || peer.uid == daemon_uid_ ||
              (!admin_group_.empty() && InGroup(*account, admin_group_));
  return who;
}

}  // namespace squeeze
