#include "serve/http_connection.h"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <limits>

namespace squeeze {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;

// A refused or failed connection drains what its client still sends for a moment before it
// closes, so that the client reads the answer instead of a reset.
constexpr int kLingerSeconds = 2;
constexpr int kRefusalWriteSeconds = 2;

// A request the parser refused (not a network error: those just end the connection).
bool IsHttpError(const error_code& ec) {
  return ec.category() == http::make_error_code(http::error::end_of_stream).category();
}

HttpResponse RunGuarded(const std::function<HttpResponse()>& f) {
  try {
    return f();
  } catch (...) {
    return JsonError(500, "internal error", ErrorKind::kInternal);
  }
}

// The handler's reply to a request's head; an exception it throws is a 500.
HeadReply HeadReplyOf(const HttpServer::Handler& handler, HttpRequest& request) {
  try {
    return handler(request);
  } catch (...) {
    return HeadReply::Now(JsonError(500, "internal error", ErrorKind::kInternal));
  }
}

// The answer to `body` of a head whose reply asked for it.
HttpResponse AnswerBody(HeadReply& reply, const std::string& body) {
  auto answer = std::move(reply.after_body);
  return answer ? RunGuarded([&] { return answer(body); })
                : JsonError(500, "internal error", ErrorKind::kInternal);
}

}  // namespace

Connection::Connection(ServerShared& shared, Socket socket, HttpPeer peer, bool counted)
    : shared_(shared), socket_(std::move(socket)), peer_(std::move(peer)), counted_(counted),
      timer_(shared.io),
      buffer_(shared.limits.max_head_bytes + 64 * 1024) {}

Connection::~Connection() {
  shared_.live.erase(this);
  if (counted_) shared_.counter.Close(peer_.key);
  if (refusal_) --shared_.refusing;
}

void Connection::Register() { shared_.live[this] = weak_from_this(); }

void Connection::Close() {
  Disarm();
  error_code ignored;
  socket_.close(ignored);
}

void Connection::Arm(int64_t seconds) {
  const uint64_t generation = ++timer_generation_;
  expired_ = false;
  timer_.expires_after(std::chrono::seconds(seconds));
  timer_.async_wait([weak = weak_from_this(), generation](error_code ec) {
    auto self = weak.lock();
    if (!self || ec || generation != self->timer_generation_) return;
    self->expired_ = true;
    error_code ignored;
    self->socket_.cancel(ignored);  // the operation in flight ends with operation_aborted
  });
}

void Connection::Disarm() {
  ++timer_generation_;
  timer_.cancel();
}

void Connection::Serve() {
  Register();
  WaitForRequest();
}

void Connection::Refuse(const std::string& why) {
  Register();
  refusal_ = true;
  ++shared_.refusing;
  Respond(JsonError(503, why), true);
}

// Until a request's first byte the connection is idle (a keep-alive one between requests);
// from it on, the whole head has its own deadline.
void Connection::WaitForRequest() {
  head_.emplace();
  head_->header_limit(static_cast<std::uint32_t>(shared_.limits.max_head_bytes));
  // The body's limit is checked once the handler asked for the body, after the token.
  head_->body_limit(std::numeric_limits<std::uint64_t>::max());
  body_.reset();
  after_body_ = nullptr;
  head_only_ = false;
  if (buffer_.size() > 0) return ReadHead();  // the next request came with the last one
  Arm(shared_.limits.idle_timeout_s);
  socket_.async_wait(Socket::wait_read, [self = shared_from_this()](error_code ec) {
    if (ec || self->expired_) return self->Close();
    self->ReadHead();
  });
}

void Connection::ReadHead() {
  Arm(shared_.limits.head_timeout_s);
  http::async_read_header(socket_, buffer_, *head_,
                          [self = shared_from_this()](error_code ec, size_t) { self->OnHead(ec); });
}

void Connection::OnHead(error_code ec) {
  const bool late = expired_;
  Disarm();
  const ServeLimits& l = shared_.limits;
  if (late) {
    return Fail(408, "the request head did not arrive within " + std::to_string(l.head_timeout_s) +
                         " s (squeeze serve --request-timeout)");
  }
  if (ec == http::error::end_of_stream) return Close();  // the client closed between requests
  if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
    return Fail(431, "request line and headers over " + std::to_string(l.max_head_bytes) + " bytes");
  }
  if (ec && IsHttpError(ec)) return Fail(400, "bad request: " + ec.message());
  if (ec) return Close();  // reset, or the server stops
  HttpRequest request = RequestOfHead();
  if (std::optional<std::string> body = BodyAlreadyHere()) {
    return DispatchWhole(std::move(request), std::move(*body));
  }
  Dispatch(std::move(request));
}

// The body of a request whose whole body came with its head (a small POST, often one segment),
// taken from the bytes read already: head and body then go to one worker task, not to two in
// turn with a trip through this thread between them. Nothing is waited for before the head's
// handler has run (the token is still checked first for every body that is not here yet); a
// chunked body, one over kBodyWithHeadBytes or the limit, one not all here, or one behind
// 100-continue goes the usual way. So a caller without a token makes the daemon copy at most
// that much before it is refused (the hostile test body_before_token).
std::optional<std::string> Connection::BodyAlreadyHere() {
  if (head_->is_done() || head_->chunked()) return std::nullopt;
  const auto length = head_->content_length();  // a boost::optional
  if (!length || *length > kBodyWithHeadBytes || *length > shared_.limits.max_body_bytes) {
    return std::nullopt;
  }
  if (boost::beast::iequals(head_->get()[http::field::expect], "100-continue")) return std::nullopt;
  if (*length > buffer_.size()) {
    // The rest may be in the kernel already (a client that writes head and body apart): taken
    // when all of it is, with reads that cannot block.
    error_code ec;
    const size_t missing = static_cast<size_t>(*length) - buffer_.size();
    if (socket_.available(ec) < missing || ec) return std::nullopt;
    const size_t got = socket_.read_some(buffer_.prepare(missing), ec);
    buffer_.commit(got);
    if (ec || *length > buffer_.size()) return std::nullopt;  // the usual way reads the rest
  }
  const auto here = buffer_.data();
  std::string body(static_cast<const char*>(here.data()), static_cast<size_t>(*length));
  buffer_.consume(static_cast<size_t>(*length));
  ++shared_.bodies_with_head;
  return body;
}

void Connection::DispatchWhole(HttpRequest request, std::string body) {
  auto task = [self = shared_from_this(), request = std::move(request),
               body = std::move(body)]() mutable {
    HeadReply reply = HeadReplyOf(self->shared_.handler, request);
    HttpResponse response = reply.now ? std::move(*reply.now) : AnswerBody(reply, body);
    asio::io_context& io = self->shared_.io;
    asio::post(io, [self = std::move(self), response = std::move(response)]() mutable {
      self->Respond(std::move(response), false);  // its body was read: the connection goes on
    });
  };
  shared_.pool.Submit(peer_.key, std::move(task));
}

HttpRequest Connection::RequestOfHead() {
  const auto& h = head_->get();
  HttpRequest request;
  request.method = std::string(h.method_string());
  head_only_ = h.method() == http::verb::head;
  if (head_only_) request.method = "GET";
  const std::string_view target(h.target().data(), h.target().size());
  const size_t question = target.find('?');
  request.path = PercentDecode(target.substr(0, question), false);
  if (question != std::string_view::npos) request.params = ParseQuery(target.substr(question + 1));
  for (const auto& field : h) {
    request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  request.has_body = !head_->is_done();
  request.peer = peer_;
  keep_alive_ = h.keep_alive();
  version_ = h.version();
  return request;
}

// The handler runs on a worker; its reply comes back here. A request that wants its body and
// sent none is answered on the same worker.
void Connection::Dispatch(HttpRequest request) {
  auto task = [self = shared_from_this(), request = std::move(request)]() mutable {
    HeadReply reply = HeadReplyOf(self->shared_.handler, request);
    if (!reply.now && !request.has_body) reply = HeadReply::Now(AnswerBody(reply, ""));
    asio::io_context& io = self->shared_.io;
    asio::post(io, [self = std::move(self), reply = std::move(reply)]() mutable {
      self->OnHeadReply(std::move(reply));
    });
  };
  shared_.pool.Submit(peer_.key, std::move(task));
}

void Connection::OnHeadReply(HeadReply reply) {
  if (reply.now) return Respond(std::move(*reply.now), !head_->is_done());  // a body not read
  const ServeLimits& l = shared_.limits;
  if (head_->content_length() && *head_->content_length() > l.max_body_bytes) {
    return Fail(413, "request body over " + std::to_string(l.max_body_bytes) + " bytes");
  }
  after_body_ = std::move(reply.after_body);
  const auto& h = head_->get();
  const bool expects_continue = boost::beast::iequals(h[http::field::expect], "100-continue");
  body_.emplace(std::move(*head_));
  body_->body_limit(l.max_body_bytes);
  if (!expects_continue) return ReadBody();
  static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
  Arm(l.write_timeout_s);
  asio::async_write(socket_, asio::buffer(kContinue),
                    [self = shared_from_this()](error_code ec, size_t) {
                      self->Disarm();
                      if (ec || self->expired_) return self->Close();
                      self->ReadBody();
                    });
}

void Connection::ReadBody() {
  Arm(shared_.limits.body_timeout_s);
  http::async_read(socket_, buffer_, *body_,
                   [self = shared_from_this()](error_code ec, size_t) { self->OnBody(ec); });
}

void Connection::OnBody(error_code ec) {
  const bool late = expired_;
  Disarm();
  const ServeLimits& l = shared_.limits;
  if (late) {
    return Fail(408, "the request body did not arrive within " + std::to_string(l.body_timeout_s) +
                         " s (squeeze serve --body-timeout)");
  }
  if (ec == http::error::body_limit) {
    return Fail(413, "request body over " + std::to_string(l.max_body_bytes) + " bytes");
  }
  if (ec && IsHttpError(ec)) {
    return Fail(400, "the request body could not be read (cut short, or bad chunked encoding)");
  }
  if (ec) return Close();
  auto task = [self = shared_from_this(), body = std::move(body_->get().body()),
               answer = std::move(after_body_)]() mutable {
    HttpResponse response = RunGuarded([&] { return answer(body); });
    asio::io_context& io = self->shared_.io;
    asio::post(io, [self = std::move(self), response = std::move(response)]() mutable {
      self->Respond(std::move(response), false);
    });
  };
  shared_.pool.Submit(peer_.key, std::move(task));
}

void Connection::Fail(int status, const std::string& message) {
  Respond(JsonError(status, message), true);
}

void Connection::Respond(HttpResponse r, bool close) {
  close = close || r.close || !keep_alive_;
  response_.emplace();
  auto& res = *response_;
  res.version(version_ == 10 ? 10 : 11);
  res.result(static_cast<unsigned>(r.status));
  if (!r.content_type.empty()) res.set(http::field::content_type, r.content_type);
  for (const auto& [name, value] : r.headers) res.insert(name, value);
  res.body() = std::move(r.body);
  res.keep_alive(!close);
  res.prepare_payload();
  writer_.emplace(res);
  Arm(refusal_ ? kRefusalWriteSeconds : shared_.limits.write_timeout_s);
  auto done = [self = shared_from_this(), close](error_code ec, size_t) { self->OnWritten(ec, close); };
  if (head_only_) {
    http::async_write_header(socket_, *writer_, std::move(done));
  } else {
    http::async_write(socket_, *writer_, std::move(done));
  }
}

void Connection::OnWritten(error_code ec, bool close) {
  const bool late = expired_;
  Disarm();
  writer_.reset();
  response_.reset();
  if (ec || late) return Close();
  if (!close) return WaitForRequest();
  // What the client may still send (a body not read) is drained a moment, at most a few bodies.
  Linger(kLingerSeconds, 4 * shared_.limits.max_body_bytes + (1u << 20));
}

void Connection::Linger(int seconds, size_t most_bytes) {
  error_code ignored;
  socket_.shutdown(Socket::shutdown_send, ignored);
  buffer_.consume(buffer_.size());
  drain_.resize(16 * 1024);
  drained_ = 0;
  Arm(seconds);
  Drain(most_bytes);
}

void Connection::Drain(size_t most_bytes) {
  socket_.async_read_some(asio::buffer(drain_), [self = shared_from_this(), most_bytes](
                                                    error_code ec, size_t n) {
    self->drained_ += n;
    if (ec || self->expired_ || self->drained_ > most_bytes) return self->Close();
    self->Drain(most_bytes);
  });
}

}  // namespace squeeze
