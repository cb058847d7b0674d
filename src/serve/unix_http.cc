#include "serve/unix_http.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace squeeze {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The chunked body at `data` decoded; an error for a broken one.
Result<std::string> Unchunk(const std::string& data) {
  std::string out;
  size_t at = 0;
  for (;;) {
    const size_t eol = data.find("\r\n", at);
    if (eol == std::string::npos) return Status::Error("the chunked reply is cut short");
    size_t size = 0;
    size_t i = at;
    for (; i < eol && std::isxdigit(static_cast<unsigned char>(data[i])); ++i) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(data[i])));
      size = size * 16 + static_cast<size_t>(c <= '9' ? c - '0' : c - 'a' + 10);
      if (size > (64u << 20)) return Status::Error("a chunk of the reply is over 64 MiB");
    }
    if (i == at) return Status::Error("a chunk of the reply has no size");
    at = eol + 2;
    if (size == 0) return out;
    if (data.size() < at + size + 2) return Status::Error("the chunked reply is cut short");
    out.append(data, at, size);
    at += size + 2;
  }
}

}  // namespace

Result<HttpReply> ParseHttpReply(const std::string& raw) {
  const size_t head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos) return Status::Error("the reply has no complete header");
  const size_t line_end = raw.find("\r\n");
  const std::string status_line = raw.substr(0, line_end);
  if (status_line.rfind("HTTP/1.", 0) != 0 || status_line.size() < 12 ||
      !std::isdigit(static_cast<unsigned char>(status_line[9])) ||
      !std::isdigit(static_cast<unsigned char>(status_line[10])) ||
      !std::isdigit(static_cast<unsigned char>(status_line[11]))) {
    return Status::Error("the reply does not start with an HTTP status line: '" +
                         status_line.substr(0, 60) + "'");
  }
  HttpReply reply;
  reply.status = std::stoi(status_line.substr(9, 3));
  bool chunked = false;
  long long length = -1;
  size_t at = line_end + 2;
  while (at < head_end) {
    const size_t eol = raw.find("\r\n", at);
    const std::string line = raw.substr(at, eol - at);
    at = eol + 2;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) return Status::Error("a reply header has no ':'");
    const std::string name = Lower(line.substr(0, colon));
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    if (name == "transfer-encoding" && Lower(value).find("chunked") != std::string::npos) {
      chunked = true;
    } else if (name == "content-length") {
      char* end = nullptr;
      length = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || length < 0) {
        return Status::Error("the reply's Content-Length '" + value + "' is not a number");
      }
    }
  }
  const std::string body = raw.substr(head_end + 4);
  if (chunked) {
    Result<std::string> decoded = Unchunk(body);
    if (!decoded.ok()) return decoded.status();
    reply.body = std::move(*decoded);
  } else if (length >= 0) {
    if (body.size() < static_cast<size_t>(length)) return Status::Error("the reply is cut short");
    reply.body = body.substr(0, static_cast<size_t>(length));
  } else {
    reply.body = body;
  }
  return reply;
}

namespace {

// A connected socket to `socket_path`, or why not (`where` starts each message).
Result<int> ConnectUnix(const std::string& socket_path, const std::string& where) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(addr.sun_path)) return Status::Error(where + "path too long");
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::Unavailable(where + std::strerror(errno));
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    const std::string why = std::strerror(errno);
    close(fd);
    return Status::Unavailable(where + why +
                               (why == "Connection refused" ? " (is squeeze serve running?)" : ""));
  }
  return fd;
}

// Sends the whole request; closes `fd` when it cannot.
Status SendRequest(int fd, const std::string& method, const std::string& path,
                   const std::string& token, const std::string& body,
                   const std::string& content_type, const std::string& where) {
  std::string request = method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n";
  if (!token.empty()) request += "Authorization: Bearer " + token + "\r\n";
  if (method == "POST") {
    request += "Content-Type: " + content_type + "\r\nContent-Length: " +
               std::to_string(body.size()) + "\r\n";
  }
  request += "\r\n";
  if (method == "POST") request += body;
  for (size_t sent = 0; sent < request.size();) {
    const ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      close(fd);
      return Status::Unavailable(where + "sending: " + why);
    }
    sent += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Reads until the daemon closes the connection or `timeout_s` has passed; closes `fd` when it
// fails.
Result<std::string> ReadUntilClosed(int fd, int timeout_s, const std::string& where) {
  std::string raw;
  char buf[65536];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::max<long long>(0, left.count())));
    if (ready == 0) {
      close(fd);
      return Status::Unavailable(where + "no reply within " + std::to_string(timeout_s) + " s");
    }
    if (ready < 0 && errno == EINTR) continue;
    const ssize_t n = ready < 0 ? -1 : recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = std::strerror(errno);
      close(fd);
      return Status::Unavailable(where + "reading the reply: " + why);
    }
    if (n == 0) break;
    raw.append(buf, static_cast<size_t>(n));
  }
  return raw;
}

}  // namespace

Result<HttpReply> UnixHttpRequest(const std::string& socket_path, const std::string& method,
                                  const std::string& path, const std::string& token,
                                  const std::string& body, const std::string& content_type,
                                  int timeout_s) {
  const std::string where = "cannot reach squeeze at unix:" + socket_path + ": ";
  auto fd = ConnectUnix(socket_path, where);
  if (!fd.ok()) return fd.status();
  if (Status sent = SendRequest(*fd, method, path, token, body, content_type, where); !sent.ok()) {
    return sent;
  }
  auto raw = ReadUntilClosed(*fd, timeout_s, where);
  if (!raw.ok()) return raw.status();
  close(*fd);
  Result<HttpReply> reply = ParseHttpReply(*raw);
  if (!reply.ok()) return reply.status().WithContext(where.substr(0, where.size() - 2));
  return reply;
}

}  // namespace squeeze
