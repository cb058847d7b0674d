#include "exec/published_gpu_speeds.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

TEST(PublishedGpuSpeedsTest, TheLongestWholeNameOfTheTableWins) {
  EXPECT_EQ(PublishedTflops("H100-80GB-HBM3"), 989);
  EXPECT_EQ(PublishedTflops("H100-PCIe"), 756);
  EXPECT_EQ(PublishedTflops("h100-nvl"), 835);
  EXPECT_EQ(PublishedTflops("A100-SXM4-80GB"), 312);
  EXPECT_EQ(PublishedTflops("A10"), 125);        // not A100's
  EXPECT_EQ(PublishedTflops("L40S"), 362);       // not L40's
  EXPECT_EQ(PublishedTflops("L4"), 121);
  EXPECT_EQ(PublishedTflops("V100S-PCIE-32GB"), 130);
  EXPECT_EQ(PublishedTflops("V100-SXM2-32GB"), 125);
  EXPECT_EQ(PublishedTflops("K80"), 8.7);
  EXPECT_EQ(PublishedTflops("A1000"), std::nullopt);  // not A100 or A10
  EXPECT_EQ(PublishedTflops("T400"), std::nullopt);
  EXPECT_EQ(PublishedTflops("virtual"), std::nullopt);
  EXPECT_EQ(PublishedTflops(""), std::nullopt);
}

}  // namespace
}  // namespace squeeze
