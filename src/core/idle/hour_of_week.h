// Calendar arithmetic of the idle-window analysis: UTC weeks that start on Monday 00:00 and the
// 168 hours of such a week (Monday 00:00-01:00 = hour 0, Sunday 23:00-24:00 = hour 167). Pure
// functions; thread-safe.
#ifndef SQUEEZE_CORE_IDLE_HOUR_OF_WEEK_H_
#define SQUEEZE_CORE_IDLE_HOUR_OF_WEEK_H_

#include <cstdint>
#include <string>

#include "core/types.h"

namespace squeeze {

constexpr int kHoursPerWeek = 168;
static_assert(kWeek == kHoursPerWeek * kHour);

// The hour of the week of unix time `t` (a Time, UTC), 0..167.
int HourOfWeek(Time t);
// The number of the Monday-based UTC week holding `t` (week 0 starts Monday 1969-12-29).
int64_t WeekIndex(Time t);
// The unix time at which week `week` starts (Monday 00:00 UTC).
Time WeekStart(int64_t week);
// "Mon" .. "Sun" for day 0..6 (taken modulo 7).
std::string DayName(int day);
// "HH:00" for an hour of the day 0..24 ("24:00" for the end of a day).
std::string HourText(int hour_of_day);
// ISO-8601 UTC, "2026-11-02T01:00:00Z" (whole seconds, rounded down).
std::string IsoTime(Time t);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_IDLE_HOUR_OF_WEEK_H_
