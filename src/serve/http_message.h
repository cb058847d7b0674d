// A request as the API's handlers see it and the answer they give, free of any server library
// (serve/http_server.h reads and writes them on the wire), and who sent it: the peer a
// connection counts against (its caps, its share of the workers). Plain data and pure
// functions; thread-compatible.
#ifndef SQUEEZE_SERVE_HTTP_MESSAGE_H_
#define SQUEEZE_SERVE_HTTP_MESSAGE_H_

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace squeeze {

// A local user's process on the Unix socket, by the kernel's word (SO_PEERCRED).
struct PeerCredentials {
  uid_t uid = 0;
  gid_t gid = 0;
  pid_t pid = 0;
};

// Who is at the other end of a connection.
struct HttpPeer {
  // What the caps and the workers' fairness count by: "uid N" (the Unix socket, or a loopback
  // TCP connection whose owner the kernel told), else "ip ADDRESS".
  std::string key;
  std::string address;  // the remote IP, or "unix"
  std::optional<PeerCredentials> local;  // set for a connection on the Unix socket
};

using HttpFields = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;  // "GET", "POST", ... (HEAD is answered as GET without the body)
  std::string path;    // percent-decoded, without the query
  HttpFields params;   // the query, decoded ('+' is a space), in order
  HttpFields headers;
  HttpPeer peer;
  bool has_body = false;             // a Content-Length over 0, or chunked
  std::vector<std::string> matches;  // the route's captures; [0] is the whole path

  // The first header named `name` (any case); "" when absent.
  std::string Header(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type;
  std::string body;
  HttpFields headers;  // beyond Content-Type and Content-Length
  bool close = false;  // close the connection after this answer
};

// What a handler makes of a request's head: an answer now (a body, if one was sent, is not
// read and the connection is closed after the answer), or a wish to read the body (up to the
// limit; 413 beyond it) and the function that answers with it, run on a worker.
struct HeadReply {
  std::optional<HttpResponse> now;
  std::function<HttpResponse(const std::string& body)> after_body;

  static HeadReply Now(HttpResponse response) { return HeadReply{std::move(response), nullptr}; }
};

// {"error": message, "kind": ...} with `status`, the shape of every refusal of the API; the
// kind is the status's (serve/error_kinds.h) unless given.
HttpResponse JsonError(int status, const std::string& message,
                       std::optional<ErrorKind> kind = std::nullopt);
// A JSON text as the answer.
HttpResponse JsonText(int status, std::string text);

// "%2e%2E" -> ".."; '+' stays unless `plus_is_space`. A broken escape is kept as it is.
std::string PercentDecode(std::string_view text, bool plus_is_space);
// "a=1&b=x%20y&c" -> {a,1},{b,"x y"},{c,""}.
HttpFields ParseQuery(std::string_view query);

// Peers: the key of a local user by uid, and of a TCP connection from `ip`; on loopback, every
// local user shares the address, so the socket's owner (when the kernel told it) stands for it.
std::string PeerKeyOfUid(uid_t uid);
std::string TcpPeerKey(const std::string& ip, std::optional<uid_t> owner);
// 127.0.0.0/8, ::1 and ::ffff:127.x.y.z.
bool IsLoopback(std::string_view ip);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_HTTP_MESSAGE_H_
