// A small CSV tokenizer for files that come from outside: UTF-8 with or without a BOM, a comma
// or semicolon delimiter (whichever the first line uses more), double-quoted fields with ""
// escapes and embedded delimiters or newlines, CRLF or LF line ends. Blank lines are skipped
// and spaces around unquoted fields are trimmed. Each record knows the physical line (1-based)
// it starts on. A CsvReader views text it does not own; it is not thread-safe.
#ifndef SQUEEZE_SIM_READERS_CSV_H_
#define SQUEEZE_SIM_READERS_CSV_H_

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace squeeze {

struct CsvRecord {
  int line = 0;  // physical line the record starts on, 1-based
  // Views into the reader's text or scratch storage, valid until the reader's next Next().
  std::vector<std::string_view> fields;
};

class CsvReader {
 public:
  // `text` must outlive the reader. `source` names the input in error messages.
  CsvReader(std::string_view text, std::string source);

  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  // Reads the next non-blank record into *record. Returns false at the end of the input, or
  // an error "SOURCE:LINE: ..." for an unterminated quoted field or text after a closing
  // quote (the input is then spent).
  Result<bool> Next(CsvRecord* record);

  char delimiter() const { return delimiter_; }

 private:
  void SkipBlankLines();
  void SkipSpaces();
  Status ReadQuotedField(CsvRecord* record);
  void ReadPlainField(CsvRecord* record);

  std::string_view text_;
  std::string source_;
  char delimiter_ = ',';
  size_t pos_ = 0;
  int line_ = 1;
  std::deque<std::string> scratch_;  // unescaped quoted fields of the current record
};

}  // namespace squeeze

#endif  // SQUEEZE_SIM_READERS_CSV_H_
