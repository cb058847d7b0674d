// What `squeeze inventory` prints and writes from the GPU records of all its sources: the
// summary by (model, memory), the JSON list, and a cluster file (docs/cluster-file.md) with one
// pool per GPU model. Pure functions; thread-safe.
#ifndef SQUEEZE_INVENTORY_INVENTORY_REPORT_H_
#define SQUEEZE_INVENTORY_INVENTORY_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "inventory/gpu_record.h"

namespace squeeze {

// The GPUs of one (model, memory) group.
struct InventoryGroup {
  std::string model;
  int64_t memory_mib = 0;
  int gpus = 0;
  std::optional<int> allocated;            // none when no record of the group says
  std::optional<double> mean_utilization;  // over the records that report it; none if none do
  int nodes = 0;                           // distinct node names
};

// The records without repeats: a (node, index) seen before is dropped; `*dropped` counts them.
std::vector<GpuRecord> DropRepeatedGpus(std::vector<GpuRecord> records, int* dropped);
// Groups in order of first appearance.
std::vector<InventoryGroup> GroupInventory(const std::vector<GpuRecord>& records);
// The summary table, one line per group, with a header.
std::string InventoryTable(const std::vector<InventoryGroup>& groups);
// {"gpus": [{"node", "index", "model", "memory_mib", "utilization" (null when unknown),
// "memory_used_mib", "allocated" (null when unknown), "source"}, ...]}, indented.
std::string InventoryJson(const std::vector<GpuRecord>& records);
// A YAML cluster file: one owned pool per GPU model (named after it: "NVIDIA A100-SXM4-80GB"
// -> "nvidia-a100-sxm4-80gb"), one node entry per node with its GPUs of that model. An error
// when there are no records or a node has no name.
Result<std::string> InventoryPoolFile(const std::vector<GpuRecord>& records);

}  // namespace squeeze

#endif  // SQUEEZE_INVENTORY_INVENTORY_REPORT_H_
