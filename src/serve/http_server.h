// The HTTP/1.1 server under the API (Boost.Beast and Asio, confined to http_server.cc and
// http_connection.cc): one I/O thread reads and writes every connection without blocking, so
// an idle or slow connection costs a descriptor and a few kilobytes, never a thread; handlers
// run on a WorkerPool shared fairly between peers. It listens on a TCP address and on a Unix
// socket (local users, known by SO_PEERCRED at accept), caps connections per peer and in all,
// bounds a request's head and body and gives each a deadline (serve/serve_limits.h).
// Start/Stop from one thread; the handler is called on the workers, concurrently.
#ifndef SQUEEZE_SERVE_HTTP_SERVER_H_
#define SQUEEZE_SERVE_HTTP_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/status.h"
#include "serve/http_message.h"
#include "serve/serve_limits.h"

namespace squeeze {

class HttpServer {
 public:
  // Called on a worker for each request head (HEAD requests come as GET). An exception it
  // throws is answered 500.
  using Handler = std::function<HeadReply(HttpRequest&)>;
  // Where the server says what it refused (once a minute per peer at most).
  using Logger = std::function<void(const std::string&)>;

  HttpServer(ServeLimits limits, Handler handler, Logger log);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds HOST:PORT (port 0 = any free one, see tcp_port()); before Start.
  Status ListenTcp(const std::string& host, int port);
  // Binds the Unix socket at `path` (a stale one is replaced: the caller holds the data
  // directory) and makes it connectable by every local user (0666); before Start.
  Status ListenUnix(const std::string& path);
  // Starts the I/O thread and the workers.
  void Start();
  // Stops accepting, closes every connection, joins the threads and removes the Unix socket.
  void Stop();
  int tcp_port() const;
  // Requests whose whole body came with their head (answered by one worker task, not two).
  uint64_t BodiesWithHead() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_HTTP_SERVER_H_
