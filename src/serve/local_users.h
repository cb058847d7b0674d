// Who a local user is, by the kernel's word: the API's principal for a caller on the Unix
// socket, whose credentials the server took at accept (SO_PEERCRED). The user is the peer's
// Unix account; its team is that of its tokens (DIR/tokens) when it has any, else its primary
// group's name; root and the members of the admin group (--admin-group) are admins, as is the
// daemon's own user. A daemon that runs every job as its own user (not root) knows only that
// user, and root, this way. Thread-safe.
#ifndef SQUEEZE_SERVE_LOCAL_USERS_H_
#define SQUEEZE_SERVE_LOCAL_USERS_H_

#include <string>

#include "core/status.h"
#include "serve/access.h"
#include "serve/http_message.h"
#include "serve/run_as.h"

namespace squeeze {

class LocalUsers {
 public:
  LocalUsers(const Authenticator& tokens, std::string admin_group, RunAsPolicy run_as,
             unsigned daemon_uid);
  // The principal of the process at the other end of the socket, or why it may not use the
  // API (an error for a 403).
  Result<Principal> PrincipalOf(const PeerCredentials& peer) const;

 private:
  const Authenticator& tokens_;
  const std::string admin_group_;
  const RunAsPolicy run_as_;
  const unsigned daemon_uid_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_LOCAL_USERS_H_
