#include "serve/unix_gateway.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace squeeze {
namespace {

bool SendAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// A loopback connection to the API from a port of its own; the port, or -1.
int ConnectFromOwnPort(const std::string& host, int port, int& out_port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    close(fd);
    return -1;
  }
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return -1;
  }
  out_port = ntohs(addr.sin_port);
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1 ||
      connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Copies both ways until the API's side ends (it answers and closes, or times out idle), or
// the client's does while the gateway stops.
void Pump(int client, int api, const std::atomic<bool>& stopping) {
  bool client_open = true;
  char buf[65536];
  for (;;) {
    pollfd fds[2] = {{client, static_cast<short>(client_open ? POLLIN : 0), 0},
                     {api, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents != 0) {
      const ssize_t n = recv(client, buf, sizeof(buf), 0);
      if (n > 0) {
        if (!SendAll(api, buf, static_cast<size_t>(n))) return;
      } else if (n == 0 || errno != EINTR) {
        client_open = false;  // no more requests: the API finishes the one it has
        shutdown(api, SHUT_WR);
        if (stopping) return;
      }
    }
    if (fds[1].revents != 0) {
      const ssize_t n = recv(api, buf, sizeof(buf), 0);
      if (n > 0) {
        if (!SendAll(client, buf, static_cast<size_t>(n))) return;
      } else if (n == 0 || errno != EINTR) {
        return;
      }
    }
  }
}

}  // namespace

void PeerRegistry::Add(int port, const PeerCredentials& peer) {
  std::lock_guard l(mu_);
  peers_[port] = peer;
}

void PeerRegistry::Remove(int port) {
  std::lock_guard l(mu_);
  peers_.erase(port);
}

std::optional<PeerCredentials> PeerRegistry::Find(const std::string& address, int port) const {
  if (address != address_) return std::nullopt;
  std::lock_guard l(mu_);
  const auto it = peers_.find(port);
  if (it == peers_.end()) return std::nullopt;
  return it->second;
}

UnixGateway::UnixGateway(std::string socket_path, std::string api_host, int api_port,
                         PeerRegistry& registry)
    : socket_path_(std::move(socket_path)),
      api_host_(ConnectHost(api_host)),
      api_port_(api_port),
      registry_(registry) {}

UnixGateway::~UnixGateway() { Stop(); }

std::string UnixGateway::ConnectHost(const std::string& api_host) {
  return api_host == "0.0.0.0" || api_host.empty() ? "127.0.0.1" : api_host;
}

Status UnixGateway::Start() {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path_.size() >= sizeof(addr.sun_path)) {
    return Status::Error("--socket: '" + socket_path_ + "' is longer than " +
                         std::to_string(sizeof(addr.sun_path) - 1) + " bytes");
  }
  std::memcpy(addr.sun_path, socket_path_.c_str(), socket_path_.size() + 1);
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return Status::Error("cannot make a Unix socket: " + std::string(std::strerror(errno)));
  unlink(socket_path_.c_str());  // an earlier daemon's; this one holds the data directory
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      chmod(socket_path_.c_str(), 0666) != 0 || listen(listen_fd_, 128) != 0) {
    const std::string why = std::strerror(errno);
    close(listen_fd_);
    listen_fd_ = -1;
    return Status::Error("--socket: cannot listen on " + socket_path_ + ": " + why);
  }
  acceptor_ = std::thread([this] { AcceptLoop(); });
  return Status::Ok();
}

void UnixGateway::AcceptLoop() {
  while (!stopping_) {
    const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (stopping_) return;
      if (errno == EMFILE || errno == ENFILE || errno == ENOMEM) {
        usleep(10000);  // out of descriptors for now: the waiting client is retried
        continue;
      }
      return;
    }
    std::lock_guard l(mu_);
    open_.insert(client);
    ++carrying_;
    std::thread([this, client] { Carry(client); }).detach();
  }
}

void UnixGateway::Carry(int client) {
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (getsockopt(client, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
    int port = 0;
    const int api = ConnectFromOwnPort(api_host_, api_port_, port);
    if (api >= 0) {
      registry_.Add(port, {cred.uid, cred.gid, cred.pid});
      Pump(client, api, stopping_);
      registry_.Remove(port);  // before the port is let go
      close(api);
    }
  }
  std::lock_guard l(mu_);
  open_.erase(client);
  close(client);
  --carrying_;
  idle_.notify_all();
}

void UnixGateway::Stop() {
  if (listen_fd_ < 0) return;
  stopping_ = true;
  shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  close(listen_fd_);
  listen_fd_ = -1;
  std::unique_lock l(mu_);
  for (int fd : open_) shutdown(fd, SHUT_RDWR);
  idle_.wait(l, [this] { return carrying_ == 0; });
  unlink(socket_path_.c_str());
}

}  // namespace squeeze
