// Small text helpers shared by the config parsers (config-internal): trimming, strict number
// parsing that accepts the whole string or nothing, and the nearest name for typos. Pure
// functions; thread-safe.
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
// "1 job", "3 jobs", "0 jobs": a count with its noun, plural by an s.
std::string Counted(int64_t n, std::string_view noun);
// The non-empty items of a `sep`-separated list ("a,,b" -> {"a", "b"}).
std::vector<std::string> SplitList(std::string_view s, char sep);
// A finite decimal number (e.g. "2", "0.5", "1e-3"), nothing else; nullopt if not one.
std::optional<double> ParseDouble(std::string_view s);
// A user's or a team's name as tokens and limits take them: 1 to 64 of A-Z a-z 0-9 . _ -.
bool IsPlainName(std::string_view s);
// Edit distance counting insertions, deletions, substitutions and swaps of adjacent bytes
// (optimal string alignment).
size_t EditDistance(std::string_view a, std::string_view b);
// The candidate closest to `name` by edit distance, if it is close enough to be a typo (at most
// a third of the longer name, and at least 1 edit allowed); nullopt otherwise.
std::optional<std::string> NearestName(std::string_view name,
                                       const std::vector<std::string_view>& candidates);

}  // namespace squeeze

#endif  // SQUEEZE_CONFIG_TEXT_UTIL_H_
