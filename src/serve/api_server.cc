#include "serve/api_server.h"

#include <httplib.h>

#include <charconv>
#include <chrono>

#include "serve/web_dir.h"

namespace squeeze {
namespace {

constexpr size_t kMaxQueryValue = 256;
constexpr int kMaxQueryParams = 16;

void SendJson(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

void SendError(httplib::Response& res, int status, const std::string& message) {
  SendJson(res, status, nlohmann::json{{"error", message}});
}

void Send(httplib::Response& res, const ApiResult& r, int ok_status = 200) {
  if (r.error) {
    SendError(res, r.error->http_status, r.error->message);
  } else if (!r.text.empty()) {
    res.status = ok_status;
    res.set_content(r.text, "application/json");
  } else {
    SendJson(res, ok_status, r.value);
  }
}

std::optional<int64_t> ParseId(const std::string& s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < 1) return std::nullopt;
  return v;
}

}  // namespace

Status ParseListen(const std::string& listen, ApiOptions& options) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return Status::Error("--listen: '" + listen + "' is not HOST:PORT");
  }
  int port = -1;
  const std::string p = listen.substr(colon + 1);
  auto [ptr, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
  if (p.empty() || ec != std::errc() || ptr != p.data() + p.size() || port < 0 || port > 65535) {
    return Status::Error("--listen: port '" + p + "' is not 0..65535");
  }
  options.host = listen.substr(0, colon);
  options.port = port;
  return Status::Ok();
}

ApiServer::ApiServer(JobService& service, const Authenticator& tokens, ApiOptions options,
                     const LocalUsers* local)
    : service_(service), tokens_(tokens), options_(std::move(options)), local_(local),
      server_(std::make_unique<httplib::Server>()) {
  Routes();
  WebRoutes();
}

ApiServer::~ApiServer() { Stop(); }

Status ApiServer::Start() {
  if (options_.port == 0) {
    port_ = server_->bind_to_any_port(options_.host);
    if (port_ <= 0) return Status::Error("cannot listen on " + options_.host + ":0");
  } else {
    if (!server_->bind_to_port(options_.host, options_.port)) {
      return Status::Error("cannot listen on " + options_.host + ":" +
                           std::to_string(options_.port) + " (in use, or not an address here)");
    }
    port_ = options_.port;
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // Until the loop runs, stop() would be lost (and Stop() would wait forever).
  while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return Status::Ok();
}

void ApiServer::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

void ApiServer::ConfigureServer() {
  httplib::Server& s = *server_;
  s.set_payload_max_length(options_.max_body_bytes);
  s.set_read_timeout(10, 0);
  // Small requests and answers: without TCP_NODELAY each waits for a delayed ACK (~40 ms).
  s.set_tcp_nodelay(true);
  // httplib closes a keep-alive connection after 5 requests by default; scripts that submit
  // in a loop would reconnect all the time.
  s.set_keep_alive_max_count(10000);
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    SendError(res, 500, "internal error");
  });
  // httplib answers 413 itself for bodies over the limit; give it our shape.
  s.set_error_handler([this](const httplib::Request&, httplib::Response& res) {
    if (res.status == 413) {
      SendError(res, 413, "request body over " + std::to_string(options_.max_body_bytes) + " bytes");
    } else if (res.status == 404 && res.body.empty()) {
      SendError(res, 404, "no such endpoint");
    }
  });
}

ApiServer::Handler ApiServer::Authed(AuthedHandler handler) {
  return [this, handler](const httplib::Request& req, httplib::Response& res) {
    const std::string header = req.get_header_value("Authorization");
    std::optional<Principal> who;
    if (!header.empty()) {
      auto token = BearerToken(header);
      if (!token) return SendError(res, 401, "the Authorization header is not 'Bearer TOKEN'");
      who = tokens_.Authenticate(*token);
      if (!who) return SendError(res, 401, "unknown token");
    } else if (auto local = local_ ? local_->Identify(req.remote_addr, req.remote_port)
                                   : std::nullopt) {
      if (!local->ok()) return SendError(res, 403, local->status().message());
      who = **local;
    } else {
      return SendError(res, 401, "missing 'Authorization: Bearer TOKEN' header (local users "
                                 "need none on the daemon's Unix socket)");
    }
    if (static_cast<int>(req.params.size()) > kMaxQueryParams) {
      return SendError(res, 400, "too many query parameters (at most " +
                                     std::to_string(kMaxQueryParams) + ")");
    }
    for (const auto& [k, v] : req.params) {
      if (v.size() > kMaxQueryValue) {
        return SendError(res, 400, "query parameter '" + k + "' is over " +
                                       std::to_string(kMaxQueryValue) + " bytes");
      }
    }
    handler(*who, req, res);
  };
}

// POST routes read their body themselves (a content reader): the token is checked before any
// byte of the body is read, a body is cut off at the limit whether it has a Content-Length
// or comes chunked, and a POST with no body and no Content-Length (`curl -X POST`) is
// answered at once instead of waiting for a body that never comes.
ApiServer::PostHandler ApiServer::AuthedPost(AuthedPostHandler handler) {
  return [this, handler](const httplib::Request& req, httplib::Response& res,
                         const httplib::ContentReader& reader) {
    Authed([&](const Principal& who, const httplib::Request& r, httplib::Response& out) {
      handler(who, r, out, reader);
    })(req, res);
  };
}

ApiServer::PostHandler ApiServer::AuthedPostBody(
    std::function<void(const Principal&, const httplib::Request&, httplib::Response&,
                       const std::string&)> handler) {
  return AuthedPost([this, handler](const Principal& who, const httplib::Request& req,
                                    httplib::Response& res, const httplib::ContentReader& reader) {
    std::string body;
    if (ReadBody(req, reader, res, body)) handler(who, req, res, body);
  });
}

bool ApiServer::ReadBody(const httplib::Request& req, const httplib::ContentReader& reader,
                         httplib::Response& res, std::string& body) const {
  const std::string declared = req.get_header_value("Content-Length");
  // No length and not chunked: there is no body (curl -X POST without --data).
  if (declared.empty() && req.get_header_value("Transfer-Encoding").empty()) return true;
  uint64_t length = 0;
  std::from_chars(declared.data(), declared.data() + declared.size(), length);
  bool over = length > options_.max_body_bytes;
  const bool read = !over && reader([&](const char* data, size_t length) {
    if (body.size() + length > options_.max_body_bytes) {
      over = true;
      return false;
    }
    body.append(data, length);
    return true;
  });
  if (over) {
    res.set_header("Connection", "close");  // the rest of the body is not read
    SendError(res, 413, "request body over " + std::to_string(options_.max_body_bytes) + " bytes");
    return false;
  }
  if (!read) {
    res.set_header("Connection", "close");
    SendError(res, 400, "the request body could not be read (cut short, or bad chunked encoding)");
    return false;
  }
  return true;
}

namespace {

// A handler of /v1/jobs/ID...: the id parsed from the path (400 when it is not a number).
// A task of an array may be named as ARRAY_TASK (12_4) when `service` is given.
std::function<void(const Principal&, const httplib::Request&, httplib::Response&)> WithId(
    std::function<void(const Principal&, int64_t, const httplib::Request&, httplib::Response&)>
        handler,
    JobService* service = nullptr) {
  return [handler, service](const Principal& who, const httplib::Request& req,
                            httplib::Response& res) {
    const std::string text = req.matches[1];
    if (const size_t us = text.find('_'); us != std::string::npos && service != nullptr) {
      auto array = ParseId(text.substr(0, us));
      auto task = ParseId("1" + text.substr(us + 1));  // "1" + digits: 0 is a task too
      if (!array || !task || us + 1 == text.size()) {
        return SendError(res, 400, "job id '" + text + "' is not a number or ARRAY_TASK (12_4)");
      }
      auto id = service->ArrayTaskId(*array, std::stoi(text.substr(us + 1)));
      if (!id.ok()) return SendError(res, 404, id.status().message());
      return handler(who, *id, req, res);
    }
    auto id = ParseId(text);
    if (!id) return SendError(res, 400, "job id '" + text + "' is not a number");
    handler(who, *id, req, res);
  };
}

std::map<std::string, std::string> QueryOf(const httplib::Request& req) {
  std::map<std::string, std::string> query;
  for (const auto& [k, v] : req.params) query[k] = v;
  return query;
}

}  // namespace

void ApiServer::Routes() {
  ConfigureServer();
  httplib::Server& s = *server_;
  s.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(service_.MetricsText(), "text/plain; version=0.0.4");
  });
  JobRoutes();
  NodeRoutes();
  QueryRoutes();
}

void ApiServer::JobRoutes() {
  httplib::Server& s = *server_;
  s.Post("/v1/jobs", AuthedPostBody([this](const Principal& who, const httplib::Request&,
                                           httplib::Response& res, const std::string& body) {
    Send(res, service_.Submit(who, body), 201);
  }));
  s.Get("/v1/jobs", Authed([this](const Principal& who, const httplib::Request& req,
                                  httplib::Response& res) {
    Send(res, service_.List(who, QueryOf(req)));
  }));
  s.Get(R"(/v1/jobs/([^/]+))", Authed(WithId([this](const Principal& who, int64_t id,
                                                     const httplib::Request&,
                                                     httplib::Response& res) {
    Send(res, service_.Get(who, id));
  }, &service_)));
  s.Post(R"(/v1/jobs/([^/]+)/cancel)",
         AuthedPost([this](const Principal& who, const httplib::Request& req,
                           httplib::Response& res, const httplib::ContentReader&) {
           // The body, if any, is ignored (and not read: the connection is closed after).
           res.set_header("Connection", "close");
           const bool task = std::string(req.matches[1]).find('_') != std::string::npos;
           WithId(
               [this, task](const Principal& who, int64_t id, const httplib::Request&,
                            httplib::Response& res) {
                 Send(res, task ? service_.CancelTask(who, id) : service_.Cancel(who, id));
               },
               &service_)(who, req, res);
         }));
  s.Post(R"(/v1/jobs/([^/]+)/(hold|release|requeue|update))",
         AuthedPostBody([this](const Principal& who, const httplib::Request& req,
                               httplib::Response& res, const std::string& body) {
           const bool task = std::string(req.matches[1]).find('_') != std::string::npos;
           WithId([this, &body, task](const Principal& who, int64_t id,
                                      const httplib::Request& req, httplib::Response& res) {
             Send(res, task ? service_.ControlTask(who, id, req.matches[2], body)
                            : service_.Control(who, id, req.matches[2], body));
           }, &service_)(who, req, res);
         }));
  s.Get(R"(/v1/jobs/([^/]+)/why)", Authed(WithId([this](const Principal& who, int64_t id,
                                                         const httplib::Request&,
                                                         httplib::Response& res) {
    Send(res, service_.Why(who, id));
  }, &service_)));
  s.Get(R"(/v1/jobs/([^/]+)/log)", Authed(WithId([this](const Principal& who, int64_t id,
                                                         const httplib::Request& req,
                                                         httplib::Response& res) {
    Send(res, service_.Log(who, id, QueryOf(req)));
  }, &service_)));
}

void ApiServer::NodeRoutes() {
  httplib::Server& s = *server_;
  s.Get("/v1/nodes", Authed([this](const Principal& who, const httplib::Request&,
                                   httplib::Response& res) { Send(res, service_.Nodes(who)); }));
  // Node names are [A-Za-z0-9._-] in cluster files; anything else is simply not found.
  s.Post(R"(/v1/nodes/([^/]+)/reclaim)",
         AuthedPostBody([this](const Principal& who, const httplib::Request& req,
                               httplib::Response& res, const std::string& body) {
           Send(res, service_.ReclaimNode(who, req.matches[1], body));
         }));
  s.Post(R"(/v1/nodes/([^/]+)/return)",
         AuthedPost([this](const Principal& who, const httplib::Request& req,
                           httplib::Response& res, const httplib::ContentReader&) {
           res.set_header("Connection", "close");  // a body, if any, is not read
           Send(res, service_.ReturnNode(who, req.matches[1]));
         }));
  s.Post("/v1/telemetry", AuthedPostBody([this](const Principal& who, const httplib::Request&,
                                                httplib::Response& res, const std::string& body) {
    Send(res, service_.Telemetry(who, body));
  }));
  s.Get("/v1/pools", Authed([this](const Principal& who, const httplib::Request&,
                                   httplib::Response& res) { Send(res, service_.Pools(who)); }));
  s.Get("/v1/held-idle",
        Authed([this](const Principal& who, const httplib::Request&, httplib::Response& res) {
          Send(res, service_.HeldIdle(who));
        }));
}

void ApiServer::QueryRoutes() {
  httplib::Server& s = *server_;
  for (const auto& route :
       std::vector<std::pair<std::string, ApiResult (JobService::*)(
                                              const Principal&,
                                              const std::map<std::string, std::string>&)>>{
           {"/v1/history", &JobService::History},
           {"/v1/idle-windows", &JobService::IdleWindows},
           {"/v1/cost", &JobService::Cost}}) {
    const auto call = route.second;  // (clang 14 captures no structured binding)
    s.Get(route.first, Authed([this, call](const Principal& who, const httplib::Request& req,
                                           httplib::Response& res) {
      Send(res, (service_.*call)(who, QueryOf(req)));
    }));
  }
  // Who the token stands for: what a page needs to offer only the actions the caller may take.
  s.Get("/v1/whoami", Authed([](const Principal& who, const httplib::Request&,
                               httplib::Response& res) {
    SendJson(res, 200, {{"user", who.user}, {"team", who.team}, {"admin", who.admin}});
  }));
}

void ApiServer::WebRoutes() {
  httplib::Server& s = *server_;
  const std::string dir = options_.web_dir;
  if (dir.empty()) return;
  // Mounted under /ui/ only, so no file can shadow an API route.
  const bool built = WebDirBuilt(dir) && s.set_mount_point("/ui/", dir);
  if (built) {
    auto to_ui = [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/ui/"); };
    s.Get("/", to_ui);
    s.Get("/ui", to_ui);
    return;
  }
  auto missing = [dir](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content(WebDirMissingText(dir), "text/plain; charset=utf-8");
  };
  s.Get("/", missing);
  s.Get(R"(/ui(/.*)?)", missing);
}

}  // namespace squeeze
