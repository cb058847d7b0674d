// Who a local user is, by the kernel's word: the API's principal for a request carried from the
// Unix socket (UnixGateway). The user is the peer's Unix account; its team is that of its
// tokens (DIR/tokens) when it has any, else its primary group's name; root and the members of
// the admin group (--admin-group) are admins, as is the daemon's own user. A daemon that runs every job as its own user
// (not root) knows only that user, and root, this way. Thread-safe.
#ifndef SQUEEZE_SERVE_LOCAL_USERS_H_
#define SQUEEZE_SERVE_LOCAL_USERS_H_

#include <optional>
#include <string>

#include "core/status.h"
#include "serve/access.h"
#include "serve/run_as.h"
#include "serve/unix_gateway.h"

namespace squeeze {

class LocalUsers {
 public:
  LocalUsers(const PeerRegistry& peers, const Authenticator& tokens, std::string admin_group,
             RunAsPolicy run_as, unsigned daemon_uid);
  // nullopt when the request did not come through the socket; else the principal, or why the
  // peer may not use the API (an error for a 403).
  std::optional<Result<Principal>> Identify(const std::string& remote_addr,
                                            int remote_port) const;
  Result<Principal> PrincipalOf(const PeerCredentials& peer) const;

 private:
  const PeerRegistry& peers_;
  const Authenticator& tokens_;
  const std::string admin_group_;
  const RunAsPolicy run_as_;
  const unsigned daemon_uid_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_LOCAL_USERS_H_
