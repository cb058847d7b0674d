#include <gtest/gtest.h>

#include "inventory/inventory_sources.h"
#include "inventory/recordings_for_test.h"

namespace squeeze {
namespace {

TEST(NvidiaSmiXmlTest, A100Driver535) {
  auto r = ParseNvidiaSmiXml(InventoryRecording("nvidia-smi-a100-535.xml"), "dgx-1");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].node, "dgx-1");
  EXPECT_EQ((*r)[0].model, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ((*r)[0].memory_mib, 81920);
  EXPECT_EQ((*r)[0].memory_used_mib, 40612);
  EXPECT_DOUBLE_EQ(*(*r)[0].utilization, 0.98);
  EXPECT_EQ((*r)[3].index, 3);
  EXPECT_EQ((*r)[3].source, "nvidia-smi-xml");
}

TEST(NvidiaSmiXmlTest, Rtx4090Driver550WithNotAvailable) {
  auto r = ParseNvidiaSmiXml(InventoryRecording("nvidia-smi-rtx4090-550.xml"), "");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1].model, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ((*r)[1].memory_mib, 24564);
  EXPECT_DOUBLE_EQ(*(*r)[0].utilization, 0.71);
  EXPECT_FALSE((*r)[1].utilization.has_value());
}

TEST(NvidiaSmiXmlTest, BrokenInputs) {
  const std::string good = InventoryRecording("nvidia-smi-a100-535.xml");
  ExpectErrorWith(ParseNvidiaSmiXml("", "").status(), {"nvidia-smi XML", "empty input"});
  ExpectErrorWith(ParseNvidiaSmiXml(good.substr(0, good.size() / 2), "").status(),
                  {"nvidia-smi XML line", "not well-formed XML"});
  ExpectErrorWith(ParseNvidiaSmiXml("<other/>", "").status(), {"no <nvidia_smi_log>", "<other>"});
  std::string bad_unit = good;
  bad_unit.replace(bad_unit.find("<total>81920 MiB"), 16, "<total>80 GB");
  ExpectErrorWith(ParseNvidiaSmiXml(bad_unit, "").status(),
                  {"gpu id=\"00000000:07:00.0\"", "fb_memory_usage/total", "'80 GB'"});
  std::string no_name = good;
  no_name.replace(no_name.find("<product_name>"), 14, "<product_x>");
  no_name.replace(no_name.find("</product_name>"), 15, "</product_x>");
  ExpectErrorWith(ParseNvidiaSmiXml(no_name, "").status(), {"<product_name> is missing"});
  std::string bad_util = good;
  bad_util.replace(bad_util.find("<gpu_util>98 %"), 14, "<gpu_util>busy");
  ExpectErrorWith(ParseNvidiaSmiXml(bad_util, "").status(), {"utilization/gpu_util", "'busy'"});
  std::string count = good;
  count.replace(count.find("<attached_gpus>4"), 16, "<attached_gpus>8");
  ExpectErrorWith(ParseNvidiaSmiXml(count, "").status(), {"attached_gpus is 8 but 4"});
}

}  // namespace
}  // namespace squeeze
