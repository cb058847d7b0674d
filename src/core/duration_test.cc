#include "core/duration.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

Time Parsed(const char* text) {
  auto r = ParseDuration(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
  return r.ok() ? *r : -1;
}

std::string ErrorOf(const char* text) {
  auto r = ParseDuration(text);
  return r.ok() ? "(parsed as " + std::to_string(*r) + ")" : r.status().message();
}

TEST(ParseDurationTest, UnitsAndPlainSeconds) {
  EXPECT_EQ(Parsed("90s"), 90);
  EXPECT_EQ(Parsed("30m"), 1800);
  EXPECT_EQ(Parsed("12h"), 43200);
  EXPECT_EQ(Parsed("2d"), 172800);
  EXPECT_EQ(Parsed("45"), 45);
  EXPECT_EQ(Parsed("0"), 0);
}

TEST(ParseDurationTest, CompoundAndFractional) {
  EXPECT_EQ(Parsed("1h30m"), 5400);
  EXPECT_EQ(Parsed("1d2h3m4s"), 93784);
  EXPECT_EQ(Parsed("1.5h"), 5400);
  EXPECT_EQ(Parsed("0.5m"), 30);
  EXPECT_EQ(Parsed("1.4"), 1);  // rounded to the nearest second
  EXPECT_EQ(Parsed("1.6"), 2);
}

TEST(ParseDurationTest, RejectsWhatIsNotADuration) {
  const std::string hint = " is not a duration (use seconds or forms like 90s, 30m, 12h, 2d)";
  EXPECT_EQ(ErrorOf(""), "''" + hint);
  EXPECT_EQ(ErrorOf("abc"), "'abc'" + hint);
  EXPECT_EQ(ErrorOf("1h30"), "'1h30'" + hint);  // ambiguous: 30 what?
  EXPECT_EQ(ErrorOf("-5"), "'-5'" + hint);
  EXPECT_EQ(ErrorOf("5x"), "'5x'" + hint);
  EXPECT_EQ(ErrorOf("h"), "'h'" + hint);
  EXPECT_EQ(ErrorOf("1..5"), "'1..5'" + hint);
  EXPECT_EQ(ErrorOf("1h 30m"), "'1h 30m'" + hint);
}

TEST(FormatDurationTest, ShortestExactForm) {
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(45), "45s");
  EXPECT_EQ(FormatDuration(1800), "30m");
  EXPECT_EQ(FormatDuration(5400), "1h30m");
  EXPECT_EQ(FormatDuration(7500), "2h5m");
  EXPECT_EQ(FormatDuration(3600), "1h");
  EXPECT_EQ(FormatDuration(273600), "3d4h");
  EXPECT_EQ(FormatDuration(93784), "1d2h3m4s");
  EXPECT_EQ(FormatDuration(-90), "-1m30s");
}

TEST(FormatDurationTest, RoundTripsThroughParse) {
  for (Time t : {1, 59, 60, 61, 3599, 3600, 86399, 86400, 90061, 1000000}) {
    EXPECT_EQ(Parsed(FormatDuration(t).c_str()), t) << FormatDuration(t);
  }
}

}  // namespace
}  // namespace squeeze
