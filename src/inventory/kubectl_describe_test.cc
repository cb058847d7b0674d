#include <gtest/gtest.h>

#include "inventory/inventory_sources.h"
#include "inventory/recordings_for_test.h"

namespace squeeze {
namespace {

TEST(KubectlDescribeTest, NodesCapacityAndAllocated) {
  auto r = ParseKubectlDescribeNodes(InventoryRecording("kubectl-describe-nodes.txt"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 12u);  // 8 A100 + 4 V100; the control plane has none
  EXPECT_EQ((*r)[0].node, "gpu-a100-0");
  EXPECT_EQ((*r)[0].model, "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ((*r)[0].memory_mib, 81920);
  EXPECT_EQ((*r)[3].allocated, true);
  EXPECT_EQ((*r)[4].allocated, false);
  EXPECT_EQ((*r)[8].node, "gpu-v100-0");
  EXPECT_EQ((*r)[8].model, "Tesla-V100-SXM2-32GB");
  EXPECT_EQ((*r)[11].index, 3);
  EXPECT_EQ((*r)[11].allocated, false);
  EXPECT_EQ((*r)[11].source, "kubectl-describe");
}

TEST(KubectlDescribeTest, BrokenInputs) {
  const std::string good = InventoryRecording("kubectl-describe-nodes.txt");
  ExpectErrorWith(ParseKubectlDescribeNodes("").status(), {"kubectl describe", "empty input"});
  ExpectErrorWith(ParseKubectlDescribeNodes("Labels:  a=b\n").status(),
                  {"line 1", "before any 'Name:'"});
  std::string bad_count = good;
  bad_count.replace(bad_count.find("nvidia.com/gpu:     8"), 21, "nvidia.com/gpu:     8x");
  ExpectErrorWith(ParseKubectlDescribeNodes(bad_count).status(),
                  {"line 37", "node gpu-a100-0", "Capacity nvidia.com/gpu", "'8x'"});
  std::string bad_alloc = good;
  bad_alloc.replace(bad_alloc.find("nvidia.com/gpu     4"), 20, "nvidia.com/gpu     four");
  ExpectErrorWith(ParseKubectlDescribeNodes(bad_alloc).status(),
                  {"line 67", "Allocated resources", "'four'"});
  std::string bad_label = good;
  bad_label.replace(bad_label.find("                    kubernetes.io/os=linux"), 42,
                    "                    kubernetes.io/os");
  ExpectErrorWith(ParseKubectlDescribeNodes(bad_label).status(),
                  {"line 7", "Labels", "'kubernetes.io/os' is not KEY=VALUE"});
  ExpectErrorWith(ParseKubectlDescribeNodes(good.substr(0, 20)).status(),
                  {"line 1", "Name: is empty"});
  const size_t cut = good.find("nvidia.com/gpu:     8") + 15;
  ExpectErrorWith(ParseKubectlDescribeNodes(good.substr(0, cut)).status(),
                  {"line 37", "'nvidia.com/gpu:' is not 'nvidia.com/gpu:  COUNT'"});
}

}  // namespace
}  // namespace squeeze
