#include "config/text_util.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

TEST(TextUtilTest, TrimAndBom) {
  EXPECT_EQ(Trim("  a b \t\r"), "a b");
  EXPECT_EQ(Trim(" \r "), "");
  EXPECT_EQ(StripBom("\xEF\xBB\xBFpool"), "pool");
  EXPECT_EQ(StripBom("pool"), "pool");
}

TEST(TextUtilTest, ParseInt64IsStrict) {
  EXPECT_EQ(ParseInt64("42"), 42);
  EXPECT_EQ(ParseInt64("+7"), 7);
  EXPECT_EQ(ParseInt64("-3"), -3);
  for (const char* bad : {"", "+", "-", "++1", "4x", "1.0", " 1", "0x10", "99999999999999999999"}) {
    EXPECT_FALSE(ParseInt64(bad).has_value()) << bad;
  }
}

TEST(TextUtilTest, ParseDoubleIsStrictAndFinite) {
  EXPECT_EQ(ParseDouble("2.5"), 2.5);
  EXPECT_EQ(ParseDouble("1e-3"), 1e-3);
  EXPECT_EQ(ParseDouble("-0.5"), -0.5);
  EXPECT_EQ(ParseDouble("3"), 3.0);
  for (const char* bad : {"", "cheap", "1.5.1", "inf", "nan", "1e999", "2 "}) {
    EXPECT_FALSE(ParseDouble(bad).has_value()) << bad;
  }
}

TEST(TextUtilTest, EditDistanceAndNearestName) {
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("gpus", "gpus"), 0u);
  const std::vector<std::string_view> names = {"gpus", "gpu_milli", "gpu_models", "team"};
  EXPECT_EQ(NearestName("gpu", names), "gpus");
  EXPECT_EQ(NearestName("gpu_model", names), "gpu_models");
  EXPECT_EQ(NearestName("taem", names), "team");
  EXPECT_FALSE(NearestName("colour", names).has_value());
}

}  // namespace
}  // namespace squeeze
