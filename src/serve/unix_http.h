// One HTTP/1.1 request over a Unix socket (the daemon's, for local users), with
// "Connection: close": what ApiClient uses when it talks to squeeze serve on this machine. The
// reply's body may come with a Content-Length, chunked, or until the server closes.
// Stateless; thread-safe.
#ifndef SQUEEZE_SERVE_UNIX_HTTP_H_
#define SQUEEZE_SERVE_UNIX_HTTP_H_

#include <string>

#include "core/status.h"

namespace squeeze {

struct HttpReply {
  int status = 0;
  std::string body;
};

// `token` may be empty (the socket's peer is known without one); `body` is sent for POST.
Result<HttpReply> UnixHttpRequest(const std::string& socket_path, const std::string& method,
                                  const std::string& path, const std::string& token,
                                  const std::string& body, const std::string& content_type,
                                  int timeout_s);

// The reply in `raw` (status line, headers, body), as the server sent it; an error says what
// is wrong with it. Exposed for the tests.
Result<HttpReply> ParseHttpReply(const std::string& raw);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_UNIX_HTTP_H_
