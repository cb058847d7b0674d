// Parsers for single cells of a trace file. A failed parse is a Status whose message is the
// reason, phrased to follow "value 'X' " (e.g. "is not an integer", "must be >= 1"); the
// trace reader adds the file, line and column. Stateless and thread-safe.
#ifndef SQUEEZE_SIM_READERS_CELL_PARSE_H_
#define SQUEEZE_SIM_READERS_CELL_PARSE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/types.h"

namespace squeeze {

// The largest time a trace may state, a number of seconds (about 31,700 years).
constexpr int64_t kMaxTraceSeconds = 1'000'000'000'000;
// The most GPUs one job may ask for.
constexpr int64_t kMaxJobGpus = 1 << 16;

// A decimal integer in [min, max], optional leading '-'.
Result<int64_t> ParseIntegerCell(std::string_view text, int64_t min, int64_t max);
// A finite decimal number (e.g. "66.0", "1e3").
Result<double> ParseNumberCell(std::string_view text);
// Plain seconds or a duration such as "90s", "30m", "1h30m" (see ParseDuration), rounded to a
// whole second, in [min_seconds, kMaxTraceSeconds] seconds; a Time.
Result<Time> ParseSecondsCell(std::string_view text, int64_t min_seconds);
// true/false, yes/no, 1/0, any case.
Result<bool> ParseBoolCell(std::string_view text);
// "YYYY-MM-DD HH:MM:SS" (or with a 'T' between date and time), read as UTC: the Time since
// 1970-01-01 00:00:00.
Result<Time> ParseTimestampCell(std::string_view text);
// Days from 1970-01-01 to the given proleptic Gregorian date (negative before it).
int64_t DaysFromCivil(int64_t year, int month, int day);

// Splits "a|b|c" on '|', trimming spaces around each piece and dropping empty pieces.
std::vector<std::string> SplitListCell(std::string_view text);
// ASCII lower case, spaces around trimmed.
std::string NormalizeName(std::string_view text);

// A value as messages show it: cut to 37 characters and "..." past 40.
std::string ShowCell(std::string_view value);
// "SOURCE:LINE: column 'COLUMN': value 'VALUE' REASON", the value shown as ShowCell does.
Status CellErrorAt(const std::string& source, int line, std::string_view column,
                   std::string_view value, const std::string& reason);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_READERS_CELL_PARSE_H_
