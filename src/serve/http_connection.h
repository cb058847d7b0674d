// One connection of the API's server (serve/http_server.h), and what all of them share. Private
// to http_server.cc and http_connection.cc, the only files that see Boost: nothing else
// includes this header. Everything here runs on the server's one I/O thread, but the handler
// calls, which run on the WorkerPool and come back to the I/O thread to answer.
#ifndef SQUEEZE_SERVE_HTTP_CONNECTION_H_
#define SQUEEZE_SERVE_HTTP_CONNECTION_H_

#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "serve/http_server.h"
#include "serve/serve_limits.h"
#include "serve/worker_pool.h"

namespace squeeze {

class Connection;

// Owned by HttpServer::Impl; outlives every connection.
struct ServerShared {
  ServerShared(boost::asio::io_context& io_context, const ServeLimits& server_limits,
               HttpServer::Handler server_handler, WorkerPool& worker_pool)
      : io(io_context), limits(server_limits), handler(std::move(server_handler)),
        pool(worker_pool), counter(server_limits) {}
  boost::asio::io_context& io;
  const ServeLimits limits;
  const HttpServer::Handler handler;
  WorkerPool& pool;
  ConnectionCounter counter;
  int refusing = 0;  // connections over a cap being answered 503
  // Requests whose whole body came with their head, answered by one worker task.
  std::atomic<uint64_t> bodies_with_head{0};
  std::map<const Connection*, std::weak_ptr<Connection>> live;  // closed by Stop
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // The largest body taken with its head, before the head's handler (the token) has run.
  static constexpr uint64_t kBodyWithHeadBytes = 64 * 1024;
  using Socket = boost::asio::generic::stream_protocol::socket;
  // `counted`: the connection is in shared.counter (Close is called for it when it ends).
  Connection(ServerShared& shared, Socket socket, HttpPeer peer, bool counted);
  ~Connection();
  // Answers requests until the peer closes, a limit ends it or the server stops.
  void Serve();
  // Answers 503 with `why` and closes.
  void Refuse(const std::string& why);
  // Closes the socket at once (the server stops).
  void Close();

 private:
  void Register();
  void WaitForRequest();
  void ReadHead();
  void OnHead(boost::system::error_code ec);
  HttpRequest RequestOfHead();
  void Dispatch(HttpRequest request);
  std::optional<std::string> BodyAlreadyHere();
  void DispatchWhole(HttpRequest request, std::string body);
  void OnHeadReply(HeadReply reply);
  void ReadBody();
  void OnBody(boost::system::error_code ec);
  void Respond(HttpResponse response, bool close);
  void Fail(int status, const std::string& message);
  void OnWritten(boost::system::error_code ec, bool close);
  void Linger(int seconds, size_t most_bytes);
  void Drain(size_t most_bytes);
  void Arm(int64_t seconds);
  void Disarm();

  ServerShared& shared_;
  Socket socket_;
  const HttpPeer peer_;
  const bool counted_;
  bool refusal_ = false;
  boost::asio::steady_timer timer_;
  uint64_t timer_generation_ = 0;
  bool expired_ = false;  // the deadline of the operation in flight passed
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::empty_body>> head_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> body_;
  std::function<HttpResponse(const std::string&)> after_body_;
  bool head_only_ = false;  // a HEAD request: the answer's header alone
  bool keep_alive_ = true;
  unsigned version_ = 11;
  std::optional<boost::beast::http::response<boost::beast::http::string_body>> response_;
  std::optional<boost::beast::http::response_serializer<boost::beast::http::string_body>> writer_;
  std::string drain_;
  size_t drained_ = 0;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_HTTP_CONNECTION_H_
