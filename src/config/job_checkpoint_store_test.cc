// The job file's checkpoint_store (config/job_checkpoint_store.h) through the job readers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/job_file.h"
#include "config/job_json_writer.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

constexpr Time kNow = Seconds(1'764'590'400);  // 2025-12-01T12:00:00Z

std::string Job(const std::string& rest) {
  return "command: [python3, train.py]\ncheckpointable: true\n" + rest;
}

std::string YamlError(const std::string& text) {
  const Result<JobRequest> r = ParseJobYaml(text, "job.yaml", kNow);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.status().message();
}

TEST(JobCheckpointStoreTest, AUrlAloneOrAMap) {
  Result<JobRequest> r = ParseJobYaml(Job("checkpoint_store: s3://ckpt/team-a\n"), "j", kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->checkpoint_store.url, "s3://ckpt/team-a");
  EXPECT_EQ(r->checkpoint_store.keep, 3);
  EXPECT_EQ(r->spec.checkpoint_cost, 0);
  r = ParseJobYaml(Job("checkpoint_cost: 20s\n"
                       "checkpoint_store:\n"
                       "  url: s3://ckpt/team-a\n"
                       "  endpoint: http://127.0.0.1:9000\n"
                       "  region: eu-west-1\n"
                       "  credentials: /home/alice/.aws/credentials\n"
                       "  profile: ckpt\n"
                       "  keep: 2\n"
                       "  checkpoint_size: 10GiB\n"
                       "  upload_gbps: 2\n"),
                   "j", kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const CheckpointStore& c = r->checkpoint_store;
  EXPECT_EQ(c.endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(c.region, "eu-west-1");
  EXPECT_EQ(c.credentials, "/home/alice/.aws/credentials");
  EXPECT_EQ(c.profile, "ckpt");
  EXPECT_EQ(c.keep, 2);
  EXPECT_EQ(c.checkpoint_bytes, int64_t{10} << 30);
  // The save (20 s) and the upload of 10 GiB at 2 Gbit/s (43 s): what the spot model weighs
  // against a reclaim's warning.
  EXPECT_EQ(r->spec.checkpoint_cost, (20 + 43) * kSecond);
}

TEST(JobCheckpointStoreTest, WrittenBackAndReadAgainTheCostIsCountedOnce) {
  const Result<JobRequest> r = ParseJobYaml(Job("checkpoint_cost: 20s\ncheckpoint_store:\n"
                                                "  url: s3://ckpt/a\n  checkpoint_size: 10GiB\n"),
                                            "j", kNow);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Result<JobRequest> again = ParseJobJson(JobRequestToJobJson(*r), kNow);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->spec.checkpoint_cost, r->spec.checkpoint_cost);
  EXPECT_EQ(again->checkpoint_store.url, "s3://ckpt/a");
  EXPECT_EQ(again->checkpoint_store.checkpoint_bytes, r->checkpoint_store.checkpoint_bytes);
}

TEST(JobCheckpointStoreTest, BrokenValuesNameTheFieldAndTheValue) {
  EXPECT_THAT(YamlError(Job("checkpoint_store: /mnt/ckpt\n")),
              HasSubstr("job.yaml:3:19: checkpoint_store: value '/mnt/ckpt' is not an s3:// URL"));
  EXPECT_THAT(YamlError(Job("checkpoint_store: [s3://a]\n")),
              HasSubstr("checkpoint_store: expected an s3:// URL or a map"));
  EXPECT_THAT(YamlError(Job("checkpoint_store:\n  endpoint: http://x\n")),
              HasSubstr("checkpoint_store.url: required"));
  EXPECT_THAT(YamlError(Job("checkpoint_store:\n  url: s3://ckpt\n  keep: 0\n")),
              HasSubstr("checkpoint_store.keep: value '0' is not a whole number from 1"));
  EXPECT_THAT(YamlError(Job("checkpoint_store:\n  url: s3://ckpt\n  endpoint: ftp://x\n")),
              HasSubstr("checkpoint_store.endpoint: value 'ftp://x' is not an http://"));
  EXPECT_THAT(YamlError(Job("checkpoint_store:\n  url: s3://ckpt\n  credentials: creds.ini\n")),
              HasSubstr("checkpoint_store.credentials: 'creds.ini' is not an absolute path"));
  EXPECT_THAT(YamlError(Job("checkpoint_store:\n  url: s3://ckpt\n  upload_gbps: fast\n")),
              HasSubstr("checkpoint_store.upload_gbps: value 'fast' is not a number"));
  EXPECT_THAT(YamlError(Job("checkpoint_store:\n  url: s3://ckpt\n  checkpoint_size: big\n")),
              HasSubstr("checkpoint_store.checkpoint_size:"));
  EXPECT_THAT(YamlError(Job("checkpoint_store:\n  url: s3://ckpt\n  secret: x\n")),
              HasSubstr("unknown field 'checkpoint_store.secret'"));
  EXPECT_THAT(YamlError("command: [true]\ncheckpoint_store: s3://ckpt\n"),
              HasSubstr("checkpoint_store: needs checkpointable: true"));
}

// A job's environment is private to its owner and the admins (docs/api.md), as sbatch's
// --export=ALL has it: a credential in it is kept, not refused for its name.
TEST(JobCheckpointStoreTest, CredentialsInEnvAreKept) {
  Result<JobRequest> job = ParseJobYaml(
      "command: [true]\nenv:\n  AWS_SECRET_ACCESS_KEY: abc\n  HF_TOKEN: hf_x\n", "j", kNow);
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->env.at("AWS_SECRET_ACCESS_KEY"), "abc");
  EXPECT_EQ(job->env.at("HF_TOKEN"), "hf_x");
}

}  // namespace
}  // namespace squeeze
