// The HTTP API of `squeeze serve`: JSON under /v1, /healthz and /metrics, on a TCP address and
// on the Unix socket of local users. It checks the bearer token (or, on the socket, who the
// kernel says the caller is), bounds query parameters, routes to a JobService and turns every
// rejection into {"error": "..."} with a status that says what was wrong; it also serves the
// dashboard's static files (no data in them) under /ui/. The server under it
// (serve/http_server.h) bounds connections, heads, bodies and time (serve/serve_limits.h).
// Start() runs it on its own threads; thread-safe.
#ifndef SQUEEZE_SERVE_API_SERVER_H_
#define SQUEEZE_SERVE_API_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <variant>

#include "core/status.h"
#include "serve/access.h"
#include "serve/api_router.h"
#include "serve/dashboard_login.h"
#include "serve/http_server.h"
#include "serve/job_service.h"
#include "serve/local_users.h"
#include "serve/serve_limits.h"

namespace squeeze {

struct ApiOptions {
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  int port = 8642;                 // 0 = any free port (see ApiServer::port())
  // The Unix socket of local users (0666; they need no token there); empty = none.
  std::string socket_path;
  // The dashboard's built files, served under /ui/ (and / redirects there); empty = none. A
  // folder without an index.html makes / answer how to build it (serve/web_dir.h).
  std::string web_dir;
  ServeLimits limits;
};

// "HOST:PORT" (e.g. "127.0.0.1:8642", "0.0.0.0:0") into options; errors name the value.
Status ParseListen(const std::string& listen, ApiOptions& options);

class ApiServer {
 public:
  // `local` knows the callers on the Unix socket (they need no token); without it the socket
  // asks for a token as TCP does. `log` hears what the server refuses (rate-limited).
  ApiServer(JobService& service, const Authenticator& tokens, ApiOptions options,
            const LocalUsers* local = nullptr,
            std::function<void(const std::string&)> log = nullptr);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // Binds the TCP address and the socket and starts serving; an error when either is taken.
  Status Start();
  void Stop();
  int port() const { return server_.tcp_port(); }

 private:
  using AuthedHandler = std::function<HttpResponse(const Principal&, HttpRequest&)>;
  using AuthedBodyHandler =
      std::function<HttpResponse(const Principal&, HttpRequest&, const std::string& body)>;
  void Routes();
  void JobRoutes();
  void NodeRoutes();   // nodes, pools, reclaims, returns, telemetry, held-idle
  void QueryRoutes();  // history, idle windows, cost, whoami
  void WebRoutes();
  void LoginRoutes();  // the dashboard's login codes (api_server_login.cc)
  // Who holds a dashboard session token (serve/dashboard_login.h); nullopt when none.
  std::optional<Principal> SessionOf(std::string_view token) const;
  // Who calls (a token, else a local user on the socket), or the answer that refuses: 401,
  // 403, or 400 for too many or too long query parameters.
  std::variant<Principal, HttpResponse> Caller(const HttpRequest& request) const;
  // A route for an authenticated caller, answered from the head (a body, if any, is not read).
  ApiRouter::Handler Authed(AuthedHandler handler) const;
  // A route that reads the body (up to the limit, after the caller is known) and answers with
  // it; a POST with no body and no length has an empty one.
  ApiRouter::Handler AuthedBody(AuthedBodyHandler handler) const;

  JobService& service_;
  const Authenticator& tokens_;
  const ApiOptions options_;
  const LocalUsers* local_;
  DashboardLogins logins_;
  ApiRouter router_;
  HttpServer server_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_API_SERVER_H_
