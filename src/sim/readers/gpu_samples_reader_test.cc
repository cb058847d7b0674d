#include "sim/readers/gpu_samples_reader.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

std::string ErrorOf(const std::string& text) {
  auto r = ParseGpuSamples(text, "s.csv");
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

TEST(GpuSamplesReaderTest, ReadsUnixAndIsoTimesFractionsAndPercents) {
  auto r = ParseGpuSamples(
      "time,node,gpu,utilization,memory_used_mib\n"
      "1793577600,node-1,0,0.35,1024\n"
      "2026-11-02T01:00:00Z,node-1,1,35 %,\n"
      "2026-11-02T02:00:00Z,node-2,7,100%,0\n",
      "s.csv");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].time, Seconds(1793577600));
  EXPECT_DOUBLE_EQ((*r)[0].utilization, 0.35);
  EXPECT_EQ((*r)[0].memory_used_mib, 1024);
  EXPECT_EQ((*r)[1].time, Seconds(1793577600) + kHour);
  EXPECT_DOUBLE_EQ((*r)[1].utilization, 0.35);
  EXPECT_FALSE((*r)[1].memory_used_mib.has_value());
  EXPECT_EQ((*r)[2].node, "node-2");
  EXPECT_EQ((*r)[2].gpu, 7);
  EXPECT_DOUBLE_EQ((*r)[2].utilization, 1.0);
}

TEST(GpuSamplesReaderTest, MemoryColumnIsOptional) {
  auto r = ParseGpuSamples("time,node,gpu,utilization\n10,n,0,0\n", "s.csv");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->size(), 1u);
}

TEST(GpuSamplesReaderTest, BadTimeNamesLineColumnAndValue) {
  EXPECT_EQ(ErrorOf("time,node,gpu,utilization\n10,n,0,0\n2026-13-02T01:00:00Z,n,0,0\n"),
            "s.csv:3: column 'time': value '2026-13-02T01:00:00Z' is not a time (expected unix "
            "seconds or ISO-8601 UTC such as 2026-11-02T01:00:00Z)");
  EXPECT_NE(ErrorOf("time,node,gpu,utilization\nyesterday,n,0,0\n").find("value 'yesterday'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("time,node,gpu,utilization\n2026-11-02 01:00:00,n,0,0\n").find(":2: column 'time'"),
            std::string::npos);
}

TEST(GpuSamplesReaderTest, UtilizationOutOfRange) {
  EXPECT_EQ(ErrorOf("time,node,gpu,utilization\n10,n,0,35\n"),
            "s.csv:2: column 'utilization': value '35' is out of range: a fraction must be 0 to 1 "
            "(write a percent as 35%)");
  EXPECT_EQ(ErrorOf("time,node,gpu,utilization\n10,n,0,120%\n"),
            "s.csv:2: column 'utilization': value '120%' is out of range: a percent must be 0% to "
            "100%");
  EXPECT_EQ(ErrorOf("time,node,gpu,utilization\n10,n,0,-0.1\n").substr(0, 45),
            "s.csv:2: column 'utilization': value '-0.1' i");
  EXPECT_EQ(ErrorOf("time,node,gpu,utilization\n10,n,0,busy\n"),
            "s.csv:2: column 'utilization': value 'busy' is not a utilization (expected 0..1 or a "
            "percent like 35%)");
}

TEST(GpuSamplesReaderTest, MissingColumn) {
  EXPECT_EQ(ErrorOf("time,node,utilization\n10,n,0\n"),
            "s.csv:1: missing column 'gpu' (the header must be "
            "time,node,gpu,utilization[,memory_used_mib])");
  EXPECT_EQ(ErrorOf("time,node,gpu,utilization,power\n10,n,0,0,1\n"),
            "s.csv:1: unexpected column 'power' (the header must be "
            "time,node,gpu,utilization[,memory_used_mib])");
}

TEST(GpuSamplesReaderTest, WrongColumnCount) {
  EXPECT_EQ(ErrorOf("time,node,gpu,utilization\n10,n,0,0\n20,n,0\n"),
            "s.csv:3: the row has 3 fields, the header 4");
  EXPECT_EQ(ErrorOf("time,node,gpu,utilization\n10,n,0,0,5\n"),
            "s.csv:2: the row has 5 fields, the header 4");
}

TEST(GpuSamplesReaderTest, OtherBrokenCells) {
  EXPECT_EQ(ErrorOf("time,node,gpu,utilization\n10,,0,0\n"),
            "s.csv:2: column 'node': value '' is empty");
  EXPECT_NE(ErrorOf("time,node,gpu,utilization\n10,n,zero,0\n").find("column 'gpu': value 'zero'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("time,node,gpu,utilization,memory_used_mib\n10,n,0,0,-5\n")
                .find("column 'memory_used_mib': value '-5'"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("time,node,gpu,utilization\n10,n,0,0\n10,n,0,0.5\n"),
            "s.csv:3: node 'n' GPU 0 has a second sample at time '10' (the first on line 2)");
  EXPECT_EQ(ErrorOf(""), "s.csv: the file is empty; expected the header "
                         "time,node,gpu,utilization[,memory_used_mib] and one row per sample");
  EXPECT_EQ(ErrorOf("time,node,gpu,utilization\n"), "s.csv: the file has a header but no samples");
}

}  // namespace
}  // namespace squeeze
