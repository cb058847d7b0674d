#include <gtest/gtest.h>

#include "inventory/inventory_sources.h"
#include "inventory/recordings_for_test.h"

namespace squeeze {
namespace {

TEST(KubectlJsonTest, NodesWithGpuLabelsAndCapacity) {
  auto r = ParseKubectlNodesJson(InventoryRecording("kubectl-nodes.json"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 24u);  // 8 + 8 + 8; the CPU node has none
  EXPECT_EQ((*r)[0].node, "gpu-h100-0");
  EXPECT_EQ((*r)[0].model, "NVIDIA-H100-80GB-HBM3");
  EXPECT_EQ((*r)[0].memory_mib, 81559);
  EXPECT_EQ((*r)[7].index, 7);
  EXPECT_EQ((*r)[16].node, "gpu-a100-0");
  EXPECT_EQ((*r)[16].memory_mib, 81920);
  EXPECT_FALSE((*r)[16].utilization.has_value());
  EXPECT_FALSE((*r)[16].allocated.has_value());
  EXPECT_EQ((*r)[16].source, "kubectl-json");
}

TEST(KubectlJsonTest, BrokenInputs) {
  const std::string good = InventoryRecording("kubectl-nodes.json");
  ExpectErrorWith(ParseKubectlNodesJson("").status(), {"kubectl JSON", "empty input"});
  ExpectErrorWith(ParseKubectlNodesJson(good.substr(0, good.size() / 3)).status(),
                  {"kubectl JSON line", "not valid JSON"});
  ExpectErrorWith(ParseKubectlNodesJson("{\"kind\": \"List\"}").status(), {"no items[]"});
  std::string bad_count = good;
  bad_count.replace(bad_count.find("\"nvidia.com/gpu\": \"8\"", bad_count.find("\"capacity\"")), 21,
                    "\"nvidia.com/gpu\": \"eight\"");
  ExpectErrorWith(ParseKubectlNodesJson(bad_count).status(),
                  {"node gpu-h100-0", "nvidia.com/gpu", "'eight'"});
  std::string bad_memory = good;
  bad_memory.replace(bad_memory.find("\"nvidia.com/gpu.memory\": \"81559\""), 32,
                     "\"nvidia.com/gpu.memory\": \"80G\"");
  ExpectErrorWith(ParseKubectlNodesJson(bad_memory).status(),
                  {"node gpu-h100-0", "nvidia.com/gpu.memory", "'80G'"});
  ExpectErrorWith(ParseKubectlNodesJson("{\"items\": [{\"metadata\": {}}]}").status(),
                  {"items[0].metadata.name is missing"});
}

}  // namespace
}  // namespace squeeze
