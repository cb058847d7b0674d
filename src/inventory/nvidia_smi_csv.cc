#include <map>
#include <string>

#include "config/text_util.h"
#include "inventory/inventory_sources.h"

namespace squeeze {
namespace {

const char kSource[] = "nvidia-smi CSV";
// The columns of --format=csv,noheader, in the order of the documented --query-gpu list.
const std::vector<std::string> kColumns = {"index",           "name", "memory.total", "memory.used",
                                           "utilization.gpu", "uuid", "pci.bus_id"};

std::vector<std::string> SplitFields(std::string_view line) {
  std::vector<std::string> out;
  for (size_t begin = 0;;) {
    const size_t comma = line.find(',', begin);
    out.emplace_back(
        Trim(line.substr(begin, comma == std::string_view::npos ? comma : comma - begin)));
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  return out;
}

// "memory.total [MiB]" -> "memory.total".
std::string ColumnName(const std::string& header) {
  return std::string(Trim(std::string_view(header).substr(0, header.find('['))));
}

std::string At(int line) { return std::string(kSource) + " line " + std::to_string(line); }

Result<GpuRecord> ReadRow(const std::vector<std::string>& fields,
                          const std::map<std::string, size_t>& column, int line,
                          std::string_view node) {
  namespace iv = inventory_value;
  auto cell = [&](const std::string& name) -> std::optional<std::string> {
    auto it = column.find(name);
    if (it == column.end()) return std::nullopt;
    return fields[it->second];
  };
  GpuRecord r;
  r.node = std::string(node);
  r.source = "nvidia-smi-csv";
  auto index = iv::Count(*cell("index"), At(line) + ": index");
  if (!index.ok()) return index.status();
  r.index = static_cast<int>(*index);
  r.model = *cell("name");
  if (r.model.empty() || iv::IsUnknown(r.model)) {
    return Status::Error(At(line) + ": name: value '" + r.model + "' is not a GPU model");
  }
  auto total = iv::Mib(*cell("memory.total"), At(line) + ": memory.total");
  if (!total.ok()) return total.status();
  r.memory_mib = total->value_or(0);
  if (auto used_text = cell("memory.used")) {
    auto used = iv::Mib(*used_text, At(line) + ": memory.used");
    if (!used.ok()) return used.status();
    r.memory_used_mib = *used;
  }
  if (auto util_text = cell("utilization.gpu")) {
    auto util = iv::Percent(*util_text, At(line) + ": utilization.gpu");
    if (!util.ok()) return util.status();
    r.utilization = *util;
  }
  return r;
}

}  // namespace

Result<std::vector<GpuRecord>> ParseNvidiaSmiCsv(std::string_view text, std::string_view node) {
  text = StripBom(text);
  std::map<std::string, size_t> column;
  size_t width = 0;
  std::vector<GpuRecord> out;
  int line_no = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = Trim(text.substr(begin, end - begin));
    begin = end + 1;
    ++line_no;
    if (line.empty()) continue;
    if (line.find("No devices were found") != std::string_view::npos) {
      return Status::Error(At(line_no) + ": nvidia-smi found no GPUs ('" + std::string(line) +
                           "')");
    }
    std::vector<std::string> fields = SplitFields(line);
    if (column.empty()) {
      const bool header = !ParseInt64(fields[0]).has_value();
      for (size_t i = 0; i < fields.size(); ++i) {
        column[header ? ColumnName(fields[i]) : (i < kColumns.size() ? kColumns[i] : "")] = i;
      }
      width = fields.size();
      for (const char* required : {"index", "name", "memory.total"}) {
        if (!column.count(required)) {
          return Status::Error(At(line_no) + ": no column '" + required + "' in '" +
                               std::string(line) +
                               "' (query index,name,memory.total,memory.used,utilization.gpu)");
        }
      }
      if (header) continue;
    }
    if (fields.size() != width) {
      return Status::Error(At(line_no) + ": " + std::to_string(fields.size()) + " fields where " +
                           std::to_string(width) + " were expected in '" + std::string(line) + "'");
    }
    auto record = ReadRow(fields, column, line_no, node);
    if (!record.ok()) return record.status();
    out.push_back(std::move(*record));
  }
  if (column.empty())
    return Status::Error(std::string(kSource) + ": empty input, no header or GPU rows");
  if (out.empty())
    return Status::Error(std::string(kSource) + ": a header but no GPU rows (truncated?)");
  return out;
}

}  // namespace squeeze
