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

// Cards of two kinds and no cluster file: each model's memory as the driver said, and speeds
// from the published TFLOPS relative to the fastest card (H100 989, A100 312); a model not in
// the table leaves every speed at 1.
TEST(LocalClusterTest, CardsOfSeveralKindsGetTheirMemoryAndPublishedSpeeds) {
  GpuInventory found{"nvml", {Gpu(0, "H100-80GB-HBM3"), Gpu(1, "A100-SXM4-80GB")}, {}};
  found.gpus[1].memory_mib = 40960;
  auto c = BuildLocalCluster(found, std::nullopt, "box");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->spec.ModelSpeed("H100-80GB-HBM3"), 1);
  EXPECT_DOUBLE_EQ(c->spec.ModelSpeed("A100-SXM4-80GB"), 312.0 / 989.0);
  EXPECT_EQ(c->spec.gpu_models.at("A100-SXM4-80GB").memory_mib, 40960);
  found.gpus.push_back(Gpu(2, "Mystery-9000"));
  c = BuildLocalCluster(found, std::nullopt, "box");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->spec.ModelSpeed("A100-SXM4-80GB"), 1);
  EXPECT_EQ(c->spec.gpu_models.at("Mystery-9000").memory_mib, 81920);
  // One kind of card: nothing to choose between, no table.
  GpuInventory one{"nvml", {Gpu(0, "H100"), Gpu(1, "H100")}, {}};
  EXPECT_TRUE(BuildLocalCluster(one, std::nullopt, "box")->spec.gpu_models.empty());
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
