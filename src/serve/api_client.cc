#include "serve/api_client.h"

#include <httplib.h>

#include <sys/stat.h>

#include <cstdlib>
#include <vector>

#include "exec/run_files.h"
#include "serve/daemon.h"
#include "serve/error_kinds.h"
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

namespace {

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

// The serve.url (and admin.token, when readable) a daemon left in its data directory.
bool FindDaemonFiles(std::string& url, std::string& token, std::string& how) {
  for (const std::string& dir : {DefaultDataDir(), std::string("/var/lib/squeeze")}) {
    std::optional<std::string> text = ReadFileIfPresent(dir + "/serve.url");
    if (!text || FirstLine(*text).empty()) continue;
    url = FirstLine(*text);
    how = " (from " + dir + "/serve.url)";
    if (token.empty()) {
      if (std::optional<std::string> t = ReadFileIfPresent(dir + "/admin.token"); t) {
        token = FirstLine(*t);
        how = " (from " + dir + "/serve.url, with " + dir + "/admin.token)";
      }
    }
    return true;
  }
  return false;
}

// httplib's error in words a user can act on.
std::string Unreachable(httplib::Error error) {
  switch (error) {
    case httplib::Error::Connection:
      return "nothing answers there (is squeeze serve running, and at that address?)";
    case httplib::Error::ConnectionTimeout: return "the connection timed out";
    case httplib::Error::Read: return "the connection broke while reading the reply";
    case httplib::Error::Write: return "the connection broke while sending the request";
    default: return httplib::to_string(error);
  }
}

}  // namespace

Result<std::unique_ptr<ApiClient>> ApiClient::Connect(ClientOptions options) {
  if (options.token.empty()) {
    const char* env = std::getenv("SQUEEZE_TOKEN");
    options.token = env ? env : "";
  }
  std::string how;
  if (options.url.empty()) {
    const char* env = std::getenv("SQUEEZE_URL");
    if (env && *env) {
      options.url = env;
      how = " (from $SQUEEZE_URL)";
    } else if (std::string socket = FindDaemonSocket(options.socket); !socket.empty()) {
      return std::unique_ptr<ApiClient>(
          new ApiClient("unix:" + socket, options.token, nullptr, socket));
    } else if (!FindDaemonFiles(options.url, options.token, how)) {
      options.url = "http://127.0.0.1:8642";
      how = " (the default: no $SQUEEZE_URL, no squeeze.sock or serve.url in " +
            DefaultDataDir() + " or /var/lib/squeeze)";
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
  auto made = std::unique_ptr<ApiClient>(
      new ApiClient(options.url, options.token, std::move(client), ""));
  made->how_ = how;
  return made;
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
  return Status::Error(ErrorKindOfHttpStatus(status),
                       message + " (HTTP " + std::to_string(status) + ")");
}

Result<nlohmann::json> ApiClient::Get(const std::string& path) {
  if (!client_) {
    auto reply = UnixHttpRequest(socket_, "GET", path, token_, "", "", 60);
    if (!reply.ok()) return reply.status();
    return Decode("GET " + path, reply->status, reply->body);
  }
  auto res = client_->Get(path.c_str());
  if (!res) {
    return Status::Unavailable("cannot reach squeeze at " + url_ + how_ + ": " +
                               Unreachable(res.error()));
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
    return Status::Unavailable("cannot reach squeeze at " + url_ + how_ + ": " +
                               Unreachable(res.error()));
  }
  return Decode("POST " + path, res->status, res->body);
}

}  // namespace squeeze
