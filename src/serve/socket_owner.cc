#include "serve/socket_owner.h"

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace squeeze {
namespace {

// The connecting socket is the one whose source is our peer and whose destination is us.
bool FillId(const sockaddr_storage& peer, const sockaddr_storage& local, inet_diag_sockid& id) {
  if (peer.ss_family == AF_INET && local.ss_family == AF_INET) {
    const auto& p = reinterpret_cast<const sockaddr_in&>(peer);
    const auto& l = reinterpret_cast<const sockaddr_in&>(local);
    id.idiag_sport = p.sin_port;
    id.idiag_dport = l.sin_port;
    std::memcpy(id.idiag_src, &p.sin_addr, sizeof(p.sin_addr));
    std::memcpy(id.idiag_dst, &l.sin_addr, sizeof(l.sin_addr));
    return true;
  }
  if (peer.ss_family == AF_INET6 && local.ss_family == AF_INET6) {
    const auto& p = reinterpret_cast<const sockaddr_in6&>(peer);
    const auto& l = reinterpret_cast<const sockaddr_in6&>(local);
    id.idiag_sport = p.sin6_port;
    id.idiag_dport = l.sin6_port;
    std::memcpy(id.idiag_src, &p.sin6_addr, sizeof(p.sin6_addr));
    std::memcpy(id.idiag_dst, &l.sin6_addr, sizeof(l.sin6_addr));
    return true;
  }
  return false;
}

bool IsLoopbackAddress(const sockaddr_storage& a) {
  if (a.ss_family == AF_INET) {
    return (ntohl(reinterpret_cast<const sockaddr_in&>(a).sin_addr.s_addr) >> 24) == 127;
  }
  if (a.ss_family == AF_INET6) {
    const in6_addr& v6 = reinterpret_cast<const sockaddr_in6&>(a).sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

// Sends the exact lookup on `nl` and reads the one answer: the uid, or nullopt.
std::optional<uid_t> Ask(int nl, const sockaddr_storage& peer, const sockaddr_storage& local) {
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } message{};
  message.header.nlmsg_len = sizeof(message);
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST;
  message.request.sdiag_family = static_cast<__u8>(peer.ss_family);
  message.request.sdiag_protocol = IPPROTO_TCP;
  message.request.idiag_states = ~0u;
  message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  if (!FillId(peer, local, message.request.id)) return std::nullopt;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (sendto(nl, &message, sizeof(message), 0, reinterpret_cast<sockaddr*>(&kernel),
             sizeof(kernel)) != static_cast<ssize_t>(sizeof(message))) {
    return std::nullopt;
  }
  alignas(nlmsghdr) char buf[8192];
  const ssize_t got = recv(nl, buf, sizeof(buf), 0);
  if (got <= 0) return std::nullopt;
  int n = static_cast<int>(got);
  for (auto* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
    if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
        h->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) {
      return std::nullopt;  // NLMSG_ERROR: no such socket (it closed meanwhile), or refused
    }
    const auto* msg = static_cast<const inet_diag_msg*>(NLMSG_DATA(h));
    return static_cast<uid_t>(msg->idiag_uid);
  }
  return std::nullopt;
}

}  // namespace

std::optional<uid_t> LoopbackPeerOwner(int fd) {
  sockaddr_storage peer{};
  sockaddr_storage local{};
  socklen_t peer_len = sizeof(peer);
  socklen_t local_len = sizeof(local);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
      !IsLoopbackAddress(peer)) {
    return std::nullopt;
  }
  const int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (nl < 0) return std::nullopt;
  timeval wait{1, 0};  // the kernel answers at once; never hang the I/O thread on it
  setsockopt(nl, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
  std::optional<uid_t> owner = Ask(nl, peer, local);
  close(nl);
  return owner;
}

}  // namespace squeeze
