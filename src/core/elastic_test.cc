#include "core/elastic.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::HasSubstr;

TEST(ScalingTest, ParsesTheThreeForms) {
  auto linear = ParseScaling("linear");
  ASSERT_TRUE(linear.ok());
  EXPECT_DOUBLE_EQ(Throughput(*linear, 6), 6);
  auto amdahl = ParseScaling("amdahl:0.95");
  ASSERT_TRUE(amdahl.ok());
  EXPECT_NEAR(Throughput(*amdahl, 8), 1 / (0.05 + 0.95 / 8), 1e-12);
  EXPECT_DOUBLE_EQ(Throughput(*amdahl, 1), 1);
  EXPECT_EQ(ScalingText(*amdahl), "amdahl:0.95");
  auto table = ParseScaling("1:100,2:190,4:340");
  ASSERT_TRUE(table.ok());
  EXPECT_DOUBLE_EQ(Throughput(*table, 2), 190);
  EXPECT_DOUBLE_EQ(Throughput(*table, 3), 265);   // between 2 and 4
  EXPECT_DOUBLE_EQ(Throughput(*table, 16), 340);  // flat beyond the last
  EXPECT_EQ(ScalingText(*table), "1:100,2:190,4:340");
}

TEST(ScalingTest, BrokenTextsNameTheValue) {
  for (const char* bad : {"", "amdahl:", "amdahl:1.5", "amdahl:x", "cubic", "1:1,1:2",
                          "2:1,1:2", "0:1", "1:-2", "1:nan", "1:1,", "1:inf"}) {
    SCOPED_TRACE(bad);
    auto s = ParseScaling(bad);
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(s.status().message(), HasSubstr("scaling '"));
  }
  auto long_text = ParseScaling(std::string(500, '9'));
  ASSERT_FALSE(long_text.ok());
  EXPECT_LT(long_text.status().message().size(), 300u);  // the value is cut, not echoed whole
}

TEST(GpuRangeTest, ParsesARangeOrACount) {
  auto range = ParseGpuRange("2-8", "gpus");
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(range->min, 2);
  EXPECT_EQ(range->max, 8);
  EXPECT_TRUE(range->enabled());
  auto count = ParseGpuRange("4", "gpus");
  ASSERT_TRUE(count.ok());
  EXPECT_FALSE(count->enabled());
  for (const char* bad : {"", "-", "8-2", "0-4", "2-", "-8", "a-b", "2-8-9", "1-9999999", "2 -8"}) {
    SCOPED_TRACE(bad);
    auto r = ParseGpuRange(bad, "--gpus");
    ASSERT_FALSE(r.ok());
    EXPECT_THAT(r.status().message(), HasSubstr("--gpus '"));
  }
}

TEST(GpuRangeTest, WidthsFollowTheStep) {
  ElasticSpec e;
  e.min = 2;
  e.max = 9;
  e.step = 3;
  EXPECT_EQ(WidestWithin(e, 7), 5);
  EXPECT_EQ(WidestWithin(e, 100), 8);
  EXPECT_EQ(WidestWithin(e, 1), 0);
  EXPECT_EQ(GpuRangeText(e), "2-9:3");
  EXPECT_TRUE(ValidateElastic(e).ok());
  e.step = 0;
  EXPECT_THAT(ValidateElastic(e).message(), HasSubstr("step 0"));
}

TEST(ElasticSpeedTest, AgainstTheReferenceWidth) {
  ElasticSpec e;
  e.min = 1;
  e.max = 8;
  e.reference = 4;
  EXPECT_DOUBLE_EQ(ElasticSpeed(e, {}, 2), 0.5);
  EXPECT_DOUBLE_EQ(ElasticSpeed(e, {}, 8), 2.0);
  // Measured: 100 at 1 GPU and 300 at 4; 2 GPUs scaled from the nearest measured (1), linearly.
  MeasuredRates measured = {{1, 100}, {4, 300}};
  EXPECT_DOUBLE_EQ(ElasticSpeed(e, measured, 1), 1.0 / 3);
  EXPECT_DOUBLE_EQ(ElasticSpeed(e, measured, 4), 1.0);
  EXPECT_DOUBLE_EQ(ElasticSpeed(e, measured, 2), 200.0 / 300);
}

}  // namespace
}  // namespace squeeze
