#include "core/safe_text.h"

#include <cstdio>

namespace squeeze {
namespace {

// One character decoded at the start of some text: its code point and length in bytes, or,
// when invalid, the length of its maximal ill-formed prefix (at least 1: the bytes one U+FFFD
// stands for, as Unicode's "substitution of maximal subparts" counts them).
struct Decoded {
  char32_t code = 0;
  size_t length = 1;
  bool valid = false;
};

Decoded DecodeOne(std::string_view s) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {lead, 1, true};
  size_t need = 0;
  char32_t code = 0;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range (RFC 3629's table)
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 1;
    code = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 2;
    code = lead & 0x0F;
    if (lead == 0xE0) low = 0xA0;   // no overlong form
    if (lead == 0xED) high = 0x9F;  // no surrogate
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 3;
    code = lead & 0x07;
    if (lead == 0xF0) low = 0x90;   // no overlong form
    if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    return {};  // a continuation byte, C0, C1 (overlong) or F5..FF: never a lead
  }
  for (size_t i = 1; i <= need; ++i) {
    const unsigned char lo = i == 1 ? low : 0x80, hi = i == 1 ? high : 0xBF;
    if (i >= s.size() || byte(i) < lo || byte(i) > hi) return {0, i, false};
    code = (code << 6) | (byte(i) & 0x3F);
  }
  return {code, need + 1, true};
}

// The visible form of control character `code`.
std::string EscapeOf(char32_t code) {
  switch (code) {
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      break;
  }
  char text[16];
  std::snprintf(text, sizeof text, code < 0x80 ? "\\x%02x" : "\\u%04x",
                static_cast<unsigned>(code));
  return text;
}

bool Kept(char32_t code, std::string_view keep) {
  return code < 0x80 && keep.find(static_cast<char>(code)) != std::string_view::npos;
}

// EscapeControls and QuotedValue: invalid bytes as U+FFFD, or as \xNN each.
std::string Escape(std::string_view text, std::string_view keep, bool show_bytes,
                   size_t max_chars) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++chars) {
    if (chars == max_chars) return out + "...";
    const Decoded d = DecodeOne(text.substr(i));
    if (!d.valid) {
      if (!show_bytes) {
        out += "\xEF\xBF\xBD";
      } else {
        for (size_t b = 0; b < d.length; ++b) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(text[i + b]));
          out += hex;
        }
      }
    } else if (IsControl(d.code) && !Kept(d.code, keep)) {
      out += EscapeOf(d.code);
    } else {
      out.append(text.substr(i, d.length));
    }
    i += d.length;
  }
  return out;
}

}  // namespace

std::optional<size_t> InvalidUtf8At(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const Decoded d = DecodeOne(text.substr(i));
    if (!d.valid) return i;
    i += d.length;
  }
  return std::nullopt;
}

std::string ValidUtf8(std::string_view text) {
  if (!InvalidUtf8At(text)) return std::string(text);
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const Decoded d = DecodeOne(text.substr(i));
    if (d.valid) {
      out.append(text.substr(i, d.length));
    } else {
      out += "\xEF\xBF\xBD";
    }
    i += d.length;
  }
  return out;
}

bool IsControl(char32_t code) {
  return code < 0x20 || (code >= 0x7F && code <= 0x9F) || code == 0x200E || code == 0x200F ||
         (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069) ||
         code == 0x2028 || code == 0x2029;
}

std::optional<ControlChar> FindControl(std::string_view text, std::string_view allowed) {
  for (size_t i = 0; i < text.size();) {
    const Decoded d = DecodeOne(text.substr(i));
    if (d.valid && IsControl(d.code) && !Kept(d.code, allowed)) return ControlChar{i, d.code};
    i += d.length;
  }
  return std::nullopt;
}

std::string EscapeControls(std::string_view text, std::string_view keep) {
  // Most text has nothing to escape: returned as it is, without a pass per character.
  if (!InvalidUtf8At(text) && !FindControl(text, keep)) return std::string(text);
  return Escape(text, keep, /*show_bytes=*/false, std::string_view::npos);
}

std::string JsonForTerminal(std::string_view json_text) {
  std::string out;
  out.reserve(json_text.size());
  for (size_t i = 0; i < json_text.size();) {
    const Decoded d = DecodeOne(json_text.substr(i));
    if (!d.valid) {
      out += "\xEF\xBF\xBD";
    } else if (d.code >= 0x7F && IsControl(d.code)) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(d.code));
      out += escape;
    } else {
      out.append(json_text.substr(i, d.length));
    }
    i += d.length;
  }
  return out;
}

std::string QuotedValue(std::string_view text, size_t max_chars) {
  return "'" + Escape(text, {}, /*show_bytes=*/true, max_chars) + "'";
}

Status CheckPlainText(std::string_view field, std::string_view text, std::string_view why,
                      std::string_view allowed) {
  const std::string prefix = std::string(field) + ": " + QuotedValue(text);
  if (const std::optional<size_t> at = InvalidUtf8At(text)) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "\\x%02x", static_cast<unsigned char>(text[*at]));
    return Status::Error(prefix + " is not valid UTF-8 (byte " + byte + " at offset " +
                         std::to_string(*at) + "); " + std::string(why));
  }
  if (const std::optional<ControlChar> c = FindControl(text, allowed)) {
    return Status::Error(prefix + " holds a control character (" + EscapeOf(c->code) + ")" +
                         (c->at > 80 ? " at offset " + std::to_string(c->at) : "") + "; " +
                         std::string(why));
  }
  return Status::Ok();
}

}  // namespace squeeze
