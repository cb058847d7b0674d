// The HTTP API of `squeeze serve`: JSON under /v1, /healthz and /metrics (cpp-httplib). It checks
// the bearer token, bounds request bodies and parameters, routes to a JobService and turns
// every rejection into {"error": "..."} with a status that says what was wrong; it also serves
// the dashboard's static files (no data in them) under /ui/. Start() runs
// the server on its own threads; thread-safe.
#ifndef SQUEEZE_SERVE_API_SERVER_H_
#define SQUEEZE_SERVE_API_SERVER_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "core/status.h"
#include "serve/access.h"
#include "serve/job_service.h"
#include "serve/local_users.h"

namespace httplib {
class Server;
struct Request;
struct Response;
class ContentReader;
}

namespace squeeze {

struct ApiOptions {
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  int port = 8642;                 // 0 = any free port (see ApiServer::port())
  size_t max_body_bytes = 256 * 1024;
  // The dashboard's built files, served under /ui/ (and / redirects there); empty = none. A
  // folder without an index.html makes / answer how to build it (serve/web_dir.h).
  std::string web_dir;
};

// "HOST:PORT" (e.g. "127.0.0.1:8642", "0.0.0.0:0") into options; errors name the value.
Status ParseListen(const std::string& listen, ApiOptions& options);

class ApiServer {
 public:
  // `local`, if given, knows the requests carried from the Unix socket: they need no token.
  ApiServer(JobService& service, const Authenticator& tokens, ApiOptions options,
            const LocalUsers* local = nullptr);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // Binds and starts serving on a background thread; an error when the address is taken.
  Status Start();
  void Stop();
  int port() const { return port_; }

 private:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;
  using PostHandler = std::function<void(const httplib::Request&, httplib::Response&,
                                         const httplib::ContentReader&)>;
  using AuthedHandler =
      std::function<void(const Principal&, const httplib::Request&, httplib::Response&)>;
  using AuthedPostHandler = std::function<void(const Principal&, const httplib::Request&,
                                               httplib::Response&, const httplib::ContentReader&)>;
  // Limits, timeouts and the shape of httplib's own errors.
  void ConfigureServer();
  void Routes();
  void JobRoutes();
  void NodeRoutes();   // nodes, pools, reclaims, returns, telemetry, held-idle
  void QueryRoutes();  // history, idle windows, cost, whoami
  void WebRoutes();
  // Runs `handler` for an authenticated caller (a token, else a local user on the socket), or
  // answers 401 / 403 / 400.
  Handler Authed(AuthedHandler handler);
  // The same for a POST that reads its body itself (ReadBody).
  PostHandler AuthedPost(AuthedPostHandler handler);
  // The same for a POST whose body is read whole (ReadBody) and handed over.
  PostHandler AuthedPostBody(
      std::function<void(const Principal&, const httplib::Request&, httplib::Response&,
                         const std::string& body)> handler);
  // Reads a body up to the limit; false after answering 413 or 400.
  bool ReadBody(const httplib::Request& req, const httplib::ContentReader& reader,
                httplib::Response& res, std::string& body) const;

  JobService& service_;
  const Authenticator& tokens_;
  ApiOptions options_;
  const LocalUsers* local_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_API_SERVER_H_
