// A client of the `squeeze serve` API for the CLI (submit, queue, show, cancel, why, nodes):
// over HTTP to a URL (--url, SQUEEZE_URL) with a token (--token, SQUEEZE_TOKEN), or, when no
// URL is given and the daemon's Unix socket is there, over the socket, where the kernel says
// who the user is and no token is needed. Each call returns the
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
  // "http://HOST:PORT"; empty = $SQUEEZE_URL, else the socket (below) when there is one, else
  // the serve.url a daemon wrote in the default data directory ($SQUEEZE_DATA, ~/.squeeze) or
  // /var/lib/squeeze, else http://127.0.0.1:8642.
  std::string url;
  // Empty = $SQUEEZE_TOKEN, else, with a serve.url found as above, the admin.token beside it
  // when this user may read it (the daemon's own user).
  std::string token;
  // The daemon's Unix socket; empty = $SQUEEZE_SOCKET, else squeeze.sock in the default data
  // directory ($SQUEEZE_DATA, ~/.squeeze), else /var/lib/squeeze/squeeze.sock.
  std::string socket;
};

// The socket a client would use (see ClientOptions), or "" when none exists.
std::string FindDaemonSocket(const std::string& given);

class ApiClient {
 public:
  static Result<std::unique_ptr<ApiClient>> Connect(ClientOptions options);
  ~ApiClient();

  Result<nlohmann::json> Get(const std::string& path);
  // `content_type`: application/json or application/yaml (a job file as it is).
  Result<nlohmann::json> Post(const std::string& path, const std::string& body,
                              const std::string& content_type);
  // "http://HOST:PORT", or "unix:PATH" on the socket.
  const std::string& url() const { return url_; }

 private:
  ApiClient(std::string url, std::string token, std::unique_ptr<httplib::Client> client,
            std::string socket);
  Result<nlohmann::json> Decode(const std::string& what, int status, const std::string& body);

  std::string url_;
  std::string how_;  // how the address was found, for messages ("from ~/.squeeze/serve.url")
  std::string token_;
  std::unique_ptr<httplib::Client> client_;  // null on the socket
  std::string socket_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_API_CLIENT_H_
