#include "serve/api_server.h"

#include <charconv>

#include "serve/web_dir.h"

namespace squeeze {
namespace {

constexpr size_t kMaxQueryValue = 256;
constexpr int kMaxQueryParams = 16;

// Text that is not UTF-8 (a marker, a log, a row an older squeeze wrote) becomes U+FFFD, never
// a failed answer.
HttpResponse Json(int status, const nlohmann::json& body) {
  return JsonText(status, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

HttpResponse Send(const ApiResult& r, int ok_status = 200) {
  if (r.error) return JsonError(r.error->http_status, r.error->message, r.error->kind);
  if (!r.text.empty()) return JsonText(ok_status, r.text);
  return Json(ok_status, r.value);
}

std::optional<int64_t> ParseId(const std::string& s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < 1) return std::nullopt;
  return v;
}

HttpResponse Redirect(const std::string& to) {
  HttpResponse r;
  r.status = 302;
  r.headers.emplace_back("Location", to);
  return r;
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
                     const LocalUsers* local, std::function<void(const std::string&)> log)
    : service_(service), tokens_(tokens), options_(std::move(options)), local_(local),
      server_(options_.limits, [this](HttpRequest& r) { return router_.Route(r); },
              std::move(log)) {
  Routes();
  WebRoutes();
}

ApiServer::~ApiServer() { Stop(); }

Status ApiServer::Start() {
  if (Status s = server_.ListenTcp(options_.host, options_.port); !s.ok()) return s;
  if (!options_.socket_path.empty()) {
    if (Status s = server_.ListenUnix(options_.socket_path); !s.ok()) return s;
  }
  server_.Start();
  return Status::Ok();
}

void ApiServer::Stop() { server_.Stop(); }

std::variant<Principal, HttpResponse> ApiServer::Caller(const HttpRequest& req) const {
  const std::string header = req.Header("Authorization");
  std::optional<Principal> who;
  if (!header.empty()) {
    auto token = BearerToken(header);
    if (!token) return JsonError(401, "the Authorization header is not 'Bearer TOKEN'");
    who = tokens_.Authenticate(*token);
    if (!who) who = SessionOf(*token);
    if (!who) return JsonError(401, "unknown token");
  } else if (req.peer.local && local_ != nullptr) {
    Result<Principal> local = local_->PrincipalOf(*req.peer.local);
    if (!local.ok()) return JsonError(403, local.status().message());
    who = *local;
  } else {
    return JsonError(401, "missing 'Authorization: Bearer TOKEN' header (local users need none "
                          "on the daemon's Unix socket)");
  }
  if (static_cast<int>(req.params.size()) > kMaxQueryParams) {
    return JsonError(400, "too many query parameters (at most " +
                              std::to_string(kMaxQueryParams) + ")");
  }
  for (const auto& [k, v] : req.params) {
    if (v.size() > kMaxQueryValue) {
      return JsonError(400, "query parameter '" + k + "' is over " +
                                std::to_string(kMaxQueryValue) + " bytes");
    }
  }
  return *who;
}

ApiRouter::Handler ApiServer::Authed(AuthedHandler handler) const {
  return [this, handler](HttpRequest& req) {
    auto who = Caller(req);
    if (auto* refusal = std::get_if<HttpResponse>(&who)) return HeadReply::Now(*refusal);
    return HeadReply::Now(handler(std::get<Principal>(who), req));
  };
}

// The token is checked before any byte of the body is read; the server reads it up to the
// limit (413 beyond, whether it has a Content-Length or comes chunked), and a POST with no
// body and no Content-Length (`curl -X POST`) is answered at once with an empty one.
ApiRouter::Handler ApiServer::AuthedBody(AuthedBodyHandler handler) const {
  return [this, handler](HttpRequest& req) {
    auto who = Caller(req);
    if (auto* refusal = std::get_if<HttpResponse>(&who)) return HeadReply::Now(*refusal);
    HeadReply reply;
    reply.after_body = [handler, who = std::get<Principal>(who), req](const std::string& body) {
      HttpRequest request = req;
      return handler(who, request, body);
    };
    return reply;
  };
}

namespace {

// A handler of /v1/jobs/ID...: the id parsed from the path (400 when it is not a number).
// A task of an array may be named as ARRAY_TASK (12_4) when `service` is given.
HttpResponse WithId(const HttpRequest& req, JobService* service,
                    const std::function<HttpResponse(int64_t)>& handler) {
  const std::string& text = req.matches[1];
  if (const size_t us = text.find('_'); us != std::string::npos && service != nullptr) {
    auto array = ParseId(text.substr(0, us));
    auto task = ParseId("1" + text.substr(us + 1));  // "1" + digits: 0 is a task too
    if (!array || !task || us + 1 == text.size()) {
      return JsonError(400, "job id '" + text + "' is not a number or ARRAY_TASK (12_4)");
    }
    auto id = service->ArrayTaskId(*array, std::stoi(text.substr(us + 1)));
    if (!id.ok()) return JsonError(404, id.status().message());
    return handler(*id);
  }
  auto id = ParseId(text);
  if (!id) return JsonError(400, "job id '" + text + "' is not a number");
  return handler(*id);
}

std::map<std::string, std::string> QueryOf(const HttpRequest& req) {
  std::map<std::string, std::string> query;
  for (const auto& [k, v] : req.params) query[k] = v;
  return query;
}

bool IsTask(const HttpRequest& req) { return req.matches[1].find('_') != std::string::npos; }

}  // namespace

void ApiServer::Routes() {
  router_.Add("GET", "/healthz", [](HttpRequest&) {
    HttpResponse r;
    r.content_type = "text/plain";
    r.body = "ok\n";
    return HeadReply::Now(r);
  });
  router_.Add("GET", "/metrics", [this](HttpRequest&) {
    HttpResponse r;
    r.content_type = "text/plain; version=0.0.4";
    r.body = service_.MetricsText();
    return HeadReply::Now(r);
  });
  JobRoutes();
  NodeRoutes();
  QueryRoutes();
  LoginRoutes();
}

void ApiServer::JobRoutes() {
  router_.Add("POST", "/v1/jobs", AuthedBody([this](const Principal& who, HttpRequest&,
                                                    const std::string& body) {
    return Send(service_.Submit(who, body), 201);
  }));
  router_.Add("GET", "/v1/jobs", Authed([this](const Principal& who, HttpRequest& req) {
    return Send(service_.List(who, QueryOf(req)));
  }));
  router_.Add("GET", R"(/v1/jobs/([^/]+))", Authed([this](const Principal& who, HttpRequest& req) {
    return WithId(req, &service_, [&](int64_t id) { return Send(service_.Get(who, id)); });
  }));
  // The body of a cancel, if any, is ignored (and not read: the connection is closed after).
  router_.Add("POST", R"(/v1/jobs/([^/]+)/cancel)",
              Authed([this](const Principal& who, HttpRequest& req) {
                const bool task = IsTask(req);
                return WithId(req, &service_, [&](int64_t id) {
                  return Send(task ? service_.CancelTask(who, id) : service_.Cancel(who, id));
                });
              }));
  router_.Add("POST", R"(/v1/jobs/([^/]+)/(hold|release|requeue|update))",
              AuthedBody([this](const Principal& who, HttpRequest& req, const std::string& body) {
                const bool task = IsTask(req);
                const std::string& what = req.matches[2];
                return WithId(req, &service_, [&](int64_t id) {
                  return Send(task ? service_.ControlTask(who, id, what, body)
                                   : service_.Control(who, id, what, body));
                });
              }));
  router_.Add("GET", R"(/v1/jobs/([^/]+)/why)", Authed([this](const Principal& who, HttpRequest& req) {
    return WithId(req, &service_, [&](int64_t id) { return Send(service_.Why(who, id)); });
  }));
  router_.Add("GET", R"(/v1/jobs/([^/]+)/env)", Authed([this](const Principal& who, HttpRequest& req) {
    return WithId(req, &service_, [&](int64_t id) { return Send(service_.Environment(who, id)); });
  }));
  router_.Add("GET", R"(/v1/jobs/([^/]+)/log)", Authed([this](const Principal& who, HttpRequest& req) {
    return WithId(req, &service_,
                  [&](int64_t id) { return Send(service_.Log(who, id, QueryOf(req))); });
  }));
}

void ApiServer::NodeRoutes() {
  router_.Add("GET", "/v1/nodes", Authed([this](const Principal& who, HttpRequest&) {
    return Send(service_.Nodes(who));
  }));
  // Node names are [A-Za-z0-9._-] in cluster files; anything else is simply not found.
  router_.Add("POST", R"(/v1/nodes/([^/]+)/reclaim)",
              AuthedBody([this](const Principal& who, HttpRequest& req, const std::string& body) {
                return Send(service_.ReclaimNode(who, req.matches[1], body));
              }));
  // A body, if any, is not read.
  router_.Add("POST", R"(/v1/nodes/([^/]+)/return)",
              Authed([this](const Principal& who, HttpRequest& req) {
                return Send(service_.ReturnNode(who, req.matches[1]));
              }));
  router_.Add("POST", "/v1/telemetry",
              AuthedBody([this](const Principal& who, HttpRequest&, const std::string& body) {
                return Send(service_.Telemetry(who, body));
              }));
  router_.Add("GET", "/v1/pools", Authed([this](const Principal& who, HttpRequest&) {
    return Send(service_.Pools(who));
  }));
  router_.Add("GET", "/v1/held-idle", Authed([this](const Principal& who, HttpRequest&) {
    return Send(service_.HeldIdle(who));
  }));
}

void ApiServer::QueryRoutes() {
  for (const auto& route :
       std::vector<std::pair<std::string, ApiResult (JobService::*)(
                                              const Principal&,
                                              const std::map<std::string, std::string>&)>>{
           {"/v1/history", &JobService::History},
           {"/v1/idle-windows", &JobService::IdleWindows},
           {"/v1/cost", &JobService::Cost}}) {
    const auto call = route.second;  // (clang 14 captures no structured binding)
    router_.Add("GET", route.first, Authed([this, call](const Principal& who, HttpRequest& req) {
      return Send((service_.*call)(who, QueryOf(req)));
    }));
  }
  // Who the token stands for: what a page needs to offer only the actions the caller may take.
  router_.Add("GET", "/v1/whoami", Authed([](const Principal& who, HttpRequest&) {
    return Json(200, {{"user", who.user}, {"team", who.team}, {"admin", who.admin}});
  }));
}

void ApiServer::WebRoutes() {
  const std::string dir = options_.web_dir;
  if (dir.empty()) return;
  // Mounted under /ui/ only, so no file can shadow an API route.
  if (WebDirBuilt(dir)) {
    router_.Mount("/ui/", dir);
    for (const char* path : {"/", "/ui"}) {
      router_.Add("GET", path, [](HttpRequest&) { return HeadReply::Now(Redirect("/ui/")); });
    }
    return;
  }
  auto missing = [dir](HttpRequest&) {
    HttpResponse r;
    r.status = 404;
    r.content_type = "text/plain; charset=utf-8";
    r.body = WebDirMissingText(dir);
    return HeadReply::Now(r);
  };
  router_.Add("GET", "/", missing);
  router_.Add("GET", R"(/ui(/.*)?)", missing);
}

}  // namespace squeeze
