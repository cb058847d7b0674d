#include "serve/http_server.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "serve/http_connection.h"
#include "serve/socket_owner.h"

namespace squeeze {
namespace {

namespace asio = boost::asio;
using boost::system::error_code;
using Tcp = asio::ip::tcp;
using Local = asio::local::stream_protocol;

// Refusals answered at once beyond this many are closed without an answer (each holds a
// descriptor for up to a few seconds).
constexpr int kMaxRefusing = 64;

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Out of descriptors or memory for now: accepting again later may work.
bool Transient(const error_code& ec) {
  return ec == asio::error::no_descriptors || ec == asio::error::no_memory ||
         ec == asio::error::no_buffer_space || ec.value() == ENFILE;
}

}  // namespace

struct HttpServer::Impl {
  Impl(ServeLimits server_limits, Handler server_handler, Logger logger)
      : limits(server_limits), handler(std::move(server_handler)), log(std::move(logger)) {}

  void AcceptTcp();
  void AcceptUnix();
  // After an accept failed for want of descriptors or memory: `again` in 100 ms (true), or
  // false for another error.
  bool Retry(const error_code& ec, asio::steady_timer& timer, std::function<void()> again);
  void Admit(Connection::Socket socket, HttpPeer peer);

  const ServeLimits limits;
  const Handler handler;
  const Logger log;
  std::unique_ptr<WorkerPool> pool;
  std::unique_ptr<ServerShared> shared;
  // Destroyed before `shared`: its pending handlers own the connections.
  asio::io_context io{1};
  std::optional<Tcp::acceptor> tcp;
  std::optional<Local::acceptor> unix_socket;
  asio::steady_timer tcp_retry{io};
  asio::steady_timer unix_retry{io};
  std::string unix_path;
  int port = 0;
  std::thread thread;
  bool started = false;
  int64_t full_logged_at = -1000;
};

bool HttpServer::Impl::Retry(const error_code& ec, asio::steady_timer& timer,
                             std::function<void()> again) {
  if (!Transient(ec)) return false;
  if (NowSeconds() - full_logged_at >= 60 && log) {
    full_logged_at = NowSeconds();
    log("API: cannot accept a connection now (" + ec.message() + "); retrying every 100 ms");
  }
  timer.expires_after(std::chrono::milliseconds(100));
  timer.async_wait([again](error_code e) {
    if (!e) again();
  });
  return true;
}

void HttpServer::Impl::AcceptTcp() {
  tcp->async_accept([this](error_code ec, Tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !tcp->is_open()) return;
    if (ec) {
      if (!Retry(ec, tcp_retry, [this] { AcceptTcp(); })) AcceptTcp();
      return;
    }
    error_code ignored;
    // Small requests and answers: without TCP_NODELAY each waits for a delayed ACK (~40 ms).
    socket.set_option(Tcp::no_delay(true), ignored);
    const Tcp::endpoint remote = socket.remote_endpoint(ignored);
    HttpPeer peer;
    peer.address = remote.address().to_string();
    const std::optional<uid_t> owner =
        IsLoopback(peer.address) ? LoopbackPeerOwner(socket.native_handle()) : std::nullopt;
    peer.key = TcpPeerKey(peer.address, owner);
    Admit(Connection::Socket(std::move(socket)), std::move(peer));
    AcceptTcp();
  });
}

void HttpServer::Impl::AcceptUnix() {
  unix_socket->async_accept([this](error_code ec, Local::socket socket) {
    if (ec == asio::error::operation_aborted || !unix_socket->is_open()) return;
    if (ec) {
      if (!Retry(ec, unix_retry, [this] { AcceptUnix(); })) AcceptUnix();
      return;
    }
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (getsockopt(socket.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
      HttpPeer peer;
      peer.key = PeerKeyOfUid(cred.uid);
      peer.address = "unix";
      peer.local = PeerCredentials{cred.uid, cred.gid, cred.pid};
      Admit(Connection::Socket(std::move(socket)), std::move(peer));
    }
    AcceptUnix();
  });
}

void HttpServer::Impl::Admit(Connection::Socket socket, HttpPeer peer) {
  const ConnectionCounter::Admit admit = shared->counter.TryOpen(peer.key);
  if (admit == ConnectionCounter::Admit::kOk) {
    std::make_shared<Connection>(*shared, std::move(socket), std::move(peer), true)->Serve();
    return;
  }
  const std::string why = shared->counter.RefusalText(admit);
  if (log && shared->counter.ShouldLog(peer.key, NowSeconds())) {
    log("API: refused a connection of " + peer.key +
        (peer.address == "unix" ? " on the socket" : " from " + peer.address) + ": " + why +
        " (more refusals of this peer are not logged for a minute)");
  }
  if (shared->refusing >= kMaxRefusing) return;  // closed unanswered
  std::make_shared<Connection>(*shared, std::move(socket), std::move(peer), false)->Refuse(why);
}

HttpServer::HttpServer(ServeLimits limits, Handler handler, Logger log)
    : impl_(std::make_unique<Impl>(limits, std::move(handler), std::move(log))) {}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::ListenTcp(const std::string& host, int port) {
  const std::string where = "cannot listen on " + host + ":" + std::to_string(port);
  error_code ec;
  Tcp::endpoint endpoint(asio::ip::make_address(host, ec), static_cast<unsigned short>(port));
  if (ec) {
    Tcp::resolver resolver(impl_->io);
    auto found = resolver.resolve(host, std::to_string(port), ec);
    if (ec || found.empty()) return Status::Error(where + " (not an address here)");
    endpoint = found.begin()->endpoint();
  }
  Tcp::acceptor& acceptor = impl_->tcp.emplace(impl_->io);
  if (acceptor.open(endpoint.protocol(), ec) ||
      acceptor.set_option(Tcp::acceptor::reuse_address(true), ec) ||
      acceptor.bind(endpoint, ec) || acceptor.listen(asio::socket_base::max_listen_connections, ec)) {
    impl_->tcp.reset();
    return Status::Error(where + " (in use, or not an address here)");
  }
  impl_->port = acceptor.local_endpoint(ec).port();
  return Status::Ok();
}

Status HttpServer::ListenUnix(const std::string& path) {
  if (path.size() >= sizeof(sockaddr_un{}.sun_path)) {
    return Status::Error("--socket: '" + path + "' is longer than " +
                         std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) + " bytes");
  }
  unlink(path.c_str());  // an earlier daemon's; this one holds the data directory
  Local::acceptor& acceptor = impl_->unix_socket.emplace(impl_->io);
  error_code ec;
  if (acceptor.open(Local(), ec) || acceptor.bind(Local::endpoint(path), ec) ||
      chmod(path.c_str(), 0666) != 0 ||
      acceptor.listen(asio::socket_base::max_listen_connections, ec)) {
    const std::string why = ec ? ec.message() : std::strerror(errno);
    impl_->unix_socket.reset();
    return Status::Error("--socket: cannot listen on " + path + ": " + why);
  }
  impl_->unix_path = path;
  return Status::Ok();
}

void HttpServer::Start() {
  Impl& s = *impl_;
  s.pool = std::make_unique<WorkerPool>(s.limits.workers, s.limits.max_busy_per_peer());
  s.shared = std::make_unique<ServerShared>(s.io, s.limits, s.handler, *s.pool);
  if (s.tcp) s.AcceptTcp();
  if (s.unix_socket) s.AcceptUnix();
  s.started = true;
  s.thread = std::thread([&s] {
    auto busy = asio::make_work_guard(s.io);
    s.io.run();
  });
}

void HttpServer::Stop() {
  Impl& s = *impl_;
  if (!s.started) return;
  s.started = false;
  s.io.stop();
  if (s.thread.joinable()) s.thread.join();
  s.pool->Stop();  // what the handlers answer now is never sent
  error_code ignored;
  if (s.tcp) s.tcp->close(ignored);
  if (s.unix_socket) s.unix_socket->close(ignored);
  for (auto& [raw, weak] : std::map(s.shared->live)) {
    if (auto c = weak.lock()) c->Close();
  }
  if (!s.unix_path.empty()) unlink(s.unix_path.c_str());
}

int HttpServer::tcp_port() const { return impl_->port; }

uint64_t HttpServer::BodiesWithHead() const {
  return impl_->shared ? impl_->shared->bodies_with_head.load() : 0;
}

}  // namespace squeeze
