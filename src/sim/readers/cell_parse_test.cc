#include "sim/readers/cell_parse.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::string ReasonOf(const Status& s) { return s.ok() ? "(ok)" : s.message(); }

TEST(CellParseTest, DaysFromCivil) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1) - DaysFromCivil(2000, 2, 28), 2);  // 2000 is leap
  EXPECT_EQ(DaysFromCivil(1900, 3, 1) - DaysFromCivil(1900, 2, 28), 1);  // 1900 is not
  EXPECT_EQ(DaysFromCivil(2017, 1, 1), 17167);
  EXPECT_EQ(DaysFromCivil(1600, 1, 1), -135140);
}

TEST(CellParseTest, TimestampsAreUtcSeconds) {
  EXPECT_EQ(*ParseTimestampCell("1970-01-01 00:00:00"), 0);
  EXPECT_EQ(*ParseTimestampCell("1969-12-31 23:59:59"), Seconds(-1));
  EXPECT_EQ(*ParseTimestampCell("2017-10-09 07:01:55"), Seconds(1507532515));
  EXPECT_EQ(*ParseTimestampCell("2017-10-09T07:01:55"), Seconds(1507532515));
  EXPECT_EQ(*ParseTimestampCell("2016-02-29 12:00:00"), Seconds(1456747200));
  const std::string bad = "is not a timestamp (expected YYYY-MM-DD HH:MM:SS, UTC)";
  const std::string invalid = "is not a valid date and time (expected YYYY-MM-DD HH:MM:SS, UTC)";
  EXPECT_EQ(ReasonOf(ParseTimestampCell("").status()), bad);
  EXPECT_EQ(ReasonOf(ParseTimestampCell("2017-10-09").status()), bad);
  EXPECT_EQ(ReasonOf(ParseTimestampCell("2017-10-09 7:01:55").status()), bad);
  EXPECT_EQ(ReasonOf(ParseTimestampCell("2017-1O-09 07:01:55").status()), bad);
  EXPECT_EQ(ReasonOf(ParseTimestampCell("2017-10-09 07:01:55Z").status()), bad);
  EXPECT_EQ(ReasonOf(ParseTimestampCell("2017-02-29 00:00:00").status()), invalid);
  EXPECT_EQ(ReasonOf(ParseTimestampCell("2017-00-10 00:00:00").status()), invalid);
  EXPECT_EQ(ReasonOf(ParseTimestampCell("2017-04-31 00:00:00").status()), invalid);
  EXPECT_EQ(ReasonOf(ParseTimestampCell("2017-10-09 24:00:00").status()), invalid);
  EXPECT_EQ(ReasonOf(ParseTimestampCell("2017-10-09 23:60:00").status()), invalid);
}

TEST(CellParseTest, Integers) {
  EXPECT_EQ(*ParseIntegerCell("42", 0, 100), 42);
  EXPECT_EQ(*ParseIntegerCell("-3", -5, 5), -3);
  EXPECT_EQ(ReasonOf(ParseIntegerCell("", 0, 9).status()), "is empty");
  EXPECT_EQ(ReasonOf(ParseIntegerCell("4.0", 0, 9).status()), "is not an integer");
  EXPECT_EQ(ReasonOf(ParseIntegerCell("+4", 0, 9).status()), "is not an integer");
  EXPECT_EQ(ReasonOf(ParseIntegerCell("4 GPUs", 0, 9).status()), "is not an integer");
  EXPECT_EQ(ReasonOf(ParseIntegerCell("0", 1, 9).status()), "must be >= 1");
  EXPECT_EQ(ReasonOf(ParseIntegerCell("10", 1, 9).status()), "must be <= 9");
  EXPECT_EQ(ReasonOf(ParseIntegerCell("99999999999999999999", 0, 9).status()),
            "is out of range");
}

TEST(CellParseTest, Numbers) {
  EXPECT_DOUBLE_EQ(*ParseNumberCell("66.0"), 66.0);
  EXPECT_DOUBLE_EQ(*ParseNumberCell("1e3"), 1000.0);
  EXPECT_EQ(ReasonOf(ParseNumberCell("inf").status()), "is not a number");
  EXPECT_EQ(ReasonOf(ParseNumberCell("6 s").status()), "is not a number");
}

TEST(CellParseTest, Seconds) {
  EXPECT_EQ(*ParseSecondsCell("0", 0), 0);
  EXPECT_EQ(*ParseSecondsCell("3600", 1), kHour);
  EXPECT_EQ(*ParseSecondsCell("90s", 1), 90 * kSecond);
  EXPECT_EQ(*ParseSecondsCell("30m", 1), 30 * kMinute);
  EXPECT_EQ(*ParseSecondsCell("12h", 1), 12 * kHour);
  EXPECT_EQ(*ParseSecondsCell("1d1h", 1), kDay + kHour);
  EXPECT_EQ(ReasonOf(ParseSecondsCell("-5", 0).status()), "must be >= 0");
  EXPECT_EQ(ReasonOf(ParseSecondsCell("0", 1).status()), "must be >= 1");
  EXPECT_EQ(ReasonOf(ParseSecondsCell("-x", 1).status()),
            "is not a duration (use seconds or forms like 90s, 30m, 12h, 2d, 1h30m)");
  EXPECT_EQ(ReasonOf(ParseSecondsCell("99999999999999", 0).status()),
            "must be <= 1000000000000");
}

TEST(CellParseTest, Booleans) {
  for (const char* yes : {"true", "TRUE", "Yes", "1"}) EXPECT_TRUE(*ParseBoolCell(yes)) << yes;
  for (const char* no : {"false", "No", "0"}) EXPECT_FALSE(*ParseBoolCell(no)) << no;
  EXPECT_EQ(ReasonOf(ParseBoolCell("y").status()),
            "is not a boolean (use true/false, yes/no or 1/0)");
}

TEST(CellParseTest, ListsAndNames) {
  EXPECT_THAT(SplitListCell("A100| H100 ||V100 "), ElementsAre("A100", "H100", "V100"));
  EXPECT_THAT(SplitListCell("x"), ElementsAre("x"));
  EXPECT_THAT(SplitListCell(" | "), IsEmpty());
  EXPECT_EQ(NormalizeName("  Submit_Time\t"), "submit_time");
}

}  // namespace
}  // namespace squeeze
