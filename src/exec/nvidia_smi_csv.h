// The lines of `nvidia-smi --query-gpu=... --format=csv,noheader,nounits` output, split into
// their comma-separated fields: what GPU discovery and utilization sampling both parse. Pure.
#ifndef SQUEEZE_EXEC_NVIDIA_SMI_CSV_H_
#define SQUEEZE_EXEC_NVIDIA_SMI_CSV_H_

#include <string_view>
#include <vector>

namespace squeeze {

struct NvidiaSmiCsvLine {
  int line_no = 0;                      // 1-based, counting blank lines
  std::string_view text;                // trimmed
  std::vector<std::string_view> fields;  // trimmed
};

// Every non-blank line of `text` (which must outlive the result).
std::vector<NvidiaSmiCsvLine> NvidiaSmiCsvLines(std::string_view text);

// Spaces, tabs and line ends off both sides.
std::string_view TrimCsvField(std::string_view s);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_NVIDIA_SMI_CSV_H_
