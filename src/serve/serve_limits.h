// What one client may hold of the API's server (serve/http_server.h): connections per peer and
// in all, the size of a request head and body, how long a head, a body, an answer and an idle
// keep-alive connection may take, and how many workers run the handlers (a peer may keep at most
// half of them busy). `squeeze serve` flags set them (docs/serve.md). Plain data and a counter
// of open connections that only the server's I/O thread touches (not thread-safe).
#ifndef SQUEEZE_SERVE_SERVE_LIMITS_H_
#define SQUEEZE_SERVE_SERVE_LIMITS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "core/status.h"

namespace squeeze {

struct ServeLimits {
  int workers = 16;                    // threads that run the handlers (a submission's waits
                                       // on the group commit's fsync)
  int max_connections_per_peer = 64;   // a uid (socket, loopback) or a remote IP
  int max_connections = 4096;          // in all; kept under half of RLIMIT_NOFILE
  size_t max_head_bytes = 16 * 1024;   // request line and headers
  size_t max_body_bytes = 256 * 1024;  // whether Content-Length or chunked
  // Whole seconds (plain numbers, not Time: they become std::chrono::seconds for the timers).
  int64_t head_timeout_s = 10;   // from a request's first byte to the end of its head
  int64_t body_timeout_s = 30;   // for a whole body
  int64_t write_timeout_s = 30;  // for a whole answer
  int64_t idle_timeout_s = 30;   // a connection with no request in flight

  // How many of the workers one peer may keep busy: half of them, at least one.
  int max_busy_per_peer() const { return workers > 1 ? workers / 2 : 1; }
  // An error naming the flag and the value when a limit cannot work.
  Status Validate() const;
  // The global cap kept to at most half of `open_files` (RLIMIT_NOFILE): the daemon's store,
  // logs and the jobs' supervisors need descriptors too.
  ServeLimits WithinOpenFiles(uint64_t open_files) const;
  // The one line the daemon prints at start.
  std::string Describe() const;
};

// Open connections by peer, against the caps, and when a refusal may be logged: once a minute
// per peer at most. Not thread-safe.
class ConnectionCounter {
 public:
  enum class Admit { kOk, kPeerFull, kServerFull };
  explicit ConnectionCounter(const ServeLimits& limits) : limits_(limits) {}
  // Counts a new connection of `peer`, or says which cap it is over (then it is not counted).
  Admit TryOpen(const std::string& peer);
  void Close(const std::string& peer);
  // Whether a refusal of `peer` at `now_s` (seconds) is to be logged; true at most once a
  // minute per peer.
  bool ShouldLog(const std::string& peer, int64_t now_s);
  // The text of a 503 for a refusal.
  std::string RefusalText(Admit why) const;
  int open() const { return open_; }
  int open_of(const std::string& peer) const;

 private:
  const ServeLimits limits_;
  int open_ = 0;
  std::map<std::string, int> by_peer_;
  std::map<std::string, int64_t> logged_at_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_SERVE_LIMITS_H_
