#include "export/k8s_yaml.h"

#include <cassert>
#include <cctype>
#include <cstdio>

namespace squeeze {
namespace {

// Words YAML 1.1 readers (PyYAML, Go's yaml.v2) take for booleans or null.
bool IsYamlWord(const std::string& s) {
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}) {
    if (lower == word) return true;
  }
  return false;
}

// Plain only when it cannot be read as anything but this string: a letter, '_' or '/' first
// (no number, no indicator), then letters, digits and ". _ / -".
bool IsSafePlain(const std::string& s) {
  if (s.empty() || IsYamlWord(s)) return false;
  const unsigned char first = static_cast<unsigned char>(s[0]);
  if (!std::isalpha(first) && first != '_' && first != '/') return false;
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (!std::isalnum(c) && c != '.' && c != '_' && c != '/' && c != '-') return false;
  }
  return true;
}

std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

bool IsEmptyCollection(const YamlValue& v) {
  return (v.kind() == YamlValue::Kind::kMap && v.entries().empty()) ||
         (v.kind() == YamlValue::Kind::kList && v.items().empty());
}

std::string Scalar(const YamlValue& v) {
  switch (v.kind()) {
    case YamlValue::Kind::kString: return YamlScalar(v.scalar());
    case YamlValue::Kind::kInt:
    case YamlValue::Kind::kBool: return v.scalar();
    case YamlValue::Kind::kMap: return "{}";
    case YamlValue::Kind::kList: return "[]";
    case YamlValue::Kind::kBlock: break;
  }
  assert(false && "a block is not a scalar");
  return "";
}

void EmitCollection(const YamlValue& v, int indent, std::string* out);

// A literal block after `prefix` ("key:" or "-"), its lines at `indent`.
void EmitBlock(const std::string& text, const std::string& prefix, int indent, std::string* out) {
  const bool ends_in_newline = !text.empty() && text.back() == '\n';
  const bool leading_space = !text.empty() && text[0] == ' ';
  *out += prefix + " |" + (leading_space ? "2" : "") + (ends_in_newline ? "" : "-") + "\n";
  const std::string pad(indent, ' ');
  size_t start = 0;
  const std::string body = ends_in_newline ? text.substr(0, text.size() - 1) : text;
  while (start <= body.size()) {
    const size_t end = body.find('\n', start);
    const std::string line = body.substr(start, end == std::string::npos ? end : end - start);
    *out += line.empty() ? "\n" : pad + line + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

// One value after `prefix` (a key with its colon, or a dash): on the same line when it is a
// scalar or empty, else on the next lines at `indent`.
void EmitAfter(const std::string& prefix, const YamlValue& v, int indent, std::string* out) {
  if (v.kind() == YamlValue::Kind::kBlock) {
    EmitBlock(v.scalar(), prefix, indent, out);
  } else if (IsEmptyCollection(v) ||
             (v.kind() != YamlValue::Kind::kMap && v.kind() != YamlValue::Kind::kList)) {
    *out += prefix + " " + Scalar(v) + "\n";
  } else {
    *out += prefix + "\n";
    EmitCollection(v, indent, out);
  }
}

void EmitCollection(const YamlValue& v, int indent, std::string* out) {
  const std::string pad(indent, ' ');
  if (v.kind() == YamlValue::Kind::kMap) {
    for (const auto& [key, value] : v.entries()) {
      // Lists go at the key's own indent (as kubectl writes them), maps two further in.
      const int inner = value.kind() == YamlValue::Kind::kList ? indent : indent + 2;
      EmitAfter(pad + YamlScalar(key) + ":", value, inner, out);
    }
    return;
  }
  for (const YamlValue& item : v.items()) {
    if (item.kind() == YamlValue::Kind::kMap && !item.entries().empty()) {
      // The item's first key goes on the dash's line: write the map two further in, then put
      // the dash over its first indent.
      std::string inner;
      EmitCollection(item, indent + 2, &inner);
      *out += pad + "- " + inner.substr(indent + 2);
    } else {
      EmitAfter(pad + "-", item, indent + 2, out);
    }
  }
}

}  // namespace

YamlValue YamlValue::String(std::string s) {
  YamlValue v(Kind::kString);
  v.scalar_ = std::move(s);
  return v;
}

YamlValue YamlValue::Int(int64_t value) {
  YamlValue v(Kind::kInt);
  v.scalar_ = std::to_string(value);
  return v;
}

YamlValue YamlValue::Bool(bool value) {
  YamlValue v(Kind::kBool);
  v.scalar_ = value ? "true" : "false";
  return v;
}

YamlValue YamlValue::Block(std::string text) {
  YamlValue v(Kind::kBlock);
  v.scalar_ = std::move(text);
  return v;
}

YamlValue& YamlValue::Set(const std::string& key, YamlValue value) {
  assert(kind_ == Kind::kMap);
  for (auto& [k, existing] : entries_) {
    if (k == key) {
      existing = std::move(value);
      return *this;
    }
  }
  entries_.emplace_back(key, std::move(value));
  return *this;
}

YamlValue& YamlValue::Add(YamlValue value) {
  assert(kind_ == Kind::kList);
  items_.push_back(std::move(value));
  return *this;
}

const YamlValue* YamlValue::Find(const std::string& key) const {
  for (const auto& [k, v] : entries_) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string YamlScalar(const std::string& s) { return IsSafePlain(s) ? s : Quoted(s); }

std::vector<std::string> WrapComment(const std::string& text, size_t width,
                                     const std::string& first, const std::string& rest) {
  std::vector<std::string> lines;
  std::string line = first;
  bool empty = true;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    if (!empty && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line = rest;
      empty = true;
    }
    line += (empty ? "" : " ") + word;
    empty = false;
  }
  lines.push_back(line);
  return lines;
}

std::string CommentLine(const std::string& text) {
  if (text.empty()) return "#\n";
  static const char* kHex = "0123456789abcdef";
  std::string out = "# ";
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    // YAML's line breaks end a comment: \n, \r, and (YAML 1.1) NEL, LS and PS.
    if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x85) {
      out += "\\u0085";
      ++i;
    } else if (c == 0xe2 && text.compare(i + 1, 1, "\x80") == 0 && i + 2 < text.size() &&
               (text[i + 2] == '\xa8' || text[i + 2] == '\xa9')) {
      out += text[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else if (c < 0x20 || c == 0x7f) {
      out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
    } else {
      out += text[i];
    }
  }
  return out + "\n";
}

std::string EmitYaml(const std::vector<std::string>& header,
                     const std::vector<YamlDocument>& documents) {
  std::string out;
  for (const std::string& line : header) out += CommentLine(line);
  for (const YamlDocument& doc : documents) {
    out += "---\n";
    for (const std::string& line : doc.comments) out += CommentLine(line);
    EmitCollection(doc.body, 0, &out);
  }
  return out;
}

}  // namespace squeeze
