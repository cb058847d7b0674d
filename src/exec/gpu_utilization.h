// How busy this machine's GPUs are now, for the daemon's sampling (docs/serve.md, "GPU
// utilization"): through NVML, or `nvidia-smi --query-gpu=index,utilization.gpu,memory.used
// --format=csv,noheader,nounits`. Stateless functions; SampleWithNvml is not thread-safe
// (NVML's init is process-wide).
#ifndef SQUEEZE_EXEC_GPU_UTILIZATION_H_
#define SQUEEZE_EXEC_GPU_UTILIZATION_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace squeeze {

struct GpuUtilization {
  int index = 0;                          // the CUDA index, as in discovery
  std::optional<double> utilization;      // 0..1; nullopt when the driver does not say ([N/A])
  std::optional<double> memory_used_mib;  // nullopt when the driver does not say
  bool operator==(const GpuUtilization&) const = default;
};

// The query's arguments after the binary.
std::vector<std::string> NvidiaSmiUtilizationArgs();

// Its output, one GPU per line: "0, 87, 40312". `[N/A]` and `[Not Supported]` (MIG, some
// consumer cards) give no value. Errors name the line and the field.
Result<std::vector<GpuUtilization>> ParseNvidiaSmiUtilizationCsv(std::string_view text);

// Runs `binary` with the query (at most `timeout_ms`) and parses its output.
Result<std::vector<GpuUtilization>> SampleWithNvidiaSmi(const std::string& binary,
                                                        int timeout_ms = 10000);

// nvmlDeviceGetUtilizationRates and nvmlDeviceGetMemoryInfo of every GPU.
Result<std::vector<GpuUtilization>> SampleWithNvml();

// By discovery's source: "nvml" or "nvidia-smi"; any other source is an error (virtual GPUs
// have no utilization to read).
Result<std::vector<GpuUtilization>> SampleGpus(const std::string& source,
                                               const std::string& nvidia_smi);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_GPU_UTILIZATION_H_
