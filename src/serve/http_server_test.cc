// The API's server under hostile clients, on real sockets: slow heads, endless lines, bodies
// nobody asked for, bodies that never end, more connections than a peer may hold, and many idle
// connections while others are served. Deadlines here are 1 s; nothing asserts a duration.
#include "serve/http_server.h"

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "core/testing/temp_dir.h"
#include "serve/testing/sockets.h"

namespace squeeze {
namespace {

using ::squeeze::testing::ConnectUnix;
int ConnectTcp(int port) { return ::squeeze::testing::ConnectLoopback(port); }

bool Send(int fd, const std::string& data) {
  return send(fd, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
}

// What arrives until the server closes, or `wait_ms` passes with nothing new; `closed` says which.
std::string Read(int fd, int wait_ms, bool* closed = nullptr) {
  std::string out;
  char buf[65536];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, wait_ms) <= 0) break;
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) {
      if (closed) *closed = true;
      return out;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  if (closed) *closed = false;
  return out;
}

// One reply: up to the end of its head and its Content-Length (an interim 100 has none), or
// what came before the server closed or `wait_ms` passed with nothing new.
std::string ReadReply(int fd, int wait_ms) {
  std::string out;
  char buf[65536];
  for (;;) {
    const size_t head_end = out.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      const size_t at = out.find("Content-Length: ");
      const size_t length = at == std::string::npos || at > head_end
                                ? 0
                                : std::stoul(out.substr(at + 16));
      if (out.size() >= head_end + 4 + length) return out;
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, wait_ms) <= 0) return out;
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
}

class HttpServerTest : public ::testing::Test {
 protected:
  void Start(ServeLimits limits) {
    limits_ = limits;
    server_ = std::make_unique<HttpServer>(
        limits, [this](HttpRequest& r) { return Handle(r); },
        [this](const std::string& line) {
          std::lock_guard l(mu_);
          logged_.push_back(line);
        });
    ASSERT_TRUE(server_->ListenTcp("127.0.0.1", 0).ok());
    socket_ = temp_.path() + "/s.sock";
    ASSERT_TRUE(server_->ListenUnix(socket_).ok());
    server_->Start();
  }
  static ServeLimits Small() {
    ServeLimits l;
    l.workers = 2;
    l.max_connections_per_peer = 50;
    l.max_connections = 100;
    l.max_head_bytes = 1024;
    l.max_body_bytes = 64;
    l.head_timeout_s = 1;
    l.body_timeout_s = 1;
    l.idle_timeout_s = 1;
    return l;
  }
  HeadReply Handle(HttpRequest& r) {
    HttpResponse out;
    out.content_type = "text/plain";
    if (r.method == "POST") {
      HeadReply reply;
      reply.after_body = [](const std::string& body) {
        HttpResponse got;
        got.body = "body " + std::to_string(body.size());
        return got;
      };
      return reply;
    }
    out.body = r.method + " " + r.path + " " + r.peer.key +
               (r.peer.local ? " local " + std::to_string(r.peer.local->uid) : "");
    return HeadReply::Now(out);
  }
  int port() const { return server_->tcp_port(); }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  ::squeeze::testing::TempDir temp_{"squeeze-http"};
  ServeLimits limits_;
  std::unique_ptr<HttpServer> server_;
  std::string socket_;
  std::mutex mu_;
  std::vector<std::string> logged_;
};

const std::string kGet = "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n";

TEST_F(HttpServerTest, AnswersOnTcpAndOnTheSocketKnowingThePeer) {
  Start(Small());
  const std::string me = "uid " + std::to_string(geteuid());
  const int tcp = ConnectTcp(port());
  ASSERT_TRUE(Send(tcp, kGet));
  const std::string a = ReadReply(tcp, 2000);
  EXPECT_EQ(a.rfind("HTTP/1.1 200", 0), 0u) << a;
  EXPECT_NE(a.find("GET /echo " + me), std::string::npos) << a;  // loopback: the kernel's uid
  EXPECT_EQ(a.find(" local "), std::string::npos) << a;
  const int local = ConnectUnix(socket_);
  ASSERT_TRUE(Send(local, kGet));
  const std::string b = ReadReply(local, 2000);
  EXPECT_NE(b.find("GET /echo " + me + " local " + std::to_string(geteuid())), std::string::npos) << b;
  close(tcp);
  close(local);
}

TEST_F(HttpServerTest, ASlowHeadIsCutOffAtItsDeadlineNotPerRead) {
  Start(Small());
  const int fd = ConnectTcp(port());
  ASSERT_TRUE(Send(fd, "GET /echo HTTP/1.1\r\n"));
  std::string reply;
  bool closed = false;
  // A header byte every 200 ms: each read is quick, the head never ends. At most 10 s of it.
  for (int i = 0; i < 50 && !closed; ++i) {
    if (!Send(fd, "X")) break;
    reply += Read(fd, 200, &closed);
  }
  reply += Read(fd, 2000, &closed);
  EXPECT_EQ(reply.rfind("HTTP/1.1 408", 0), 0u) << reply;
  EXPECT_NE(reply.find("--request-timeout"), std::string::npos) << reply;
  EXPECT_TRUE(closed);
  close(fd);
}

TEST_F(HttpServerTest, ALineWithoutEndIsRefusedAtTheHeadLimit) {
  Start(Small());
  const int fd = ConnectTcp(port());
  ASSERT_TRUE(Send(fd, "GET /" + std::string(8192, 'a')));
  bool closed = false;
  const std::string reply = Read(fd, 3000, &closed);
  EXPECT_EQ(reply.rfind("HTTP/1.1 431", 0), 0u) << reply.substr(0, 200);
  EXPECT_NE(reply.find("over 1024 bytes"), std::string::npos);
  EXPECT_TRUE(closed);
  close(fd);
}

TEST_F(HttpServerTest, ABodyThatCameWithItsHeadGoesToOneWorkerTask) {
  Start(Small());
  const int fd = ConnectTcp(port());
  const std::string post = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n";
  ASSERT_TRUE(Send(fd, post + "hello"));
  std::string reply = ReadReply(fd, 2000);
  EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply;
  EXPECT_NE(reply.find("body 5"), std::string::npos) << reply;
  EXPECT_EQ(server_->BodiesWithHead(), 1u);
  // On the same connection, a head whose body comes later: the usual way (head, then body).
  ASSERT_TRUE(Send(fd, post));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_TRUE(Send(fd, "world"));
  reply = ReadReply(fd, 2000);
  EXPECT_NE(reply.find("body 5"), std::string::npos) << reply;
  EXPECT_EQ(server_->BodiesWithHead(), 1u);
  // Two requests in one write: each body is cut from the bytes at its own length.
  ASSERT_TRUE(Send(fd, post + "abcde" + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nxy"));
  reply.clear();
  for (int i = 0; i < 3 && reply.find("body 2") == std::string::npos; ++i) {
    reply += ReadReply(fd, 2000);
  }
  EXPECT_NE(reply.find("body 5"), std::string::npos) << reply;
  EXPECT_NE(reply.find("body 2"), std::string::npos) << reply;
  EXPECT_EQ(server_->BodiesWithHead(), 3u);
  // Head and body in two writes at once: one way or the other, the same answer.
  ASSERT_TRUE(Send(fd, post));
  ASSERT_TRUE(Send(fd, "12345"));
  reply = ReadReply(fd, 2000);
  EXPECT_NE(reply.find("body 5"), std::string::npos) << reply;
  close(fd);
}

TEST_F(HttpServerTest, ABodyNobodyAskedForIsNotReadAndEndsTheConnection) {
  Start(Small());
  const int fd = ConnectTcp(port());
  ASSERT_TRUE(Send(fd, "GET /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\nabc"));
  bool closed = false;
  const std::string reply = Read(fd, 5000, &closed);
  EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply;
  EXPECT_NE(reply.find("Connection: close"), std::string::npos) << reply;
  EXPECT_TRUE(closed);
  close(fd);
}

TEST_F(HttpServerTest, BodiesAreBoundedInSizeAndTime) {
  Start(Small());
  const std::string post = "POST /b HTTP/1.1\r\nHost: x\r\n";
  int fd = ConnectTcp(port());
  ASSERT_TRUE(Send(fd, post + "Content-Length: 5\r\n\r\nhello"));
  EXPECT_NE(ReadReply(fd, 2000).find("body 5"), std::string::npos);
  close(fd);
  fd = ConnectTcp(port());  // declared over the limit: refused before a byte is read
  ASSERT_TRUE(Send(fd, post + "Content-Length: 65\r\n\r\n"));
  EXPECT_EQ(Read(fd, 2000).rfind("HTTP/1.1 413", 0), 0u);
  close(fd);
  fd = ConnectTcp(port());  // chunked past the limit
  ASSERT_TRUE(Send(fd, post + "Transfer-Encoding: chunked\r\n\r\n40\r\n" + std::string(64, 'a') +
                           "\r\n1\r\na\r\n"));
  EXPECT_EQ(Read(fd, 2000).rfind("HTTP/1.1 413", 0), 0u);
  close(fd);
  fd = ConnectTcp(port());  // chunked without an end
  ASSERT_TRUE(Send(fd, post + "Transfer-Encoding: chunked\r\n\r\n2\r\nab\r\n"));
  bool closed = false;
  const std::string late = Read(fd, 5000, &closed);
  EXPECT_EQ(late.rfind("HTTP/1.1 408", 0), 0u) << late;
  EXPECT_NE(late.find("--body-timeout"), std::string::npos) << late;
  EXPECT_TRUE(closed);
  close(fd);
}

TEST_F(HttpServerTest, ExpectContinueIsAnswered) {
  Start(Small());
  const int fd = ConnectTcp(port());
  ASSERT_TRUE(Send(fd, "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n"));
  EXPECT_EQ(ReadReply(fd, 2000).rfind("HTTP/1.1 100 Continue", 0), 0u);
  ASSERT_TRUE(Send(fd, "abc"));
  EXPECT_NE(ReadReply(fd, 2000).find("body 3"), std::string::npos);
  close(fd);
}

TEST_F(HttpServerTest, IdleConnectionsCostNoWorkerAndAreClosedInTime) {
  Start(Small());  // 2 workers
  std::vector<int> idle;
  for (int i = 0; i < 20; ++i) idle.push_back(i % 2 ? ConnectTcp(port()) : ConnectUnix(socket_));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(Send(idle[static_cast<size_t>(i)], "GET /ec"));
  const int fd = ConnectTcp(port());
  ASSERT_TRUE(Send(fd, kGet));
  EXPECT_EQ(ReadReply(fd, 2000).rfind("HTTP/1.1 200", 0), 0u);
  // The keep-alive connection, and the idle ones, are closed by the server within seconds.
  bool closed = false;
  Read(fd, 5000, &closed);
  EXPECT_TRUE(closed);
  for (int other : idle) {
    closed = false;
    Read(other, 5000, &closed);
    EXPECT_TRUE(closed);
    close(other);
  }
  close(fd);
}

TEST_F(HttpServerTest, APeerOverItsCapIsAnswered503AndLoggedOnce) {
  ServeLimits l = Small();
  l.max_connections_per_peer = 3;
  l.idle_timeout_s = 30;  // the held connections stay while the test looks
  Start(l);
  std::vector<int> held;
  for (int i = 0; i < 3; ++i) held.push_back(i == 0 ? ConnectUnix(socket_) : ConnectTcp(port()));
  for (int fd : held) {
    ASSERT_TRUE(Send(fd, kGet));
    EXPECT_EQ(ReadReply(fd, 2000).rfind("HTTP/1.1 200", 0), 0u);
  }
  for (int i = 0; i < 3; ++i) {  // the socket and loopback TCP are the same peer: this uid
    const int over = i % 2 ? ConnectUnix(socket_) : ConnectTcp(port());
    bool closed = false;
    const std::string reply = Read(over, 3000, &closed);
    EXPECT_EQ(reply.rfind("HTTP/1.1 503", 0), 0u) << reply;
    EXPECT_NE(reply.find("\"error\":\"too many connections from you: at most 3"),
              std::string::npos) << reply;
    EXPECT_TRUE(closed);
    close(over);
  }
  {
    std::lock_guard lock(mu_);
    ASSERT_EQ(logged_.size(), 1u);
    EXPECT_NE(logged_[0].find("uid " + std::to_string(geteuid())), std::string::npos);
  }
  close(held[0]);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the server sees the close
  const int again = ConnectTcp(port());
  ASSERT_TRUE(Send(again, kGet));
  EXPECT_EQ(ReadReply(again, 2000).rfind("HTTP/1.1 200", 0), 0u);
  close(again);
  for (size_t i = 1; i < held.size(); ++i) close(held[i]);
}

TEST_F(HttpServerTest, StopClosesEveryConnectionAndTheSocket) {
  Start(Small());
  const int fd = ConnectTcp(port());
  ASSERT_TRUE(Send(fd, "GET /ec"));
  server_->Stop();
  bool closed = false;
  Read(fd, 3000, &closed);
  EXPECT_TRUE(closed);
  EXPECT_NE(access(socket_.c_str(), F_OK), 0);
  close(fd);
}

TEST_F(HttpServerTest, AnAddressInUseIsAnError) {
  Start(Small());
  HttpServer other(Small(), [](HttpRequest&) { return HeadReply::Now({}); }, nullptr);
  const Status s = other.ListenTcp("127.0.0.1", port());
  EXPECT_EQ(s.message(), "cannot listen on 127.0.0.1:" + std::to_string(port()) +
                             " (in use, or not an address here)");
  EXPECT_NE(other.ListenUnix(std::string(200, 'x')).message().find("--socket"), std::string::npos);
}

}  // namespace
}  // namespace squeeze
