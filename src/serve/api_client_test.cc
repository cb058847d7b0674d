#include "serve/api_client.h"

#include <gtest/gtest.h>
#include <unistd.h>


#include "serve/api_server.h"
#include "serve/testing/recording_service.h"
#include "core/testing/temp_dir.h"

namespace squeeze {
namespace {

using ApiClientTest = ServedApiTest;

TEST_F(ApiClientTest, CallsCarryTheToken) {
  auto client = ApiClient::Connect({url_, token_});
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto sub = (*client)->Post("/v1/jobs", "name: a\n", "application/yaml");
  ASSERT_TRUE(sub.ok()) << sub.status().message();
  EXPECT_EQ((*sub)["id"], 7);
  auto got = (*client)->Get("/v1/jobs/3");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["id"], 3);
  EXPECT_EQ(service_.calls(), (std::vector<std::string>{"submit alice name: a\n", "get alice 3"}));
}

TEST_F(ApiClientTest, ServerErrorsAndMissingTokenAreExplained) {
  auto client = ApiClient::Connect({url_, token_});
  auto cancel = (*client)->Post("/v1/jobs/5/cancel", "", "application/json");
  EXPECT_EQ(cancel.status().message(), "job 5 is not yours (HTTP 403)");
  unsetenv("SQUEEZE_TOKEN");
  auto anonymous = ApiClient::Connect({url_, ""});
  EXPECT_EQ((*anonymous)->Get("/v1/jobs").status().message(),
            "missing 'Authorization: Bearer TOKEN' header (local users need none on the daemon's "
            "Unix socket) (set SQUEEZE_TOKEN or --token) (HTTP "
            "401)");
}

TEST_F(ApiClientTest, UnreachableServerAndBadUrl) {
  server_->Stop();
  auto client = ApiClient::Connect({url_, token_});
  auto r = (*client)->Get("/v1/jobs");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("cannot reach squeeze at " + url_ + ": ", 0), 0u)
      << r.status().message();
  EXPECT_EQ(ApiClient::Connect({"ftp://x", token_}).status().message(),
            "--url: 'ftp://x' is not http://HOST:PORT");
}

TEST_F(ApiClientTest, UrlFromTheEnvironment) {
  setenv("SQUEEZE_URL", url_.c_str(), 1);
  setenv("SQUEEZE_TOKEN", token_.c_str(), 1);
  auto client = ApiClient::Connect({});
  ASSERT_TRUE(client.ok());
  EXPECT_EQ((*client)->url(), url_);
  EXPECT_TRUE((*client)->Get("/v1/jobs").ok());
  unsetenv("SQUEEZE_URL");
  unsetenv("SQUEEZE_TOKEN");
}

}  // namespace
}  // namespace squeeze
