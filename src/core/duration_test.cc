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
  EXPECT_EQ(Parsed("90s"), 90 * kSecond);
  EXPECT_EQ(Parsed("30m"), 1800 * kSecond);
  EXPECT_EQ(Parsed("12h"), 43200 * kSecond);
  EXPECT_EQ(Parsed("2d"), 172800 * kSecond);
  EXPECT_EQ(Parsed("45"), 45 * kSecond);
  EXPECT_EQ(Parsed("0"), 0);
}

TEST(ParseDurationTest, CompoundAndFractional) {
  EXPECT_EQ(Parsed("1h30m"), 5400 * kSecond);
  EXPECT_EQ(Parsed("1d2h3m4s"), 93784 * kSecond);
  EXPECT_EQ(Parsed("1.5h"), 5400 * kSecond);
  EXPECT_EQ(Parsed("0.5m"), 30 * kSecond);
  EXPECT_EQ(Parsed("1.4"), 1 * kSecond);  // rounded to the nearest second
  EXPECT_EQ(Parsed("1.6"), 2 * kSecond);
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

TEST(ParseDurationTest, SlurmClockForms) {
  EXPECT_EQ(Parsed("1:30"), 90 * kSecond);              // MM:SS
  EXPECT_EQ(Parsed("90:00"), 5400 * kSecond);           // minutes may pass 59 in MM:SS
  EXPECT_EQ(Parsed("1:00:00"), 3600 * kSecond);         // HH:MM:SS
  EXPECT_EQ(Parsed("48:00:00"), 172800 * kSecond);
  EXPECT_EQ(Parsed("2-12"), 216000 * kSecond);          // D-HH
  EXPECT_EQ(Parsed("1-02:03"), 93780 * kSecond);        // D-HH:MM
  EXPECT_EQ(Parsed("1-02:03:04"), 93784 * kSecond);     // D-HH:MM:SS
  EXPECT_EQ(Parsed("0:00"), 0);
}

TEST(ParseDurationTest, BrokenClockFormsSayWhy) {
  const std::string forms = " (forms: MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS)";
  EXPECT_EQ(ErrorOf("1:75:00"), "'1:75:00' is not a duration: minutes 75 are not below 60" + forms);
  EXPECT_EQ(ErrorOf("1:60"), "'1:60' is not a duration: seconds 60 are not below 60" + forms);
  EXPECT_EQ(ErrorOf("1-24"), "'1-24' is not a duration: hours 24 after the days are not below 24" + forms);
  EXPECT_EQ(ErrorOf("1:2:3:4"), "'1:2:3:4' is not a duration: more than three fields" + forms);
  EXPECT_EQ(ErrorOf("1:x"), "'1:x' is not a duration: 'x' is not a number" + forms);
  EXPECT_EQ(ErrorOf("1:"), "'1:' is not a duration: '' is not a number" + forms);
  EXPECT_EQ(ErrorOf("x-1"), "'x-1' is not a duration: the days before '-' are not a number" + forms);
  EXPECT_EQ(ErrorOf("1:30s"), "'1:30s' is not a duration: '30s' is not a number" + forms);
  EXPECT_EQ(ErrorOf("-5"), "'-5' is not a duration (use seconds or forms like 90s, 30m, 12h, 2d)");
}

TEST(ParseSlurmTimeTest, APlainNumberIsMinutesAndZeroIsNoLimit) {
  auto parsed = [](const char* text) {
    auto r = ParseSlurmTime(text);
    EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
    return r.ok() ? *r : -1;
  };
  EXPECT_EQ(parsed("30"), 1800 * kSecond);
  EXPECT_EQ(parsed("1:30"), 90 * kSecond);
  EXPECT_EQ(parsed("2:00:00"), 7200 * kSecond);
  EXPECT_EQ(parsed("1-00:00:00"), 86400 * kSecond);
  EXPECT_EQ(parsed("0"), 0);
  EXPECT_EQ(parsed("UNLIMITED"), 0);
  EXPECT_EQ(parsed("INFINITE"), 0);
  EXPECT_EQ(parsed("30m"), 1800 * kSecond);  // squeeze's own forms too
  EXPECT_EQ(parsed("1h30m"), 5400 * kSecond);
  EXPECT_EQ(ParseSlurmTime("1:3x").status().message(),
            "'1:3x' is not a duration: '3x' is not a number (forms: MM:SS, HH:MM:SS, D-HH, "
            "D-HH:MM, D-HH:MM:SS, or minutes)");
  EXPECT_FALSE(ParseSlurmTime("abc").ok());
  EXPECT_FALSE(ParseSlurmTime("").ok());
}

TEST(FormatDurationTest, ShortestExactForm) {
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(45 * kSecond), "45s");
  EXPECT_EQ(FormatDuration(1800 * kSecond), "30m");
  EXPECT_EQ(FormatDuration(5400 * kSecond), "1h30m");
  EXPECT_EQ(FormatDuration(7500 * kSecond), "2h5m");
  EXPECT_EQ(FormatDuration(3600 * kSecond), "1h");
  EXPECT_EQ(FormatDuration(273600 * kSecond), "3d4h");
  EXPECT_EQ(FormatDuration(93784 * kSecond), "1d2h3m4s");
  EXPECT_EQ(FormatDuration(-90 * kSecond), "-1m30s");
}

TEST(FormatDurationTest, RoundTripsThroughParse) {
  for (Time s : {1, 59, 60, 61, 3599, 3600, 86399, 86400, 90061, 1000000}) {
    const Time t = s * kSecond;
    EXPECT_EQ(Parsed(FormatDuration(t).c_str()), t) << FormatDuration(t);
  }
}

TEST(FormatDurationTest, APartOfASecondWhereATickIsShorter) {
  if (kSecond < 100) GTEST_SKIP() << "a tick of a second";
  EXPECT_EQ(FormatDuration(kSecond / 2), "0.5s");
  EXPECT_EQ(FormatDuration(kMinute + kSecond / 4), "1m0.25s");
  EXPECT_EQ(FormatDuration(-(kSecond + kSecond / 2)), "-1.5s");
  EXPECT_EQ(FormatDuration(kHour + kSecond / 2), "1h0.5s");
  EXPECT_EQ(Parsed("1.5"), 2 * kSecond);  // durations people write are whole seconds
}

TEST(ParseDurationTest, ClockFormsLongerThanAnyTimeAreRefused) {
  EXPECT_FALSE(ParseDuration("99999999999-00").ok());
  EXPECT_FALSE(ParseDuration("999999999999:00:00").ok());
  EXPECT_EQ(Parsed("9999-00"), 9999 * kDay);
}

// A hostile or careless value cannot overflow a Time of milliseconds: more than 1e12 seconds
// (in any form) is refused, the limit itself taken.
TEST(ParseDurationTest, DurationsLongerThanAnyTimeTakesAreRefused) {
  EXPECT_EQ(Parsed("1000000000000"), Seconds(1'000'000'000'000));
  for (const char* big : {"1000000000001", "1000000000001s", "16666666667m", "277777778h",
                          "11574075d", "9223372036854775807", "1e300"}) {
    EXPECT_FALSE(ParseDuration(big).ok()) << big;
  }
  EXPECT_EQ(ParseDuration("1000000000001s").status().message(),
            "'1000000000001s' is longer than any duration squeeze takes (1e12 seconds)");
  EXPECT_FALSE(ParseDuration("11574075-00:00:00").ok());
  EXPECT_FALSE(ParseSlurmTime("16666666667").ok());  // minutes
}

}  // namespace
}  // namespace squeeze
