// One GPU as an inventory source reports it (nvidia-smi, kubectl, Slurm), and the helpers the
// parsers share to read values and to expand a node's GPU count into one record per GPU. Plain
// values and pure functions; thread-safe.
#ifndef SQUEEZE_INVENTORY_GPU_RECORD_H_
#define SQUEEZE_INVENTORY_GPU_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace squeeze {

struct GpuRecord {
  std::string node;        // host or node name; "" when the source does not say (nvidia-smi)
  int index = 0;           // 0..n-1 on its node
  std::string model;       // as the source names it: "NVIDIA A100-SXM4-80GB", "a100", ...
  int64_t memory_mib = 0;  // 0 when the source does not say
  std::optional<double> utilization;       // 0..1; none when unknown
  std::optional<int64_t> memory_used_mib;  // none when unknown
  std::optional<bool> allocated;           // cluster sources: held by a job; none when unknown
  std::string source;  // "nvidia-smi-csv", "nvidia-smi-xml", "kubectl-json", ...
};

// `count` records of one node, index 0..count-1, utilization unknown; the first `allocated`
// of them marked allocated (none: allocation unknown).
std::vector<GpuRecord> ExpandNodeGpus(const std::string& node, const std::string& model,
                                      int64_t memory_mib, int count, std::optional<int> allocated,
                                      const std::string& source);

namespace inventory_value {

// "81559 MiB" or "81559" (unit `unit` optional, "GiB" also read for MiB) -> 81559.
// nullopt for "[N/A]", "[Not Supported]", "N/A"; an error naming `field` for anything else.
Result<std::optional<int64_t>> Mib(std::string_view text, const std::string& field);
// "37 %" or "37" -> 0.37; same unknowns and errors as Mib; outside 0..100 is an error.
Result<std::optional<double>> Percent(std::string_view text, const std::string& field);
// A whole number >= 0 ("8"); an error naming `field` and the value otherwise.
Result<int64_t> Count(std::string_view text, const std::string& field);
// True for the values nvidia-smi and others print for "no value": [N/A], [Not Supported], N/A.
bool IsUnknown(std::string_view text);

}  // namespace inventory_value

}  // namespace squeeze

#endif  // SQUEEZE_INVENTORY_GPU_RECORD_H_
