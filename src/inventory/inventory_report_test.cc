#include "inventory/inventory_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace squeeze {
namespace {

GpuRecord Gpu(std::string node, int index, std::string model, int64_t memory,
              std::optional<double> util, std::optional<bool> allocated) {
  GpuRecord r;
  r.node = std::move(node);
  r.index = index;
  r.model = std::move(model);
  r.memory_mib = memory;
  r.utilization = util;
  r.allocated = allocated;
  r.source = "test";
  return r;
}

TEST(InventoryReportTest, GroupsByModelAndMemory) {
  const std::vector<GpuRecord> gpus = {Gpu("a", 0, "A100", 81920, 0.5, std::nullopt),
                                       Gpu("a", 1, "A100", 81920, 1.0, std::nullopt),
                                       Gpu("b", 0, "A100", 81920, std::nullopt, true),
                                       Gpu("c", 0, "A100", 40960, std::nullopt, false)};
  const std::vector<InventoryGroup> groups = GroupInventory(gpus);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].gpus, 3);
  EXPECT_EQ(groups[0].nodes, 2);
  EXPECT_EQ(groups[0].allocated, 1);
  EXPECT_DOUBLE_EQ(*groups[0].mean_utilization, 0.75);
  EXPECT_EQ(groups[1].memory_mib, 40960);
  EXPECT_FALSE(groups[1].mean_utilization.has_value());
  const std::string table = InventoryTable(groups);
  EXPECT_NE(table.find("81920 MiB"), std::string::npos) << table;
  EXPECT_NE(table.find("75%"), std::string::npos) << table;
}

TEST(InventoryReportTest, JsonHasNullForUnknown) {
  const auto j =
      nlohmann::json::parse(InventoryJson({Gpu("a", 3, "H100", 81559, std::nullopt, true)}));
  EXPECT_EQ(j["gpus"][0]["index"], 3);
  EXPECT_EQ(j["gpus"][0]["model"], "H100");
  EXPECT_TRUE(j["gpus"][0]["utilization"].is_null());
  EXPECT_EQ(j["gpus"][0]["allocated"], true);
}

TEST(InventoryReportTest, DropsRepeatedGpus) {
  int dropped = 0;
  auto kept = DropRepeatedGpus(
      {Gpu("a", 0, "X", 1, {}, {}), Gpu("a", 0, "X", 1, {}, {}), Gpu("a", 1, "X", 1, {}, {})},
      &dropped);
  EXPECT_EQ(kept.size(), 2u);
  EXPECT_EQ(dropped, 1);
}

TEST(InventoryReportTest, PoolFilePerModel) {
  auto yaml = InventoryPoolFile({Gpu("n1", 0, "NVIDIA A100-SXM4-80GB", 81920, {}, {}),
                                 Gpu("n1", 1, "NVIDIA A100-SXM4-80GB", 81920, {}, {}),
                                 Gpu("n2", 0, "NVIDIA H100 80GB HBM3", 81559, {}, {})});
  ASSERT_TRUE(yaml.ok()) << yaml.status().message();
  EXPECT_NE(yaml->find("name: \"nvidia-a100-sxm4-80gb\""), std::string::npos) << *yaml;
  EXPECT_NE(yaml->find("name: \"n1\"\n        gpus: 2\n        gpu_model: \"NVIDIA A100-SXM4-80GB\""
                       "\n        gpu_memory_mib: 81920"),
            std::string::npos)
      << *yaml;
  EXPECT_NE(yaml->find("name: \"nvidia-h100-80gb-hbm3\""), std::string::npos) << *yaml;
  EXPECT_FALSE(InventoryPoolFile({}).ok());
  EXPECT_FALSE(InventoryPoolFile({Gpu("", 0, "X", 1, {}, {})}).ok());
}

}  // namespace
}  // namespace squeeze
