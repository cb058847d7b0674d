#include "sim/readers/csv.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace squeeze {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The delimiter of the first non-blank line: ';' when it holds more semicolons than commas
// outside quotes, else ','.
char DetectDelimiter(std::string_view text, size_t pos) {
  int commas = 0;
  int semicolons = 0;
  bool quoted = false;
  bool content = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c == '"') {
      quoted = !quoted;
    } else if (quoted) {
      continue;
    } else if (c == ',') {
      ++commas;
    } else if (c == ';') {
      ++semicolons;
    } else if (c == '\n') {
      if (content) break;
      continue;
    }
    if (!IsSpace(c)) content = true;
  }
  return semicolons > commas ? ';' : ',';
}

}  // namespace

CsvReader::CsvReader(std::string_view text, std::string source)
    : text_(text), source_(std::move(source)) {
  if (text_.substr(0, kUtf8Bom.size()) == kUtf8Bom) pos_ = kUtf8Bom.size();
  delimiter_ = DetectDelimiter(text_, pos_);
}

void CsvReader::SkipBlankLines() {
  while (pos_ < text_.size()) {
    size_t p = pos_;
    while (p < text_.size() && IsSpace(text_[p])) ++p;
    if (p == text_.size()) {
      pos_ = p;
      return;
    }
    if (text_[p] != '\n') return;
    pos_ = p + 1;
    ++line_;
  }
}

void CsvReader::SkipSpaces() {
  while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
}

Status CsvReader::ReadQuotedField(CsvRecord* record) {
  const int start_line = line_;
  const size_t begin = ++pos_;
  bool escaped = false;
  for (;;) {
    const void* found = std::memchr(text_.data() + pos_, '"', text_.size() - pos_);
    const size_t quote =
        found ? static_cast<const char*>(found) - text_.data() : text_.size();
    line_ += static_cast<int>(std::count(text_.begin() + pos_, text_.begin() + quote, '\n'));
    if (quote == text_.size()) {
      pos_ = text_.size();
      return Status::Error(source_ + ":" + std::to_string(start_line) +
                           ": unterminated quoted field (a '\"' opened here is never closed)");
    }
    if (quote + 1 < text_.size() && text_[quote + 1] == '"') {
      escaped = true;
      pos_ = quote + 2;
      continue;
    }
    pos_ = quote + 1;
    break;
  }
  std::string_view raw = text_.substr(begin, pos_ - 1 - begin);
  if (escaped) {
    std::string& out = scratch_.emplace_back();
    out.reserve(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      out += raw[i];
      if (raw[i] == '"') ++i;  // the second quote of a "" pair
    }
    raw = out;
  }
  record->fields.push_back(raw);
  while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  if (pos_ < text_.size() && text_[pos_] != delimiter_ && text_[pos_] != '\n') {
    return Status::Error(source_ + ":" + std::to_string(line_) +
                         ": unexpected text after a closing quote (write a quote inside a "
                         "quoted field as \"\")");
  }
  return Status::Ok();
}

void CsvReader::ReadPlainField(CsvRecord* record) {
  const size_t begin = pos_;
  while (pos_ < text_.size() && text_[pos_] != delimiter_ && text_[pos_] != '\n') ++pos_;
  size_t end = pos_;
  while (end > begin && IsSpace(text_[end - 1])) --end;
  record->fields.push_back(text_.substr(begin, end - begin));
}

Result<bool> CsvReader::Next(CsvRecord* record) {
  record->fields.clear();
  scratch_.clear();
  SkipBlankLines();
  if (pos_ >= text_.size()) return false;
  record->line = line_;
  for (;;) {
    SkipSpaces();
    if (pos_ < text_.size() && text_[pos_] == '"') {
      Status s = ReadQuotedField(record);
      if (!s.ok()) {
        pos_ = text_.size();
        return s;
      }
    } else {
      ReadPlainField(record);
    }
    if (pos_ >= text_.size()) break;
    const char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      break;
    }
  }
  return true;
}

}  // namespace squeeze
