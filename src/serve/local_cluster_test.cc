#include "serve/local_cluster.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/cluster_file.h"

namespace squeeze {
namespace {

using ::testing::HasSubstr;

GpuDevice Gpu(int index, const std::string& model) {
  GpuDevice d;
  d.index = index;
  d.model = model;
  d.name = "NVIDIA " + model;
  d.memory_mib = 81920;
  return d;
}

TEST(LocalClusterTest, WithoutAConfigOneNodePerModelOfTheGpusFound) {
  GpuInventory found{"nvml", {Gpu(0, "H100"), Gpu(1, "A100"), Gpu(2, "H100")}, {}};
  auto c = BuildLocalCluster(found, std::nullopt, "box");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->spec.nodes.size(), 2u);
  EXPECT_EQ(c->spec.nodes[0].name, "box-H100");
  EXPECT_EQ(c->spec.nodes[0].gpus, 2);
  EXPECT_EQ(c->spec.nodes[1].gpu_model, "A100");
  // Node 0's second GPU is CUDA device 2.
  Placement p;
  p.shares.push_back({0, {1}, 1000, 0, 0});
  EXPECT_EQ(c->CudaIndices(p), (std::vector<int>{2}));
  auto back = c->PlacementOf({2, 1}, 1000);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->shares.size(), 2u);
  EXPECT_EQ(back->shares[0].node, 0);
  EXPECT_EQ(back->shares[0].gpus, (std::vector<int>{1}));
  EXPECT_EQ(back->shares[1].node, 1);
  EXPECT_FALSE(c->PlacementOf({7}, 1000).has_value());
}

TEST(LocalClusterTest, VirtualGpusAreMarkedOnTheirNode) {
  GpuInventory found{"virtual", VirtualGpus("2:L4").value(), {}};
  auto c = BuildLocalCluster(found, std::nullopt, "box");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->spec.nodes[0].labels.at("virtual"), "true");
  EXPECT_EQ(c->spec.nodes[0].gpu_model, "L4");
  EXPECT_EQ(c->spec.nodes[0].name, "box");
}

TEST(LocalClusterTest, AConfigsLocalNodesGetTheGpusInOrder) {
  auto config = ParseClusterYaml(R"(pools:
  - name: fast
    nodes:
      - {name: a, gpus: 2, gpu_model: H100}
  - name: slow
    nodes:
      - {name: b, gpus: 1, gpu_model: T4}
)", "serve.yaml");
  ASSERT_TRUE(config.ok()) << config.status().message();
  GpuInventory found{"nvidia-smi", {Gpu(0, "H100"), Gpu(1, "H100"), Gpu(2, "T4")}, {}};
  auto c = BuildLocalCluster(found, *config, "box");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->gpus.size(), 3u);
  EXPECT_EQ(c->gpus[2].node, 1);
  EXPECT_EQ(c->gpus[2].device.index, 2);
  found.gpus.pop_back();
  auto too_many = BuildLocalCluster(found, *config, "box");
  ASSERT_FALSE(too_many.ok());
  EXPECT_THAT(too_many.status().message(), HasSubstr("declare 3 GPUs; this machine has 2"));
}

TEST(LocalClusterTest, SlurmPoolNodesGetSlotsThatSurviveARestart) {
  auto config = ParseClusterYaml(R"(pools:
  - {name: east, backend: slurm, slurm: {conf: /etc/slurm/slurm.conf}, nodes: [{name: e, gpus: 2, gpu_model: A100}]}
)", "serve.yaml");
  ASSERT_TRUE(config.ok()) << config.status().message();
  GpuInventory none{"none", {}, {}};  // no GPU on the daemon's machine: fine for Slurm pools
  auto c = BuildLocalCluster(none, *config, "box");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->gpus.size(), 2u);
  EXPECT_EQ(c->gpus[1].device.index, kRemoteSlotBase + 1);
  Placement p;
  p.shares.push_back({0, {0, 1}, 1000, 0, 0});
  const std::vector<int> slots = c->CudaIndices(p);
  EXPECT_EQ(slots, (std::vector<int>{kRemoteSlotBase, kRemoteSlotBase + 1}));
  auto back = c->PlacementOf(slots, 1000);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->shares[0].gpus, (std::vector<int>{0, 1}));
}

TEST(LocalClusterTest, NoGpuAtAllSaysHowToTryWithoutOne) {
  GpuInventory none{"none", {}, {"libnvidia-ml.so.1: cannot open"}};
  auto c = BuildLocalCluster(none, std::nullopt, "box");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("--virtual-gpus"));
  EXPECT_THAT(c.status().message(), HasSubstr("libnvidia-ml.so.1"));
}

}  // namespace
}  // namespace squeeze
