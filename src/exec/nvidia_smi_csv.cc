#include "exec/nvidia_smi_csv.h"

namespace squeeze {

std::string_view TrimCsvField(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<NvidiaSmiCsvLine> NvidiaSmiCsvLines(std::string_view text) {
  std::vector<NvidiaSmiCsvLine> out;
  int line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = TrimCsvField(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (line.empty()) continue;
    NvidiaSmiCsvLine l{line_no, line, {}};
    for (size_t start = 0;;) {
      const size_t comma = line.find(',', start);
      l.fields.push_back(TrimCsvField(line.substr(start, comma - start)));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace squeeze
