#include "sim/readers/openb_reader.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config/file_io.h"
#include "sim/readers/cell_parse.h"
#include "sim/readers/csv.h"
#include "sim/readers/trace_builder.h"

namespace squeeze {
namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
// The most GPUs a node may have (ClusterSpec::Validate's bound).
constexpr int64_t kMaxNodeGpus = 64;

enum NodeColumn { kSn, kNodeCpuMilli, kNodeMemoryMib, kGpu, kModel };
constexpr ColumnDef kNodeColumns[] = {
    {"sn", true}, {"cpu_milli", true}, {"memory_mib", true}, {"gpu", true}, {"model", true},
};

enum PodColumn {
  kName, kCpuMilli, kMemoryMib, kNumGpu, kGpuMilli, kGpuSpec, kQos, kPodPhase,
  kCreationTime, kDeletionTime, kScheduledTime,
};
constexpr ColumnDef kPodColumns[] = {
    {"name", true},           {"cpu_milli", true},      {"memory_mib", true},
    {"num_gpu", true},        {"gpu_milli", true},      {"gpu_spec", false},
    {"qos", false},           {"pod_phase", false},     {"creation_time", false},
    {"deletion_time", false}, {"scheduled_time", false},
};

// pandas writes a missing gpu_spec or model as "nan"; the shared CSVs leave the cell empty.
bool IsNoValue(std::string_view cell) { return cell.empty() || NormalizeName(cell) == "nan"; }

Status ParseNodeRow(const std::vector<int>& col, const CsvRecord& row, const std::string& pool,
                    TraceBuilder* builder, ClusterSpec* cluster,
                    std::unordered_map<std::string, int>* name_lines) {
  const auto cell = [&](NodeColumn c) { return row.fields[col[c]]; };
  const auto error = [&](NodeColumn c, const Status& reason) {
    return builder->CellError(row.line, kNodeColumns[c].name, cell(c), reason);
  };
  NodeSpec node;
  node.name = std::string(cell(kSn));
  if (node.name.empty()) return error(kSn, Status::Error("is empty (every node needs a name)"));
  Result<int64_t> cpu = ParseIntegerCell(cell(kNodeCpuMilli), 0, kMaxInt64);
  if (!cpu.ok()) return error(kNodeCpuMilli, cpu.status());
  Result<int64_t> memory = ParseIntegerCell(cell(kNodeMemoryMib), 0, kMaxInt64);
  if (!memory.ok()) return error(kNodeMemoryMib, memory.status());
  Result<int64_t> gpus = ParseIntegerCell(cell(kGpu), 0, kMaxNodeGpus);
  if (!gpus.ok()) return error(kGpu, gpus.status());
  if (*gpus == 0) {
    node.gpu_model = "none";
  } else if (IsNoValue(cell(kModel))) {
    return error(kModel, Status::Error("names no GPU model for a node with " +
                                       std::to_string(*gpus) + " GPUs"));
  } else {
    node.gpu_model = std::string(cell(kModel));
  }
  const auto [it, inserted] = name_lines->emplace(node.name, row.line);
  if (!inserted) {
    return error(kSn, Status::Error("is a duplicate node name (first on line " +
                                    std::to_string(it->second) + ")"));
  }
  node.pool = pool;
  node.gpus = static_cast<int>(*gpus);
  node.cpu_milli = *cpu;
  node.memory_mib = *memory;
  cluster->nodes.push_back(std::move(node));
  return Status::Ok();
}

// A time cell that may be absent (no column) or empty (no time): nullopt then.
Status ParseOptionalTime(const std::vector<int>& col, const CsvRecord& row, PodColumn c,
                         const TraceBuilder& builder, std::optional<Time>* out) {
  out->reset();
  if (col[c] < 0 || row.fields[col[c]].empty()) return Status::Ok();
  const std::string_view text = row.fields[col[c]];
  Result<int64_t> t = ParseIntegerCell(text, 0, kMaxTraceSeconds);
  if (!t.ok()) return builder.CellError(row.line, kPodColumns[c].name, text, t.status());
  *out = Seconds(*t);
  return Status::Ok();
}

Status ParsePodRow(const std::vector<int>& col, const CsvRecord& row, int row_number,
                   TraceBuilder* builder) {
  const auto cell = [&](PodColumn c) { return row.fields[col[c]]; };
  const auto error = [&](PodColumn c, const Status& reason) {
    return builder->CellError(row.line, kPodColumns[c].name, cell(c), reason);
  };
  TraceJob job = builder->NewJob();
  Result<int64_t> cpu = ParseIntegerCell(cell(kCpuMilli), 0, kMaxInt64);
  if (!cpu.ok()) return error(kCpuMilli, cpu.status());
  Result<int64_t> memory = ParseIntegerCell(cell(kMemoryMib), 0, kMaxInt64);
  if (!memory.ok()) return error(kMemoryMib, memory.status());
  Result<int64_t> gpus = ParseIntegerCell(cell(kNumGpu), 0, kMaxJobGpus);
  if (!gpus.ok()) return error(kNumGpu, gpus.status());
  // A CPU-only pod states gpu_milli 0; it must still be a number, and is then not used.
  Result<int64_t> milli = ParseIntegerCell(cell(kGpuMilli), *gpus > 0 ? 1 : 0, kMilliPerGpu);
  if (!milli.ok()) return error(kGpuMilli, milli.status());
  if (*gpus > 1 && *milli != kMilliPerGpu) {
    return error(kGpuMilli, Status::Error("is a fraction of a GPU with num_gpu " +
                                          std::to_string(*gpus) +
                                          " (a fraction is only meaningful with num_gpu 1)"));
  }
  std::optional<Time> created, deleted, scheduled;
  Status s = ParseOptionalTime(col, row, kCreationTime, *builder, &created);
  if (s.ok() && col[kCreationTime] >= 0 && !created) {
    s = error(kCreationTime, Status::Error("is empty"));
  }
  if (s.ok()) s = ParseOptionalTime(col, row, kDeletionTime, *builder, &deleted);
  if (s.ok()) s = ParseOptionalTime(col, row, kScheduledTime, *builder, &scheduled);
  if (!s.ok()) return s;
  if (col[kGpuSpec] >= 0 && !IsNoValue(cell(kGpuSpec))) {
    job.spec.gpu_models = SplitListCell(cell(kGpuSpec));
  }
  job.spec.id = row_number - 1;
  job.spec.name = std::string(cell(kName));
  job.spec.submit_time = created.value_or(0);
  job.spec.gpus = static_cast<int>(*gpus);
  if (*gpus > 0) job.spec.gpu_milli = static_cast<int>(*milli);
  job.spec.cpu_milli = *cpu;
  job.spec.memory_mib = *memory;
  job.duration =
      deleted && scheduled ? std::max<Time>(kSecond, *deleted - *scheduled) : kSecond;
  builder->Add(std::move(job));  // ids are row indexes: unique
  return Status::Ok();
}

// The header record, or an error for an empty input.
Result<CsvRecord> ReadHeader(CsvReader* csv, const std::string& source, const char* what) {
  CsvRecord header;
  Result<bool> got = csv->Next(&header);
  if (!got.ok()) return got.status();
  if (!*got) return Status::Error(source + ": no " + what + ": the file is empty");
  return header;
}

}  // namespace

Result<ClusterSpec> ReadOpenbNodes(const std::string& path, const std::string& pool_name) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseOpenbNodes(*text, path, pool_name);
}

Result<ClusterSpec> ParseOpenbNodes(std::string_view text, const std::string& source,
                                    const std::string& pool_name) {
  CsvReader csv(text, source);
  Result<CsvRecord> header = ReadHeader(&csv, source, "nodes");
  if (!header.ok()) return header.status();
  // The builder lends its header map, row loop and messages; no bad row is skipped.
  TraceBuilder builder(source, "openb-nodes", ReadOptions{});
  Result<std::vector<int>> col = builder.MapHeader(*header, kNodeColumns);
  if (!col.ok()) return col.status();
  ClusterSpec cluster;
  PoolSpec pool;
  pool.name = pool_name;
  cluster.pools.push_back(std::move(pool));
  std::unordered_map<std::string, int> name_lines;
  Status s = builder.ForEachRow(&csv, header->fields.size(), [&](const CsvRecord& row, int) {
    return ParseNodeRow(*col, row, pool_name, &builder, &cluster, &name_lines);
  });
  if (!s.ok()) return s;
  if (cluster.nodes.empty()) {
    return Status::Error(source + ": no nodes: the file has a header but no rows");
  }
  Status valid = cluster.Validate();
  if (!valid.ok()) return valid.WithContext(source);
  return cluster;
}

Result<Trace> ReadOpenbPods(const std::string& path, const ReadOptions& options) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseOpenbPods(*text, path, options);
}

Result<Trace> ParseOpenbPods(std::string_view text, const std::string& source,
                             const ReadOptions& options) {
  CsvReader csv(text, source);
  Result<CsvRecord> header = ReadHeader(&csv, source, "jobs");
  if (!header.ok()) return header.status();
  TraceBuilder builder(source, "openb-pods", options);
  Result<std::vector<int>> col = builder.MapHeader(*header, kPodColumns);
  if (!col.ok()) return col.status();
  builder.Reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  Status s = builder.ForEachRow(&csv, header->fields.size(),
                                [&](const CsvRecord& row, int row_number) {
                                  return ParsePodRow(*col, row, row_number, &builder);
                                });
  if (!s.ok()) return s;
  Result<Trace> trace = builder.Finish();
  if (!trace.ok()) return trace;
  // Finish sorts by submit time; ids are row indexes, so sorting by id restores file order.
  std::sort(trace->jobs.begin(), trace->jobs.end(),
            [](const TraceJob& a, const TraceJob& b) { return a.spec.id < b.spec.id; });
  return trace;
}

}  // namespace squeeze
