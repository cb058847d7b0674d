// libFuzzer target: the HTTP layer of `squeeze serve` as a client meets it. Each input is sent
// as it is to the daemon's real ApiServer (cpp-httplib with squeeze's routes, token check,
// query and body limits, chunked bodies) on a loopback port of this process, and a job body
// reaches the real JSON job reader (config/job_file.h). Only the queue behind the routes is a
// stand-in: it answers every call and does nothing. The reply is then read back by the Unix
// socket client's reply parser (serve/unix_http.h), and the input itself is given to it too.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "config/job_file.h"
#include "serve/api_server.h"
#include "serve/unix_http.h"

namespace {

using squeeze::ApiResult;
using squeeze::Principal;
using Query = std::map<std::string, std::string>;

constexpr char kToken[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

class OneToken : public squeeze::Authenticator {
 public:
  std::optional<Principal> Authenticate(std::string_view token) const override {
    if (token != kToken) return std::nullopt;
    return Principal{"fuzz", "fuzz", true};
  }
};

// Answers every route; a submission goes through the real job reader.
class StandIn : public squeeze::JobService {
 public:
  ApiResult Submit(const Principal&, const std::string& body) override {
    auto job = squeeze::ParseJobJson(body, 1780000000);
    if (!job.ok()) return ApiResult::Fail(400, job.status().message());
    return ApiResult::Ok({{"id", 1}, {"name", job->spec.name}});
  }
  ApiResult List(const Principal&, const Query& q) override { return Echo(q); }
  ApiResult Get(const Principal&, int64_t id) override { return Id(id); }
  ApiResult Cancel(const Principal&, int64_t id) override { return Id(id); }
  ApiResult Why(const Principal&, int64_t id) override { return Id(id); }
  ApiResult Log(const Principal&, int64_t id, const Query& q) override { return Echo(q); }
  ApiResult Nodes(const Principal&) override { return Echo({}); }
  ApiResult Pools(const Principal&) override { return Echo({}); }
  ApiResult HeldIdle(const Principal&) override { return Echo({}); }
  ApiResult History(const Principal&, const Query& q) override { return Echo(q); }
  ApiResult IdleWindows(const Principal&, const Query& q) override { return Echo(q); }
  ApiResult Cost(const Principal&, const Query& q) override { return Echo(q); }
  ApiResult ReclaimNode(const Principal&, const std::string& node,
                        const std::string& body) override {
    return ApiResult::Ok({{"node", node}, {"body", body.size()}});
  }
  ApiResult ReturnNode(const Principal&, const std::string& node) override {
    return ApiResult::Ok({{"node", node}});
  }
  ApiResult Telemetry(const Principal&, const std::string& body) override {
    nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    return j.is_discarded() ? ApiResult::Fail(400, "not JSON") : ApiResult::Ok({{"ok", true}});
  }
  std::string MetricsText() override { return "squeeze_up 1\n"; }

 private:
  static ApiResult Echo(const Query& q) { return ApiResult::Ok({{"query", q}}); }
  static ApiResult Id(int64_t id) { return ApiResult::Ok({{"id", id}}); }
};

struct Server {
  StandIn service;
  OneToken tokens;
  std::unique_ptr<squeeze::ApiServer> api;
  int port = 0;

  Server() {
    squeeze::ApiOptions options;
    options.port = 0;
    api = std::make_unique<squeeze::ApiServer>(service, tokens, options);
    if (!api->Start().ok()) std::abort();
    port = api->port();
  }
};

// Sends `data`, closes the sending side and reads the whole reply (at most 2 s).
std::string Exchange(int port, const uint8_t* data, size_t size) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  std::string reply;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    for (size_t sent = 0; sent < size;) {
      const ssize_t n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    shutdown(fd, SHUT_WR);
    char buf[65536];
    pollfd p{fd, POLLIN, 0};
    while (poll(&p, 1, 2000) > 0) {
      const ssize_t n = recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) break;
      reply.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  return reply;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Server* server = new Server();  // one for the whole run, as a daemon has
  const std::string reply = Exchange(server->port, data, size);
  (void)squeeze::ParseHttpReply(reply);
  (void)squeeze::ParseHttpReply(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
