// Who opened the other end of a loopback TCP connection: every local user connects from
// 127.0.0.1, so the address says nothing; the kernel's sock_diag netlink (NETLINK_SOCK_DIAG,
// an exact inet_diag_req_v2 lookup of the 4-tuple) tells the uid of the connecting socket.
// Thread-safe (one netlink socket per call).
#ifndef SQUEEZE_SERVE_SOCKET_OWNER_H_
#define SQUEEZE_SERVE_SOCKET_OWNER_H_

#include <sys/types.h>

#include <optional>

namespace squeeze {

// The uid that owns the peer socket of `fd`, a TCP connection accepted from a loopback address
// (IPv4 or IPv6); nullopt when it is not one or the kernel does not say.
std::optional<uid_t> LoopbackPeerOwner(int fd);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_SOCKET_OWNER_H_
