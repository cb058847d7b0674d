#include "core/checkpoint_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::HasSubstr;

TEST(CheckpointStoreTest, UrlsAndEndpoints) {
  EXPECT_TRUE(CheckStoreUrl("s3://ckpt").ok());
  EXPECT_TRUE(CheckStoreUrl("s3://team-a.ckpt/runs/llm").ok());
  EXPECT_THAT(CheckStoreUrl("gs://ckpt/x").message(), HasSubstr("'gs://ckpt/x' is not an s3:// URL"));
  EXPECT_THAT(CheckStoreUrl("s3://Ckpt/x").message(), HasSubstr("bucket 'Ckpt'"));
  EXPECT_THAT(CheckStoreUrl("s3://ab").message(), HasSubstr("bucket 'ab'"));
  EXPECT_THAT(CheckStoreUrl("s3://ckpt-/x").message(), HasSubstr("bucket 'ckpt-'"));
  EXPECT_THAT(CheckStoreUrl("s3://ckpt/a//b").message(), HasSubstr("empty or '..' part"));
  EXPECT_THAT(CheckStoreUrl("s3://ckpt/a b").message(), HasSubstr("space"));
  EXPECT_TRUE(CheckStoreEndpoint("http://127.0.0.1:9000").ok());
  EXPECT_TRUE(CheckStoreEndpoint("https://s3.eu-west-1.amazonaws.com").ok());
  EXPECT_THAT(CheckStoreEndpoint("ftp://x").message(), HasSubstr("'ftp://x' is not an http://"));
  EXPECT_THAT(CheckStoreEndpoint("http:///x").message(), HasSubstr("has no host"));
}

TEST(CheckpointStoreTest, UploadTimeIsSizeOverBandwidthRoundedUp) {
  CheckpointStore s;
  s.url = "s3://ckpt/a";
  s.checkpoint_bytes = int64_t{10} << 30;  // 10 GiB at 1 Gbit/s: 85.9 s
  EXPECT_EQ(UploadSeconds(s), 86 * kSecond);
  s.upload_gbps = 10;
  EXPECT_EQ(UploadSeconds(s), 9 * kSecond);
  s.max_upload_gbps = 2;  // capped below the link: the cap is what an upload takes
  EXPECT_EQ(UploadSeconds(s), 43 * kSecond);
  EXPECT_EQ(CheckpointStoreEnvironment(1, s).at("SQUEEZE_CHECKPOINT_STORE_MAX_GBPS"), "2");
  s.max_upload_gbps = 0;
  s.checkpoint_bytes = 0;
  EXPECT_EQ(UploadSeconds(s), 0);
  CheckpointStore none;
  none.checkpoint_bytes = 1 << 30;
  EXPECT_EQ(UploadSeconds(none), 0);
}

TEST(CheckpointStoreTest, EachJobHasItsOwnPlaceAndNoSecret) {
  CheckpointStore s;
  EXPECT_TRUE(CheckpointStoreEnvironment(7, s).empty());
  s.url = "s3://ckpt/team-a/";
  s.endpoint = "http://127.0.0.1:9000";
  s.credentials = "/home/alice/.aws/credentials";
  s.keep = 2;
  const auto env = CheckpointStoreEnvironment(7, s);
  EXPECT_EQ(env.at("SQUEEZE_CHECKPOINT_STORE"), "s3://ckpt/team-a/7");
  EXPECT_EQ(env.at("SQUEEZE_CHECKPOINT_STORE_ENDPOINT"), "http://127.0.0.1:9000");
  EXPECT_EQ(env.at("SQUEEZE_CHECKPOINT_STORE_CREDENTIALS"), "/home/alice/.aws/credentials");
  EXPECT_EQ(env.at("SQUEEZE_CHECKPOINT_STORE_KEEP"), "2");
  EXPECT_EQ(env.count("SQUEEZE_CHECKPOINT_STORE_REGION"), 0u);
  s.url = "s3://ckpt";
  EXPECT_EQ(CheckpointStoreEnvironment(12, s).at("SQUEEZE_CHECKPOINT_STORE"), "s3://ckpt/12");
}

}  // namespace
}  // namespace squeeze
