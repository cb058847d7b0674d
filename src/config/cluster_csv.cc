// The CSV form of a cluster file: `pool,nodes,gpus_per_node[,gpu_model]`, one row per pool.
#include <climits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/cluster_file.h"
#include "config/text_util.h"

namespace squeeze {
namespace {

constexpr std::string_view kHeaderHelp = "pool,nodes,gpus_per_node[,gpu_model]";
constexpr std::string_view kColumns[] = {"pool", "nodes", "gpus_per_node", "gpu_model"};
constexpr int64_t kMaxNodesPerPool = 100000;

struct CsvLine {
  int number = 0;  // 1-based line in the file
  std::string_view text;
  std::vector<std::string_view> fields;
};

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    fields.push_back(Trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

// The non-blank lines of `text`, each split into trimmed fields.
std::vector<CsvLine> SplitLines(std::string_view text) {
  std::vector<CsvLine> lines;
  text = StripBom(text);
  int number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t newline = text.find('\n', start);
    const std::string_view raw = text.substr(start, newline - start);
    ++number;
    const std::string_view trimmed = Trim(raw);
    if (!trimmed.empty()) lines.push_back({number, trimmed, SplitFields(trimmed)});
    if (newline == std::string_view::npos) break;
    start = newline + 1;
  }
  return lines;
}

Status LineError(const std::string& source, const CsvLine& line, const std::string& message) {
  return Status::Error(source + ":" + std::to_string(line.number) + ": " + message);
}

std::string ColumnName(size_t column) {
  return "column " + std::to_string(column + 1) + " (" + std::string(kColumns[column]) + ")";
}

Status CheckHeader(const CsvLine& header, const std::string& source) {
  bool ok = header.fields.size() == 3 || header.fields.size() == 4;
  for (size_t i = 0; ok && i < header.fields.size(); ++i) ok = header.fields[i] == kColumns[i];
  if (ok) return Status::Ok();
  return LineError(
      source, header,
      "header must be '" + std::string(kHeaderHelp) + "', got '" + std::string(header.text) + "'");
}

Result<int> ReadInt(const CsvLine& line, size_t column, int64_t min, int64_t max,
                    const std::string& source) {
  const std::string value(line.fields[column]);
  const std::optional<int64_t> parsed = ParseInt64(value);
  if (!parsed) {
    return LineError(source, line,
                     ColumnName(column) + ": value '" + value + "' is not an integer");
  }
  if (*parsed < min || *parsed > max) {
    return LineError(source, line,
                     ColumnName(column) + ": value '" + value + "' is out of range " +
                         std::to_string(min) + ".." + std::to_string(max));
  }
  return static_cast<int>(*parsed);
}

// Appends the pool of one data row and its nodes to `spec`.
Status AddPoolRow(const CsvLine& line, size_t columns, const std::string& source,
                  std::map<std::string, int>& pool_lines, ClusterSpec& spec) {
  if (line.fields.size() != columns) {
    return LineError(source, line,
                     "expected " + std::to_string(columns) + " fields as the header says, got " +
                         std::to_string(line.fields.size()) + ": '" + std::string(line.text) + "'");
  }
  const std::string pool(line.fields[0]);
  if (pool.empty()) return LineError(source, line, ColumnName(0) + ": the pool name is empty");
  const auto [it, inserted] = pool_lines.emplace(pool, line.number);
  if (!inserted) {
    return LineError(source, line,
                     ColumnName(0) + ": pool '" + pool + "' is already defined on line " +
                         std::to_string(it->second));
  }
  const Result<int> nodes = ReadInt(line, 1, 1, kMaxNodesPerPool, source);
  if (!nodes.ok()) return nodes.status();
  const Result<int> gpus = ReadInt(line, 2, 0, INT_MAX, source);
  if (!gpus.ok()) return gpus.status();
  std::string model = columns == 4 ? std::string(line.fields[3]) : "";
  if (model.empty()) model = "gpu";

  PoolSpec pool_spec;
  pool_spec.name = pool;
  spec.pools.push_back(std::move(pool_spec));
  for (int i = 0; i < *nodes; ++i) {
    NodeSpec node;
    node.name = pool + "-" + std::to_string(i);
    node.pool = pool;
    node.gpu_model = model;
    node.gpus = *gpus;
    spec.nodes.push_back(std::move(node));
  }
  return Status::Ok();
}

}  // namespace

Result<ClusterSpec> ParseClusterCsv(std::string_view text, const std::string& source) {
  const std::vector<CsvLine> lines = SplitLines(text);
  if (lines.empty()) {
    return Status::Error(source + ": the file is empty; expected a header '" +
                         std::string(kHeaderHelp) + "' and one row per pool");
  }
  if (Status s = CheckHeader(lines[0], source); !s.ok()) return s;
  const size_t columns = lines[0].fields.size();
  ClusterSpec spec;
  std::map<std::string, int> pool_lines;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (Status s = AddPoolRow(lines[i], columns, source, pool_lines, spec); !s.ok()) return s;
  }
  if (spec.pools.empty()) {
    return Status::Error(source + ": no pools; add one row per pool after the header");
  }
  if (Status s = spec.Validate(); !s.ok()) return s.WithContext(source);
  return spec;
}

}  // namespace squeeze
