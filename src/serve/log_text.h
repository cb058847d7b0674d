// A stretch of a job's log (or its own output file) as GET /v1/jobs/ID/log returns it: JSON
// text is UTF-8, and a job writes what bytes it likes, so those that are not UTF-8 become
// U+FFFD, never an error. A character the stretch cuts at either end is left out rather than
// shown broken, and the answer says where the next read starts (`next_from_byte`, in the
// file's bytes, which `logs -f` follows). Pure; thread-safe.
#ifndef SQUEEZE_SERVE_LOG_TEXT_H_
#define SQUEEZE_SERVE_LOG_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace squeeze {

struct LogText {
  std::string text;             // UTF-8
  int64_t next_from_byte = 0;   // the file offset just after what `text` shows
};

// `raw`: the stretch read of a file of `size` bytes: from offset `from`, or (nullopt) its last
// bytes. A stretch that starts inside a character (the last N bytes) skips its rest; one that
// stops inside a character before the file's end leaves it to the next read (unless it is
// all the stretch holds).
LogText LogTextOf(std::string_view raw, int64_t size, std::optional<int64_t> from);

}  // namespace squeeze

#endif  // SQUEEZE_SERVE_LOG_TEXT_H_
