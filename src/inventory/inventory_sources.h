// The parsers of `squeeze inventory`: each reads one tool's output, as text, into GPU records.
// Pure functions; thread-safe. Errors name the source, the field and the value (and the line,
// for line-based text), so a user can find what is wrong in the file.
#ifndef SQUEEZE_INVENTORY_INVENTORY_SOURCES_H_
#define SQUEEZE_INVENTORY_INVENTORY_SOURCES_H_

#include <string_view>
#include <vector>

#include "core/status.h"
#include "inventory/gpu_record.h"

namespace squeeze {

// `nvidia-smi --query-gpu=index,name,memory.total,memory.used,utilization.gpu,uuid,pci.bus_id
// --format=csv` (header, units) or `--format=csv,noheader,nounits` (those columns in that
// order). With a header, columns are found by name and may come in any order; index, name and
// memory.total are required. `node` names the machine the output came from.
Result<std::vector<GpuRecord>> ParseNvidiaSmiCsv(std::string_view text, std::string_view node);

// `nvidia-smi -q -x`: <nvidia_smi_log> with one <gpu> per GPU (product_name, minor_number,
// fb_memory_usage/total and used, utilization/gpu_util). The node is `node` when given, else
// the log's hostname when it has one (newer drivers), else "".
Result<std::vector<GpuRecord>> ParseNvidiaSmiXml(std::string_view text, std::string_view node);

// `kubectl get nodes -o json`: per node with a `nvidia.com/gpu` capacity, that many records
// (model from the label nvidia.com/gpu.product, memory from nvidia.com/gpu.memory in MiB).
// Allocation is unknown (the JSON does not say what pods hold).
Result<std::vector<GpuRecord>> ParseKubectlNodesJson(std::string_view text);

// `kubectl describe nodes`: Name, the Labels block, the Capacity block's nvidia.com/gpu, and
// the nvidia.com/gpu row of "Allocated resources" (its requests are the GPUs allocated).
Result<std::vector<GpuRecord>> ParseKubectlDescribeNodes(std::string_view text);

// `sinfo --json` (through ParseSinfoJson): Gres "gpu:a100:4" -> 4 records of model a100,
// GresUsed -> how many are allocated.
Result<std::vector<GpuRecord>> ParseSinfoInventory(std::string_view text);

// `scontrol show nodes` (multi-line, `-o` one line per node, or `-d`): NodeName, Gres and,
// when shown, GresUsed.
Result<std::vector<GpuRecord>> ParseScontrolNodesInventory(std::string_view text);

}  // namespace squeeze

#endif  // SQUEEZE_INVENTORY_INVENTORY_SOURCES_H_
