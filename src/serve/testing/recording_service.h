// A JobService that records each call and answers fixed values, for testing the API layer's
// own behaviour (routing, tokens, limits, error shape) and its client; the daemon's real
// service is tested end to end with the squeeze binary. Thread-safe.
#ifndef SQUEEZE_SERVE_TESTING_RECORDING_SERVICE_H_
#define SQUEEZE_SERVE_TESTING_RECORDING_SERVICE_H_

#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <memory>

#include "core/testing/temp_dir.h"
#include "serve/api_server.h"
#include "serve/job_service.h"

namespace squeeze {

class RecordingService : public JobService {
 public:
  ApiResult Submit(const Principal& who, const std::string& body) override {
    Record("submit " + who.user + " " + body);
    return ApiResult::Ok({{"id", 7}});
  }
  ApiResult List(const Principal& who, const std::map<std::string, std::string>& q) override {
    std::string args;
    for (const auto& [k, v] : q) args += " " + k + "=" + v;
    Record("list " + who.user + args);
    return ApiResult::Ok(nlohmann::json::array());
  }
  ApiResult Get(const Principal& who, int64_t id) override {
    Record("get " + who.user + " " + std::to_string(id));
    if (id == 404) return ApiResult::Fail(404, "no job 404");
    return ApiResult::Ok({{"id", id}});
  }
  ApiResult Cancel(const Principal& who, int64_t id) override {
    Record("cancel " + who.user + " " + std::to_string(id));
    return ApiResult::Fail(403, "job " + std::to_string(id) + " is not yours");
  }
  ApiResult Why(const Principal& who, int64_t id) override {
    Record("why " + who.user + " " + std::to_string(id));
    return ApiResult::Ok({{"id", id}});
  }
  ApiResult Environment(const Principal& who, int64_t id) override {
    Record("env " + who.user + " " + std::to_string(id));
    return ApiResult::Ok({{"id", id}, {"env", nlohmann::json::object()}});
  }
  ApiResult Log(const Principal& who, int64_t id,
                const std::map<std::string, std::string>& q) override {
    Record("log " + who.user + " " + std::to_string(id));
    return ApiResult::Ok({{"id", id}, {"text", ""}});
  }
  ApiResult Nodes(const Principal& who) override { return ApiResult::Ok(nlohmann::json::array()); }
  ApiResult Pools(const Principal& who) override { return ApiResult::Ok(nlohmann::json::array()); }
  ApiResult HeldIdle(const Principal& who) override {
    return ApiResult::Ok({{"jobs", nlohmann::json::array()}});
  }
  ApiResult History(const Principal& who, const std::map<std::string, std::string>& q) override {
    return Query("history", who, q);
  }
  ApiResult IdleWindows(const Principal& who,
                        const std::map<std::string, std::string>& q) override {
    return Query("idle-windows", who, q);
  }
  ApiResult Cost(const Principal& who, const std::map<std::string, std::string>& q) override {
    return Query("cost", who, q);
  }
  ApiResult ReclaimNode(const Principal& who, const std::string& node,
                        const std::string& body) override {
    Record("reclaim " + who.user + " " + node + " " + body);
    return ApiResult::Ok({{"node", node}});
  }
  ApiResult ReturnNode(const Principal& who, const std::string& node) override {
    Record("return " + who.user + " " + node);
    return ApiResult::Ok({{"node", node}});
  }
  ApiResult Telemetry(const Principal& who, const std::string& body) override {
    Record("telemetry " + who.user + " " + body);
    return ApiResult::Ok({{"applied", 0}});
  }
  std::string MetricsText() override { return "squeeze_up 1\n"; }

  std::vector<std::string> calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }

 private:
  ApiResult Query(const std::string& what, const Principal& who,
                  const std::map<std::string, std::string>& q) {
    std::string args;
    for (const auto& [k, v] : q) args += " " + k + "=" + v;
    Record(what + " " + who.user + args);
    return ApiResult::Ok({{"what", what}});
  }
  void Record(std::string s) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(std::move(s));
  }
  std::mutex mu_;
  std::vector<std::string> calls_;
};

// An ApiServer on a free loopback port over a RecordingService, with one user token
// (alice, team ml), for the API's and the client's tests.
class ServedApiTest : public ::testing::Test {
 protected:
  explicit ServedApiTest(size_t max_body_bytes = 64 * 1024) : max_body_bytes_(max_body_bytes) {}
  void SetUp() override {
    token_ = *AddToken(dir_, "alice", "ml", false);
    tokens_ = *TokenRegistry::Load(dir_);
    ApiOptions options;
    options.port = 0;
    options.limits.max_body_bytes = max_body_bytes_;
    server_ = std::make_unique<ApiServer>(service_, tokens_, options);
    ASSERT_TRUE(server_->Start().ok());
    url_ = "http://127.0.0.1:" + std::to_string(server_->port());
  }
  void TearDown() override { server_->Stop(); }

  size_t max_body_bytes_;
  ::squeeze::testing::TempDir temp_{"squeeze-api"};
  const std::string dir_ = temp_.path();
  std::string token_, url_;
  TokenRegistry tokens_;
  RecordingService service_;
  std::unique_ptr<ApiServer> server_;
};

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_TESTING_RECORDING_SERVICE_H_
