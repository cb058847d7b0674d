#include "serve/api_client.h"

#include <httplib.h>

#include <sys/stat.h>

#include <cstdlib>
#include <vector>

#include "serve/daemon.h"
#include "serve/unix_http.h"

namespace squeeze {

ApiClient::ApiClient(std::string url, std::string token, std::unique_ptr<httplib::Client> client,
                     std::string socket)
    : url_(std::move(url)),
      token_(std::move(token)),
      client_(std::move(client)),
      socket_(std::move(socket)) {}

std::string FindDaemonSocket(const std::string& given) {
  std::vector<std::string> candidates;
  if (!given.empty()) return given;
  if (const char* env = std::getenv("SQUEEZE_SOCKET"); env && *env) return env;
  candidates.push_back(DefaultDataDir() + "/squeeze.sock");
  candidates.push_back("/var/lib/squeeze/squeeze.sock");
  for (const std::string& path : candidates) {
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) return path;
  }
  return "";
}

ApiClient::~ApiClient() = default;

Result<std::unique_ptr<ApiClient>> ApiClient::Connect(ClientOptions options) {
  if (options.token.empty()) {
    const char* env = std::getenv("SQUEEZE_TOKEN");
    options.token = env ? env : "";
  }
  if (options.url.empty()) {
    const char* env = std::getenv("SQUEEZE_URL");
    if (env && *env) {
      options.url = env;
    } else if (std::string socket = FindDaemonSocket(options.socket); !socket.empty()) {
      return std::unique_ptr<ApiClient>(
          new ApiClient("unix:" + socket, options.token, nullptr, socket));
    } else {
      options.url = "http://127.0.0.1:8642";
    }
  }
  if (options.url.rfind("http://", 0) != 0) {
    return Status::Error("--url: '" + options.url + "' is not http://HOST:PORT");
  }
  auto client = std::make_unique<httplib::Client>(options.url);
  client->set_tcp_nodelay(true);  // else each request waits out the peer's delayed ACK (40 ms)
  if (!client->is_valid()) return Status::Error("--url: '" + options.url + "' is not usable");
  client->set_connection_timeout(5, 0);
  client->set_read_timeout(60, 0);
  if (!options.token.empty()) client->set_bearer_token_auth(options.token);
  return std::unique_ptr<ApiClient>(
      new ApiClient(options.url, options.token, std::move(client), ""));
}

Result<nlohmann::json> ApiClient::Decode(const std::string& what, int status,
                                         const std::string& body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (status >= 200 && status < 300) {
    if (j.is_discarded()) return Status::Error(what + ": the server sent no JSON");
    return j;
  }
  std::string message = j.is_object() && j.contains("error") && j["error"].is_string()
                            ? j["error"].get<std::string>()
                            : body;
  if (status == 401 && token_.empty()) message += " (set SQUEEZE_TOKEN or --token)";
  return Status::Error(message + " (HTTP " + std::to_string(status) + ")");
}

Result<nlohmann::json> ApiClient::Get(const std::string& path) {
  if (!client_) {
    auto reply = UnixHttpRequest(socket_, "GET", path, token_, "", "", 60);
    if (!reply.ok()) return reply.status();
    return Decode("GET " + path, reply->status, reply->body);
  }
  auto res = client_->Get(path.c_str());
  if (!res) {
    return Status::Error("cannot reach squeeze at " + url_ + ": " + httplib::to_string(res.error()));
  }
  return Decode("GET " + path, res->status, res->body);
}

Result<nlohmann::json> ApiClient::Post(const std::string& path, const std::string& body,
                                       const std::string& content_type) {
  if (!client_) {
    auto reply = UnixHttpRequest(socket_, "POST", path, token_, body, content_type, 60);
    if (!reply.ok()) return reply.status();
    return Decode("POST " + path, reply->status, reply->body);
  }
  auto res = client_->Post(path.c_str(), body, content_type.c_str());
  if (!res) {
    return Status::Error("cannot reach squeeze at " + url_ + ": " + httplib::to_string(res.error()));
  }
  return Decode("POST " + path, res->status, res->body);
}

}  // namespace squeeze
