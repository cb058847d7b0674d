#include "core/idle/hour_of_week.h"

#include <array>
#include <cstdio>

namespace squeeze {
namespace {

// 1970-01-01 was a Thursday: the Monday before it is 3 days earlier.
constexpr Time kFirstMonday = -3 * kDay;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

int HourOfWeek(Time t) {
  const Time into_week = (t - kFirstMonday) - FloorDiv(t - kFirstMonday, kWeek) * kWeek;
  return static_cast<int>(into_week / kHour);
}

int64_t WeekIndex(Time t) { return FloorDiv(t - kFirstMonday, kWeek); }

Time WeekStart(int64_t week) { return kFirstMonday + week * kWeek; }

std::string DayName(int day) {
  static constexpr std::array<const char*, 7> kNames = {"Mon", "Tue", "Wed", "Thu",
                                                        "Fri", "Sat", "Sun"};
  return kNames[((day % 7) + 7) % 7];
}

std::string HourText(int hour_of_day) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02d:00", hour_of_day);
  return buf;
}

std::string IsoTime(Time t) {
  // Howard Hinnant's civil_from_days.
  const int64_t days = FloorDiv(t, kDay);
  const int64_t secs = WholeSeconds(t - days * kDay);  // of the day
  const int64_t z = days + 719468;
  const int64_t era = FloorDiv(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ",
                static_cast<long long>(year), static_cast<long long>(month),
                static_cast<long long>(day), static_cast<long long>(secs / 3600),
                static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  return buf;
}

}  // namespace squeeze
