// How the job store keeps times: milliseconds since the epoch, and durations in milliseconds
// (schema 5; older stores kept seconds and are converted when opened). core's Time counts ticks
// (core/types.h); these convert at the store's edge. The GPU sample tables keep whole seconds
// (gpu_sample_store.cc: a sample a minute needs no more).
#ifndef SQUEEZE_STORE_STORE_TIME_H_
#define SQUEEZE_STORE_STORE_TIME_H_

#include <cstdint>
#include <optional>

#include "core/types.h"

namespace squeeze {

constexpr int64_t ToStoreMillis(Time t) { return WholeMilliseconds(t); }
constexpr Time FromStoreMillis(int64_t ms) { return FromMilliseconds(ms); }

inline std::optional<int64_t> ToStoreMillis(const std::optional<Time>& t) {
  if (!t) return std::nullopt;
  return ToStoreMillis(*t);
}

inline std::optional<Time> FromStoreMillis(const std::optional<int64_t>& ms) {
  if (!ms) return std::nullopt;
  return FromStoreMillis(*ms);
}

}  // namespace squeeze

#endif  // SQUEEZE_STORE_STORE_TIME_H_
