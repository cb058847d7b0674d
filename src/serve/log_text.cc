#include "serve/log_text.h"

#include <algorithm>

#include "core/safe_text.h"

namespace squeeze {
namespace {

bool Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The bytes a character starting with `lead` takes (1 for a byte that starts none).
size_t LengthOf(char lead) {
  const auto b = static_cast<unsigned char>(lead);
  return b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
}

}  // namespace

LogText LogTextOf(std::string_view raw, int64_t size, std::optional<int64_t> from) {
  const auto length = static_cast<int64_t>(raw.size());
  const int64_t start = from ? std::min(*from, size) : std::max<int64_t>(0, size - length);
  size_t begin = 0;
  if (!from && start > 0) {  // the last bytes, from wherever they began
    while (begin < std::min<size_t>(3, raw.size()) && Continuation(raw[begin])) ++begin;
  }
  size_t end = raw.size();
  if (from && start + length < size) {  // the file goes on
    size_t lead = end;
    while (lead > begin && end - lead < 3 && Continuation(raw[lead - 1])) --lead;
    if (lead > begin + 1 && LengthOf(raw[lead - 1]) > end - (lead - 1)) end = lead - 1;
  }
  return {ValidUtf8(raw.substr(begin, end - begin)), start + static_cast<int64_t>(end)};
}

}  // namespace squeeze
