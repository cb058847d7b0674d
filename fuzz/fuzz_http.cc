// libFuzzer target: the HTTP layer of `squeeze serve` as a client meets it. Each input is sent
// as it is to the daemon's real ApiServer (its Boost.Beast server with squeeze's routes, token
// check, query, head and body limits, chunked bodies), once on a loopback TCP port of this
// process and once on its Unix socket, where the caller is known by its credentials (the
// local users' path, no token); a job body reaches the real JSON job reader
// (config/job_file.h). Only the queue behind the routes is a stand-in: it answers every call
// and does nothing. Each reply is then read back by the Unix socket client's reply parser
// (serve/unix_http.h), and the input itself is given to it too.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "config/job_file.h"
#include "exec/unix_account.h"
#include "serve/api_server.h"
#include "serve/local_users.h"
#include "serve/testing/sockets.h"
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
    auto job = squeeze::ParseJobJson(body, squeeze::Seconds(1780000000));
    if (!job.ok()) return ApiResult::Fail(400, job.status().message());
    return ApiResult::Ok({{"id", 1}, {"name", job->spec.name}});
  }
  ApiResult List(const Principal&, const Query& q) override { return Echo(q); }
  ApiResult Get(const Principal&, int64_t id) override { return Id(id); }
  ApiResult Cancel(const Principal&, int64_t id) override { return Id(id); }
  ApiResult Why(const Principal&, int64_t id) override { return Id(id); }
  ApiResult Log(const Principal&, int64_t id, const Query& q) override { return Echo(q); }
  ApiResult Environment(const Principal&, int64_t id) override { return Id(id); }
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
  std::unique_ptr<squeeze::LocalUsers> local;
  std::unique_ptr<squeeze::ApiServer> api;
  std::string socket_path;
  int port = 0;

  Server() {
    auto me = squeeze::CurrentAccount();
    if (!me.ok()) std::abort();
    local = std::make_unique<squeeze::LocalUsers>(
        tokens, "", squeeze::RunAsPolicy::For(geteuid(), me->name, false), geteuid());
    char dir[] = "/tmp/squeeze-fuzz-http-XXXXXX";
    if (mkdtemp(dir) == nullptr) std::abort();
    socket_path = std::string(dir) + "/squeeze.sock";
    squeeze::ApiOptions options;
    options.port = 0;
    options.socket_path = socket_path;
    api = std::make_unique<squeeze::ApiServer>(service, tokens, options, local.get());
    if (!api->Start().ok()) std::abort();
    port = api->port();
  }
};

// Sends `data`, closes the sending side and reads the whole reply (at most 2 s).
std::string Exchange(int port, const std::string& path, const uint8_t* data, size_t size) {
  const int fd = path.empty() ? squeeze::testing::ConnectLoopback(port)
                              : squeeze::testing::ConnectUnix(path);
  std::string reply;
  if (fd >= 0) {
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
  if (fd >= 0) close(fd);
  return reply;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Server* server = new Server();  // one for the whole run, as a daemon has
  for (const std::string& path : {std::string(), server->socket_path}) {
    (void)squeeze::ParseHttpReply(Exchange(server->port, path, data, size));
  }
  (void)squeeze::ParseHttpReply(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
