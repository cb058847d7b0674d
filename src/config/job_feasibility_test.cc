#include "config/job_feasibility.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace squeeze {
namespace {

using ::testing::HasSubstr;

void AddPool(ClusterSpec& c, const std::string& name, const std::string& region) {
  PoolSpec p;
  p.name = name;
  p.region = region;
  c.pools.push_back(p);
}

NodeSpec& AddNode(ClusterSpec& c, const std::string& name, const std::string& pool,
                  const std::string& model, int gpus) {
  NodeSpec n;
  n.name = name;
  n.pool = pool;
  n.gpu_model = model;
  n.gpus = gpus;
  c.nodes.push_back(n);
  return c.nodes.back();
}

// Pool a100: 4 nodes x 8 A100 (cpu 64 cores, 512 GiB); pool v100: 2 nodes x 4 V100 in eu.
ClusterSpec TwoPools() {
  ClusterSpec c;
  AddPool(c, "a100", "us");
  AddPool(c, "v100", "eu");
  for (const char* name : {"a0", "a1", "a2", "a3"}) {
    NodeSpec& n = AddNode(c, name, "a100", "A100", 8);
    n.cpu_milli = 64000;
    n.memory_mib = 512 * 1024;
  }
  for (const char* name : {"v0", "v1"}) AddNode(c, name, "v100", "V100", 4);
  return c;
}

JobSpec Asks(int gpus) {
  JobSpec s;
  s.gpus = gpus;
  return s;
}

TEST(JobFeasibilityTest, FitsWithinTheLargestGroup) {
  EXPECT_TRUE(CheckFitsCluster(Asks(0), TwoPools()).ok());
  EXPECT_TRUE(CheckFitsCluster(Asks(8), TwoPools()).ok());
  EXPECT_TRUE(CheckFitsCluster(Asks(32), TwoPools()).ok());
  JobSpec fraction = Asks(1);
  fraction.gpu_milli = 250;
  EXPECT_TRUE(CheckFitsCluster(fraction, TwoPools()).ok());
}

TEST(JobFeasibilityTest, TooManyGpusNamesTheLargestRequest) {
  EXPECT_EQ(
      CheckFitsCluster(Asks(64), TwoPools()).message(),
      "asks for 64 GPUs; the largest possible request is 32 GPUs (pool a100: 4 nodes x 8 A100)");
  JobSpec v100 = Asks(16);
  v100.gpu_models = {"V100"};
  EXPECT_EQ(
      CheckFitsCluster(v100, TwoPools()).message(),
      "asks for 16 GPUs; the largest possible request is 8 GPUs (pool v100: 2 nodes x 4 V100)");
  JobSpec eu = Asks(9);
  eu.regions = {"eu"};
  EXPECT_THAT(CheckFitsCluster(eu, TwoPools()).message(),
              HasSubstr("largest possible request is 8"));
}

TEST(JobFeasibilityTest, UnknownModelNamesTheModelsThatExist) {
  JobSpec h100 = Asks(1);
  h100.gpu_models = {"H100"};
  EXPECT_EQ(CheckFitsCluster(h100, TwoPools()).message(),
            "asks for GPU model 'H100', which no node has; models: A100, V100");
  h100.gpu_models = {"H100", "B200"};
  EXPECT_THAT(CheckFitsCluster(h100, TwoPools()).message(),
              HasSubstr("no node has its pool, regions, GPU models (B200, H100)"));
  h100.gpu_models = {"H100", "V100"};
  EXPECT_TRUE(CheckFitsCluster(h100, TwoPools()).ok());
}

TEST(JobFeasibilityTest, PoolAndCpuMemory) {
  JobSpec s = Asks(1);
  s.pool = "h100";
  EXPECT_EQ(CheckFitsCluster(s, TwoPools()).message(),
            "pool 'h100' does not exist; pools: a100, v100");
  s.pool = "a100";
  s.cpu_milli = 128000;
  EXPECT_THAT(CheckFitsCluster(s, TwoPools()).message(),
              HasSubstr("asks for 128000 CPU millicores and 0 MiB on one node; the largest node"));
  s.pool = "";
  EXPECT_TRUE(CheckFitsCluster(s, TwoPools()).ok());  // v100 nodes do not track CPU
}

TEST(JobFeasibilityTest, UnevenNodesAreDescribedByTotal) {
  ClusterSpec c;
  AddPool(c, "mixed", "default");
  AddNode(c, "n0", "mixed", "gpu", 8);
  AddNode(c, "n1", "mixed", "gpu", 4);
  EXPECT_EQ(CheckFitsCluster(Asks(13), c).message(),
            "asks for 13 GPUs; the largest possible request is 12 GPUs (pool mixed: 2 nodes of "
            "gpu, 12 GPUs in all)");
}

}  // namespace
}  // namespace squeeze
