#include "serve/http_message.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace squeeze {
namespace {

TEST(HttpMessageTest, DecodesPathsAndQueries) {
  EXPECT_EQ(PercentDecode("/v1/jobs/..%2e/log", false), "/v1/jobs/.../log");
  EXPECT_EQ(PercentDecode("a+b%20c", false), "a+b c");
  EXPECT_EQ(PercentDecode("a+b", true), "a b");
  EXPECT_EQ(PercentDecode("100%", false), "100%");
  EXPECT_EQ(PercentDecode("%zz%4", false), "%zz%4");
  const HttpFields q = ParseQuery("state=pending&limit=5&&flag&x=a%26b");
  EXPECT_EQ(q, (HttpFields{{"state", "pending"}, {"limit", "5"}, {"flag", ""}, {"x", "a&b"}}));
}

TEST(HttpMessageTest, HeadersAreFoundInAnyCase) {
  HttpRequest r;
  r.headers = {{"authorization", "Bearer x"}, {"Content-Length", "3"}};
  EXPECT_EQ(r.Header("Authorization"), "Bearer x");
  EXPECT_EQ(r.Header("content-length"), "3");
  EXPECT_EQ(r.Header("Expect"), "");
}

TEST(HttpMessageTest, ErrorsAreJsonAndSurviveBadBytes) {
  HttpResponse r = JsonError(413, "request body over 10 bytes");
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"], "request body over 10 bytes");
  EXPECT_NO_THROW(nlohmann::json::parse(JsonError(400, "bad \xff byte").body));
}

TEST(HttpMessageTest, PeersAreUidsOnLoopbackAndAddressesElsewhere) {
  EXPECT_TRUE(IsLoopback("127.0.0.1"));
  EXPECT_TRUE(IsLoopback("127.8.9.10"));
  EXPECT_TRUE(IsLoopback("::1"));
  EXPECT_TRUE(IsLoopback("::ffff:127.0.0.1"));
  EXPECT_FALSE(IsLoopback("10.0.0.1"));
  EXPECT_FALSE(IsLoopback("::ffff:10.0.0.1"));
  EXPECT_FALSE(IsLoopback("1270::1"));
  EXPECT_EQ(PeerKeyOfUid(1001), "uid 1001");
  EXPECT_EQ(TcpPeerKey("127.0.0.1", 1001), "uid 1001");
  EXPECT_EQ(TcpPeerKey("127.0.0.1", std::nullopt), "ip 127.0.0.1");
  // A remote address is the peer whatever the kernel could say: its uid means nothing here.
  EXPECT_EQ(TcpPeerKey("10.1.2.3", 0), "ip 10.1.2.3");
}

}  // namespace
}  // namespace squeeze
