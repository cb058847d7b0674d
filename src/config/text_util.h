// Small text helpers shared by the cluster file parsers (config-internal): trimming and strict
// number parsing that accepts the whole string or nothing. Pure functions; thread-safe.
#ifndef SQUEEZE_CONFIG_TEXT_UTIL_H_
#define SQUEEZE_CONFIG_TEXT_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace squeeze {

// Drops spaces, tabs and carriage returns at both ends.
std::string_view Trim(std::string_view s);
// Drops a leading UTF-8 byte-order mark, if any.
std::string_view StripBom(std::string_view s);
// A decimal integer with an optional sign, nothing else; nullopt if not one or out of range.
std::optional<int64_t> ParseInt64(std::string_view s);
// The non-empty items of a `sep`-separated list ("a,,b" -> {"a", "b"}).
std::vector<std::string> SplitList(std::string_view s, char sep);
// A finite decimal number (e.g. "2", "0.5", "1e-3"), nothing else; nullopt if not one.
std::optional<double> ParseDouble(std::string_view s);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_TEXT_UTIL_H_
