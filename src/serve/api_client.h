// A client of the `squeeze serve` API for the CLI (submit, queue, show, cancel, why, nodes):
// the address and token come from flags or SQUEEZE_URL / SQUEEZE_TOKEN. Each call returns the
// JSON the server sent, or an error that says what went wrong (unreachable server, the
// server's own {"error": ...} with its status). Not thread-safe.
#ifndef SQUEEZE_SERVE_API_CLIENT_H_
#define SQUEEZE_SERVE_API_CLIENT_H_

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace httplib {
class Client;
}

namespace squeeze {

struct ClientOptions {
  std::string url;    // "http://HOST:PORT"; empty = $SQUEEZE_URL, else http://127.0.0.1:8642
  std::string token;  // empty = $SQUEEZE_TOKEN
};

class ApiClient {
 public:
  static Result<std::unique_ptr<ApiClient>> Connect(ClientOptions options);
  ~ApiClient();

  Result<nlohmann::json> Get(const std::string& path);
  // `content_type`: application/json or application/yaml (a job file as it is).
  Result<nlohmann::json> Post(const std::string& path, const std::string& body,
                              const std::string& content_type);
  const std::string& url() const { return url_; }

 private:
  ApiClient(std::string url, std::string token, std::unique_ptr<httplib::Client> client);
  Result<nlohmann::json> Decode(const std::string& what, int status, const std::string& body);

  std::string url_;
  std::string token_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_API_CLIENT_H_
