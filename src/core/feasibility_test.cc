// The one feasibility rule (Scheduler::CheckFeasible, core/feasibility.h): what submit and
// update answer for a job the cluster could never run, naming what would fit.
#include "core/feasibility.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/scheduler.h"
#include "core/testing/scenario.h"

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

std::string Check(const JobSpec& spec, const ClusterSpec& cluster = TwoPools()) {
  auto s = Scheduler::Create(cluster, testing::MakePolicy("fifo"));
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return "(no scheduler)";
  Status st = (*s)->CheckFeasible(spec);
  return st.ok() ? "ok" : st.message();
}

JobSpec Asks(int gpus) {
  JobSpec s;
  s.id = 1;
  s.gpus = gpus;
  return s;
}

TEST(FeasibilityTest, FitsWithinTheLargestGroup) {
  EXPECT_EQ(Check(Asks(0)), "ok");
  EXPECT_EQ(Check(Asks(8)), "ok");
  EXPECT_EQ(Check(Asks(32)), "ok");
  JobSpec fraction = Asks(1);
  fraction.gpu_milli = 250;
  EXPECT_EQ(Check(fraction), "ok");
}

TEST(FeasibilityTest, TooManyGpusNamesTheLargestRequest) {
  EXPECT_EQ(Check(Asks(64)),
            "asks for 64 GPUs; the largest possible request is 32 GPUs (pool a100: 4 nodes x 8 A100)");
  JobSpec v100 = Asks(16);
  v100.gpu_models = {"V100"};
  EXPECT_EQ(Check(v100),
            "asks for 16 GPUs; the largest possible request is 8 GPUs (pool v100: 2 nodes x 4 V100)");
  JobSpec eu = Asks(9);
  eu.regions = {"eu"};
  EXPECT_THAT(Check(eu), HasSubstr("largest possible request is 8"));
}

TEST(FeasibilityTest, UnknownModelNamesTheModelsThatExist) {
  JobSpec h100 = Asks(1);
  h100.gpu_models = {"H100"};
  EXPECT_EQ(Check(h100), "asks for GPU model 'H100', which no node has; models: A100, V100");
  h100.gpu_models = {"H100", "B200"};
  EXPECT_EQ(Check(h100), "no node has its GPU models (B200, H100); models: A100, V100");
  JobSpec far = Asks(1);
  far.regions = {"mars"};
  far.min_gpu_memory_mib = 100000;
  EXPECT_EQ(Check(far), "no node has its regions (mars) and GPU memory (at least 100000 MiB); "
                        "models: A100, V100; the cluster file gives no card's memory "
                        "(gpu_memory_mib of its nodes, or memory_mib of its gpu_models)");
  h100.gpu_models = {"H100", "V100"};
  EXPECT_EQ(Check(h100), "ok");
}

// A job asking for more GPU memory than any card has is refused, naming the largest cards.
TEST(FeasibilityTest, TooMuchGpuMemoryNamesTheLargestCards) {
  ClusterSpec c = TwoPools();
  for (NodeSpec& n : c.nodes) n.gpu_memory_mib = n.gpu_model == "A100" ? 81920 : 16384;
  JobSpec job = Asks(1);
  job.min_gpu_memory_mib = 40960;
  EXPECT_EQ(Check(job, c), "ok");
  job.min_gpu_memory_mib = 81920;
  EXPECT_EQ(Check(job, c), "ok");
  job.min_gpu_memory_mib = 81921;
  EXPECT_EQ(Check(job, c), "no node has its GPU memory (at least 81921 MiB); models: A100, V100; "
                           "the largest cards have 81920 MiB (A100)");
  job.min_gpu_memory_mib = 40960;
  job.gpu_models = {"V100"};
  EXPECT_EQ(Check(job, c), "no node has its GPU models (V100) and GPU memory (at least 40960 "
                           "MiB); models: A100, V100; the largest cards have 81920 MiB (A100)");
}

TEST(FeasibilityTest, PoolAndCpuMemory) {
  JobSpec s = Asks(1);
  s.pool = "h100";
  EXPECT_EQ(Check(s), "pool 'h100' does not exist; pools: a100, v100");
  s.pool = "a100";
  s.cpu_milli = 128000;
  EXPECT_THAT(Check(s), HasSubstr("no node can hold its cpu_milli 128000"));
  s.pool = "";
  EXPECT_EQ(Check(s), "ok");  // v100 nodes do not track CPU
}

TEST(FeasibilityTest, UnevenNodesAreDescribedByTotal) {
  ClusterSpec c;
  AddPool(c, "mixed", "default");
  AddNode(c, "n0", "mixed", "gpu", 8);
  AddNode(c, "n1", "mixed", "gpu", 4);
  EXPECT_EQ(Check(Asks(13), c),
            "asks for 13 GPUs; the largest possible request is 12 GPUs (pool mixed: 2 nodes of "
            "gpu, 12 GPUs in all)");
}

}  // namespace
}  // namespace squeeze
