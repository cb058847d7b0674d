// The dashboard's login without a token (serve/dashboard_login.h): a code minted for a local
// user over the Unix socket, traded once by the page for a session token.
#include <chrono>

#include <nlohmann/json.hpp>

#include "serve/api_server.h"

namespace squeeze {
namespace {

Time SystemNow() {
  return FromMilliseconds(std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count());
}

HttpResponse JsonOk(const nlohmann::json& body) { return JsonText(200, body.dump()); }

}  // namespace

std::optional<Principal> ApiServer::SessionOf(std::string_view token) const {
  return logins_.Authenticate(token, SystemNow());
}

void ApiServer::LoginRoutes() {
  // Only a local user, known by the kernel on the socket, gets a code: a token's holder has
  // the dashboard already, and nothing on the network can mint one.
  router_.Add("POST", "/v1/dashboard-login", Authed([this](const Principal& who, HttpRequest& req) {
    if (!req.peer.local || !req.Header("Authorization").empty()) {
      return JsonError(403, "a dashboard login code is given only over the daemon's Unix socket "
                            "to the user the kernel names: run `squeeze dashboard` on this "
                            "machine");
    }
    Result<std::string> code = logins_.MintCode(who, SystemNow());
    if (!code.ok()) {
      return JsonError(code.status().kind() == ErrorKind::kUnavailable ? 503 : 500,
                       code.status().message());
    }
    return JsonOk({{"code", *code},
                   {"user", who.user},
                   {"expires_in_s", WholeSeconds(DashboardLogins::kCodeLife)}});
  }));
  // Anyone may try a code (no token: that is what it is for); a wrong, used or expired one is
  // a 403. The body is {"code": "..."}, at most the server's body limit.
  router_.Add("POST", "/v1/dashboard-login/redeem", [this](HttpRequest& req) {
    // Read without a token: only a short body with its length given.
    const std::string length = req.Header("Content-Length");
    const bool digits = !length.empty() && length.size() <= 4 &&
                        length.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoi(length) > 1024) {
      return HeadReply::Now(JsonError(length.empty() ? 411 : 413,
                                      "a login code's body is {\"code\": \"...\"}, at most "
                                      "1024 bytes, with its Content-Length"));
    }
    HeadReply reply;
    reply.after_body = [this](const std::string& body) {
      const nlohmann::json asked = nlohmann::json::parse(body, nullptr, false);
      if (!asked.is_object() || !asked.contains("code") || !asked["code"].is_string()) {
        return JsonError(400, "the body must be {\"code\": \"...\"} (squeeze dashboard prints "
                              "the URL that sends it)");
      }
      auto session = logins_.Redeem(asked["code"].get<std::string>(), SystemNow());
      if (!session) {
        return JsonError(403, "this login code is unknown, used or expired (it is good once, "
                              "for 60 s): run `squeeze dashboard` again");
      }
      return JsonOk({{"token", session->token},
                     {"user", session->who.user},
                     {"team", session->who.team},
                     {"admin", session->who.admin},
                     {"expires_in_s", WholeSeconds(DashboardLogins::kSessionLife)}});
    };
    return reply;
  });
}

}  // namespace squeeze
