#include "export/k8s_names.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

TEST(K8sNamesTest, DnsLabelLowersAndFoldsOtherCharacters) {
  EXPECT_EQ(*DnsLabel("Vision_Team", "team"), "vision-team");
  EXPECT_EQ(*DnsLabel("  ML / Research!! ", "team"), "ml-research");
  EXPECT_EQ(*DnsLabel("6214e9", "pool"), "6214e9");
  EXPECT_EQ(*DnsLabel("on-demand-A100", "flavor"), "on-demand-a100");
}

TEST(K8sNamesTest, DnsLabelRefusesWhatCannotBeOneNamingIt) {
  auto empty = DnsLabel("___", "team");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(),
            "team '___' cannot be made a Kubernetes name (DNS-1123 label): it has no letter or "
            "digit a-z, 0-9");
  auto cjk = DnsLabel("\xe8\xa7\x86\xe8\xa7\x89", "team");  // 视觉
  EXPECT_FALSE(cjk.ok());
  auto long_name = DnsLabel(std::string(70, 'a'), "pool");
  ASSERT_FALSE(long_name.ok());
  EXPECT_NE(long_name.status().message().find("pool 'aaaa"), std::string::npos);
  EXPECT_NE(long_name.status().message().find("at most 63"), std::string::npos);
}

TEST(K8sNamesTest, LabelsAndValues) {
  EXPECT_TRUE(IsDnsLabel("team-vision"));
  EXPECT_FALSE(IsDnsLabel("Team"));
  EXPECT_FALSE(IsDnsLabel("-a"));
  EXPECT_FALSE(IsDnsLabel(""));
  EXPECT_TRUE(IsLabelValue("NVIDIA-A100-SXM4-80GB"));
  EXPECT_TRUE(IsLabelValue("H100"));
  EXPECT_TRUE(IsLabelValue(""));
  EXPECT_FALSE(IsLabelValue("RTX 3090"));
  EXPECT_FALSE(IsLabelValue("a100-"));
  EXPECT_FALSE(IsLabelValue(std::string(64, 'a')));
}

TEST(K8sNamesTest, GpuProductLabelPutsDashesForSpacesAsGpuFeatureDiscovery) {
  EXPECT_EQ(GpuProductLabel("NVIDIA GeForce RTX 4090"), "NVIDIA-GeForce-RTX-4090");
  EXPECT_EQ(GpuProductLabel("Tesla T4"), "Tesla-T4");
  EXPECT_EQ(GpuProductLabel(" NVIDIA  A100\tPCIe "), "NVIDIA-A100-PCIe");
  EXPECT_EQ(GpuProductLabel("NVIDIA-A100-SXM4-80GB"), "NVIDIA-A100-SXM4-80GB");
  EXPECT_TRUE(IsLabelValue(GpuProductLabel("NVIDIA GeForce RTX 4090")));
  EXPECT_FALSE(IsLabelValue(GpuProductLabel("RTX 3090 (24 GB)")));
}

TEST(K8sNamesTest, Quantities) {
  EXPECT_EQ(CpuQuantity(128000), "128");
  EXPECT_EQ(CpuQuantity(1500), "1500m");
  EXPECT_EQ(CpuQuantity(0), "0");
  EXPECT_EQ(MemoryQuantity(1048576), "1024Gi");
  EXPECT_EQ(MemoryQuantity(1536), "1536Mi");
}

}  // namespace
}  // namespace squeeze
