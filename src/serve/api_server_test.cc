#include "serve/api_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>

#include "serve/testing/recording_service.h"
#include "core/testing/temp_dir.h"

namespace squeeze {
namespace {

class ApiServerTest : public ServedApiTest {
 protected:
  ApiServerTest() : ServedApiTest(1024) {}
  void SetUp() override {
    ServedApiTest::SetUp();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  }
  httplib::Headers Auth() { return {{"Authorization", "Bearer " + token_}}; }
  static nlohmann::json Json(const httplib::Result& r) { return nlohmann::json::parse(r->body); }

  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ApiServerTest, HealthAndMetricsNeedNoToken) {
  auto h = client_->Get("/healthz");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  EXPECT_EQ(h->body, "ok\n");
  auto m = client_->Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body, "squeeze_up 1\n");
}

TEST_F(ApiServerTest, NoTokenOrWrongTokenIsRefusedBeforeTheService) {
  auto none = client_->Get("/v1/jobs");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(Json(none)["error"],
            "missing 'Authorization: Bearer TOKEN' header (local users need none on the daemon's "
            "Unix socket)");
  auto wrong = client_->Get("/v1/jobs", httplib::Headers{{"Authorization", "Bearer nope"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  EXPECT_EQ(Json(wrong)["error"], "unknown token");
  EXPECT_TRUE(service_.calls().empty());
}

TEST_F(ApiServerTest, RoutesWithTheCaller) {
  auto sub = client_->Post("/v1/jobs", Auth(), R"({"name":"a"})", "application/json");
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->status, 201);
  EXPECT_EQ(Json(sub)["id"], 7);
  ASSERT_TRUE(client_->Get("/v1/jobs?state=pending&limit=5", Auth()));
  ASSERT_TRUE(client_->Get("/v1/jobs/12/why", Auth()));
  auto cancel = client_->Post("/v1/jobs/12/cancel", Auth(), "", "application/json");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 403);
  EXPECT_EQ(Json(cancel)["error"], "job 12 is not yours");
  auto missing = client_->Get("/v1/jobs/404", Auth());
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(service_.calls(), (std::vector<std::string>{
                                  "submit alice {\"name\":\"a\"}", "list alice limit=5 state=pending",
                                  "why alice 12", "cancel alice 12", "get alice 404"}));
}

TEST_F(ApiServerTest, LimitsAndBadIds) {
  auto big = client_->Post("/v1/jobs", Auth(), std::string(2048, 'x'), "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_EQ(Json(big)["error"], "request body over 1024 bytes");
  auto bad = client_->Get("/v1/jobs/abc", Auth());
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(Json(bad)["error"], "job id 'abc' is not a number");
  auto long_value = client_->Get(("/v1/jobs?owner=" + std::string(300, 'a')).c_str(), Auth());
  ASSERT_TRUE(long_value);
  EXPECT_EQ(long_value->status, 400);
  auto nowhere = client_->Get("/v2/jobs", Auth());
  ASSERT_TRUE(nowhere);
  EXPECT_EQ(nowhere->status, 404);
  EXPECT_EQ(Json(nowhere)["error"], "no such endpoint");
  EXPECT_TRUE(service_.calls().empty());
}

TEST_F(ApiServerTest, RoutesTheCapacityCalls) {
  auto reclaim = client_->Post("/v1/nodes/spot-0/reclaim", Auth(), R"({"warning_s":5})",
                               "application/json");
  ASSERT_TRUE(reclaim);
  EXPECT_EQ(reclaim->status, 200);
  EXPECT_EQ(Json(reclaim)["node"], "spot-0");
  auto back = client_->Post("/v1/nodes/spot-0/return", Auth(), "", "application/json");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, 200);
  auto telemetry = client_->Post("/v1/telemetry", Auth(), R"({"gpus":[]})", "application/json");
  ASSERT_TRUE(telemetry);
  EXPECT_EQ(telemetry->status, 200);
  auto big = client_->Post("/v1/telemetry", Auth(), std::string(2048, ' '), "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  auto nobody = client_->Post("/v1/telemetry", "{}", "application/json");
  ASSERT_TRUE(nobody);
  EXPECT_EQ(nobody->status, 401);
  EXPECT_EQ(service_.calls(), (std::vector<std::string>{"reclaim alice spot-0 {\"warning_s\":5}",
                                                        "return alice spot-0",
                                                        "telemetry alice {\"gpus\":[]}"}));
}

TEST_F(ApiServerTest, RoutesTheHistoryViewsWithTheirQuery) {
  for (const std::string path : {"/v1/history?since=2d&step=30m", "/v1/idle-windows?since=28d",
                                 "/v1/cost"}) {
    auto r = client_->Get(path.c_str(), Auth());
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
  }
  auto me = client_->Get("/v1/whoami", Auth());
  ASSERT_TRUE(me);
  EXPECT_EQ(Json(me), (nlohmann::json{{"user", "alice"}, {"team", "ml"}, {"admin", false}}));
  auto nobody = client_->Get("/v1/history");
  ASSERT_TRUE(nobody);
  EXPECT_EQ(nobody->status, 401);
  EXPECT_EQ(service_.calls(), (std::vector<std::string>{"history alice since=2d step=30m",
                                                        "idle-windows alice since=28d",
                                                        "cost alice"}));
}

// What `curl -X POST` sends: no body, and no Content-Length either.
TEST_F(ApiServerTest, APostWithNoBodyAndNoLengthHasAnEmptyBody) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server_->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const std::string request = "POST /v1/nodes/spot-0/reclaim HTTP/1.1\r\nHost: x\r\n"
                              "Authorization: Bearer " + token_ + "\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
  std::string reply;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) reply.append(buf, static_cast<size_t>(n));
  close(fd);
  EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply;
  EXPECT_EQ(service_.calls(), (std::vector<std::string>{"reclaim alice spot-0 "}));
}

TEST(ParseListenTest, HostAndPort) {
  ApiOptions o;
  ASSERT_TRUE(ParseListen("0.0.0.0:9000", o).ok());
  EXPECT_EQ(o.host, "0.0.0.0");
  EXPECT_EQ(o.port, 9000);
  EXPECT_EQ(ParseListen("9000", o).message(), "--listen: '9000' is not HOST:PORT");
  EXPECT_EQ(ParseListen("h:99999", o).message(), "--listen: port '99999' is not 0..65535");
}

}  // namespace
}  // namespace squeeze

namespace squeeze {
namespace {

class ApiLogRouteTest : public ServedApiTest {};

TEST_F(ApiLogRouteTest, RoutesTheLogAndRefusesAnIdThatIsAPath) {
  httplib::Client c("127.0.0.1", server_->port());
  httplib::Headers auth = {{"Authorization", "Bearer " + token_}};
  auto ok = c.Get("/v1/jobs/5/log?attempt=2", auth);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  // A path where the id goes reaches no file: it is no route at all, or not a number.
  auto escape = c.Get("/v1/jobs/..%2F..%2Fetc%2Fpasswd/log", auth);
  ASSERT_TRUE(escape);
  EXPECT_EQ(escape->status, 404);
  auto dots = c.Get("/v1/jobs/..%2e/log", auth);
  ASSERT_TRUE(dots);
  EXPECT_EQ(dots->status, 400);
  EXPECT_NE(dots->body.find("is not a number"), std::string::npos);
  auto calls = service_.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], "log alice 5");
}

}  // namespace
}  // namespace squeeze
