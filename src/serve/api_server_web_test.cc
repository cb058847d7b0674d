// The dashboard's static files beside the API: served under /ui/, / redirects there, the API
// keeps its routes and its tokens, and a folder without a build says how to make one.
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>

#include "core/testing/temp_dir.h"
#include "serve/api_server.h"
#include "serve/testing/recording_service.h"

namespace squeeze {
namespace {

class ApiWebTest : public ::testing::Test {
 protected:
  void Serve(const std::string& web_dir) {
    token_ = *AddToken(temp_.path(), "alice", "ml", false);
    tokens_ = *TokenRegistry::Load(temp_.path());
    ApiOptions options;
    options.port = 0;
    options.web_dir = web_dir;
    server_ = std::make_unique<ApiServer>(service_, tokens_, options);
    ASSERT_TRUE(server_->Start().ok());
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }
  std::string WebDir() {
    const std::string dir = web_.path() + "/web";
    std::filesystem::create_directories(dir + "/assets");
    // A folder named like the API: it must never shadow it.
    std::filesystem::create_directories(dir + "/v1");
    std::ofstream(dir + "/index.html") << "<!doctype html><title>squeeze</title>";
    std::ofstream(dir + "/assets/app.js") << "console.log(1);";
    std::ofstream(dir + "/v1/jobs") << "not the API";
    return dir;
  }

  ::squeeze::testing::TempDir temp_{"squeeze-api"};
  ::squeeze::testing::TempDir web_{"squeeze-web"};
  std::string token_;
  TokenRegistry tokens_;
  RecordingService service_;
  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ApiWebTest, ServesTheBuiltFilesUnderUiWithoutAToken) {
  Serve(WebDir());
  auto root = client_->Get("/");
  ASSERT_TRUE(root);
  EXPECT_EQ(root->status, 302);
  EXPECT_EQ(root->get_header_value("Location"), "/ui/");
  auto index = client_->Get("/ui/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_EQ(index->body, "<!doctype html><title>squeeze</title>");
  EXPECT_NE(index->get_header_value("Content-Type").find("text/html"), std::string::npos);
  auto js = client_->Get("/ui/assets/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_NE(js->get_header_value("Content-Type").find("javascript"), std::string::npos);
  auto none = client_->Get("/ui/assets/missing.js");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 404);
}

TEST_F(ApiWebTest, TheApiKeepsItsRoutesAndTokens) {
  Serve(WebDir());
  auto jobs = client_->Get("/v1/jobs");
  ASSERT_TRUE(jobs);
  EXPECT_EQ(jobs->status, 401);
  EXPECT_NE(jobs->body.find("Authorization"), std::string::npos);
  auto authed = client_->Get("/v1/jobs", httplib::Headers{{"Authorization", "Bearer " + token_}});
  ASSERT_TRUE(authed);
  EXPECT_EQ(authed->status, 200);
  auto escape = client_->Get("/ui/../../etc/passwd");
  ASSERT_TRUE(escape);
  EXPECT_NE(escape->status, 200);
}

TEST_F(ApiWebTest, AFolderWithoutABuildSaysHowToBuildIt) {
  Serve(web_.path() + "/nowhere");
  for (const char* path : {"/", "/ui/", "/ui/assets/app.js"}) {
    auto r = client_->Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
    EXPECT_NE(r->body.find("dashboard is not built"), std::string::npos) << path;
    EXPECT_NE(r->body.find(web_.path() + "/nowhere"), std::string::npos) << path;
  }
  auto health = client_->Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

}  // namespace
}  // namespace squeeze
