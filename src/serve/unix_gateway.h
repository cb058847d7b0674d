// Local users reach the API through a Unix socket and are known by the kernel's word
// (SO_PEERCRED), with no token. Each connection accepted on the socket is carried to the API's
// TCP listener over a loopback connection of the gateway's own; while it lasts, the port of
// that connection is registered with the peer's credentials, and the API takes a request that
// comes from a registered port as that peer's (PeerRegistry::Find). A port is bound by the
// gateway's socket while registered, so no other process can send from it. Thread-safe.
#ifndef SQUEEZE_SERVE_UNIX_GATEWAY_H_
#define SQUEEZE_SERVE_UNIX_GATEWAY_H_

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "core/status.h"

namespace squeeze {

struct PeerCredentials {
  uid_t uid = 0;
  gid_t gid = 0;
  pid_t pid = 0;
};

// The gateway's live connections to the API, by source port. Thread-safe.
class PeerRegistry {
 public:
  explicit PeerRegistry(std::string address) : address_(std::move(address)) {}
  void Add(int port, const PeerCredentials& peer);
  void Remove(int port);
  // The peer behind a request from `address`:`port`; nullopt unless it is the gateway's.
  std::optional<PeerCredentials> Find(const std::string& address, int port) const;
  const std::string& address() const { return address_; }

 private:
  const std::string address_;  // the loopback address the gateway connects from
  mutable std::mutex mu_;
  std::map<int, PeerCredentials> peers_;
};

class UnixGateway {
 public:
  // Carries connections on `socket_path` to `api_host`:`api_port` (the API's TCP listener;
  // 0.0.0.0 is reached on 127.0.0.1), registering each in `registry`.
  UnixGateway(std::string socket_path, std::string api_host, int api_port,
              PeerRegistry& registry);
  ~UnixGateway();
  UnixGateway(const UnixGateway&) = delete;
  UnixGateway& operator=(const UnixGateway&) = delete;

  // Binds the socket (a stale one from an earlier daemon is replaced; the caller holds the
  // data directory's lock), makes it connectable by every local user (0666) and starts
  // accepting. An error names the path.
  Status Start();
  // Stops accepting, ends every carried connection and removes the socket.
  void Stop();
  // "127.0.0.1" for an API on 0.0.0.0, else the API's host: where carried connections go.
  static std::string ConnectHost(const std::string& api_host);

 private:
  void AcceptLoop();
  void Carry(int client);

  const std::string socket_path_;
  const std::string api_host_;
  const int api_port_;
  PeerRegistry& registry_;
  int listen_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mu_;
  std::condition_variable idle_;
  std::set<int> open_;  // client sockets being carried, shut down by Stop
  int carrying_ = 0;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_UNIX_GATEWAY_H_
