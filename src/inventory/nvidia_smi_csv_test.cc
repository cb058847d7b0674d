#include <gtest/gtest.h>

#include "inventory/inventory_sources.h"
#include "inventory/recordings_for_test.h"

namespace squeeze {
namespace {

TEST(NvidiaSmiCsvTest, HeaderWithUnits) {
  auto r = ParseNvidiaSmiCsv(InventoryRecording("nvidia-smi-a100-535.csv"), "a100-box");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 8u);
  const GpuRecord& g = (*r)[0];
  EXPECT_EQ(g.node, "a100-box");
  EXPECT_EQ(g.index, 0);
  EXPECT_EQ(g.model, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(g.memory_mib, 81920);
  EXPECT_EQ(g.memory_used_mib, 40612);
  EXPECT_DOUBLE_EQ(*g.utilization, 0.98);
  EXPECT_FALSE(g.allocated.has_value());
  EXPECT_EQ(g.source, "nvidia-smi-csv");
  EXPECT_EQ((*r)[7].index, 7);
  EXPECT_DOUBLE_EQ(*(*r)[7].utilization, 0.0);
}

TEST(NvidiaSmiCsvTest, NoHeaderNoUnits) {
  auto r = ParseNvidiaSmiCsv(InventoryRecording("nvidia-smi-h100-550-noheader.csv"), "");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 8u);
  EXPECT_EQ((*r)[1].model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ((*r)[1].memory_mib, 81559);
  EXPECT_EQ((*r)[1].memory_used_mib, 71234);
  EXPECT_DOUBLE_EQ(*(*r)[1].utilization, 0.87);
}

TEST(NvidiaSmiCsvTest, ColumnsByHeaderNameAndNotAvailable) {
  auto r = ParseNvidiaSmiCsv(InventoryRecording("nvidia-smi-v100-470.csv"), "v");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[2].model, "Tesla V100-SXM2-32GB");
  EXPECT_EQ((*r)[2].index, 2);
  EXPECT_EQ((*r)[2].memory_mib, 32510);
  EXPECT_DOUBLE_EQ(*(*r)[2].utilization, 0.55);
  EXPECT_FALSE((*r)[3].utilization.has_value());
  auto ns = ParseNvidiaSmiCsv(
      "index, name, memory.total [MiB], utilization.gpu [%]\n"
      "0, NVIDIA GeForce RTX 4090, 24564 MiB, [Not Supported]\r\n",
      "");
  ASSERT_TRUE(ns.ok()) << ns.status().message();
  EXPECT_FALSE((*ns)[0].utilization.has_value());
  EXPECT_FALSE((*ns)[0].memory_used_mib.has_value());
}

TEST(NvidiaSmiCsvTest, WrongUnitNamesFieldValueAndLine) {
  auto r = ParseNvidiaSmiCsv(InventoryRecording("nvidia-smi-broken-unit.csv"), "");
  ExpectErrorWith(r.status(), {"nvidia-smi CSV line 2", "memory.total", "'24 GB'"});
}

TEST(NvidiaSmiCsvTest, BrokenInputs) {
  const std::string header =
      "index, name, memory.total [MiB], memory.used [MiB], utilization.gpu [%]\n";
  ExpectErrorWith(ParseNvidiaSmiCsv("", "").status(), {"nvidia-smi CSV", "empty input"});
  ExpectErrorWith(ParseNvidiaSmiCsv(header, "").status(), {"no GPU rows"});
  ExpectErrorWith(ParseNvidiaSmiCsv(header + "0, NVIDIA A100, 81920 MiB, 3 MiB\n", "").status(),
                  {"line 2", "4 fields where 5"});
  ExpectErrorWith(ParseNvidiaSmiCsv(header + "0, A100, lots MiB, 3 MiB, 0 %\n", "").status(),
                  {"line 2", "memory.total", "'lots MiB'"});
  ExpectErrorWith(ParseNvidiaSmiCsv(header + "x, A100, 81920 MiB, 3 MiB, 0 %\n", "").status(),
                  {"line 2", "index", "'x'"});
  ExpectErrorWith(ParseNvidiaSmiCsv(header + "0, A100, 81920 MiB, 3 MiB, 140 %\n", "").status(),
                  {"line 2", "utilization.gpu", "'140 %'"});
  ExpectErrorWith(ParseNvidiaSmiCsv("index, memory.total [MiB]\n0, 81920 MiB\n", "").status(),
                  {"line 1", "no column 'name'"});
  ExpectErrorWith(ParseNvidiaSmiCsv("No devices were found\n", "").status(), {"found no GPUs"});
}

}  // namespace
}  // namespace squeeze
