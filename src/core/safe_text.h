// Text that users chose, made safe to keep and to print to other users' terminals: UTF-8
// checks (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), the control
// characters a terminal acts on (C0, DEL, C1, and the bidirectional and line-separator
// formats that reorder or break what a row shows), the check every free-text field of a job
// goes through, and the escaping every printer uses. Pure functions; thread-safe.
#ifndef SQUEEZE_CORE_SAFE_TEXT_H_
#define SQUEEZE_CORE_SAFE_TEXT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace squeeze {

// The byte offset where `text` stops being valid UTF-8; nullopt when all of it is.
std::optional<size_t> InvalidUtf8At(std::string_view text);

// `text` with each byte that is not part of a valid UTF-8 sequence replaced by U+FFFD (as
// nlohmann::json's error_handler_t::replace does); valid text is returned unchanged.
std::string ValidUtf8(std::string_view text);

// A control character found in text: where it starts (bytes) and its code point.
struct ControlChar {
  size_t at = 0;
  char32_t code = 0;
};
// Whether `code` is one a terminal acts on: C0 (U+0000..U+001F), DEL, C1 (U+0080..U+009F),
// the bidirectional controls (U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) and the line and
// paragraph separators (U+2028, U+2029).
bool IsControl(char32_t code);
// The first control character of `text` that is not in `allowed` (C0 characters a field may
// hold, like "\t\n"); invalid UTF-8 is skipped (InvalidUtf8At finds it).
std::optional<ControlChar> FindControl(std::string_view text, std::string_view allowed = {});

// `text` as a terminal may show it: each control character as a visible escape (\n, \r, \t,
// \x1b for other C0 and DEL, \u0085 for C1 and the other formats) and invalid UTF-8 as U+FFFD.
// The controls in `keep` (like "\n" for a multi-line message) are left as they are.
std::string EscapeControls(std::string_view text, std::string_view keep = {});

// JSON text as nlohmann::json writes it (C0 controls escaped, the rest as it is) with the other
// control characters (DEL, C1, the formats) written as \uXXXX escapes too: the same JSON,
// safe to print on a terminal (`--json`). Invalid UTF-8 becomes U+FFFD.
std::string JsonForTerminal(std::string_view json_text);

// A value quoted for an error message: 'VALUE' with its control characters escaped as
// EscapeControls does and its invalid bytes as \xff (what was sent, byte for byte), cut to
// `max_chars` characters with "..." after.
std::string QuotedValue(std::string_view text, size_t max_chars = 80);

// A free-text field a user chose (a name, a path, a team) checked before it is kept: valid
// UTF-8 and no control character but those in `allowed`. The error names the field, shows the
// value escaped and says why (`why`: "names are printed to other users"):
//   name: '\x1b[2Jhi' holds a control character (\x1b); names are printed to other users
Status CheckPlainText(std::string_view field, std::string_view text, std::string_view why,
                      std::string_view allowed = {});

}  // namespace squeeze

#endif  // SQUEEZE_CORE_SAFE_TEXT_H_
