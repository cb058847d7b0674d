// Which GPUs this machine has, for `squeeze serve`: through NVML (libnvidia-ml.so.1, loaded at
// run time so the binary runs where there is none), else `nvidia-smi --query-gpu`, else none;
// or virtual GPUs declared with --virtual-gpus N[:MODEL], which do not exist and are marked
// as virtual everywhere. Stateless functions; thread-safe except DiscoverWithNvml (NVML's own
// init is process-wide).
#ifndef SQUEEZE_EXEC_GPU_DISCOVERY_H_
#define SQUEEZE_EXEC_GPU_DISCOVERY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace squeeze {

struct GpuDevice {
  int index = 0;            // what CUDA_VISIBLE_DEVICES names
  std::string uuid;         // "GPU-..." (empty for virtual GPUs)
  std::string name;         // as the driver says it: "NVIDIA H200"
  std::string model;        // short: "H200" (the cluster files' gpu_model)
  int64_t memory_mib = 0;   // total
  bool is_virtual = false;  // declared, not found
};

struct GpuInventory {
  std::string source;  // "nvml", "nvidia-smi", "virtual" or "none"
  std::vector<GpuDevice> gpus;
  std::vector<std::string> notes;  // why a source was not used ("libnvidia-ml.so.1: ...")
};

// "NVIDIA H200" -> "H200", "Tesla V100-SXM2-32GB" -> "V100-SXM2-32GB"; spaces become '-'.
std::string ShortModelName(std::string_view name);

// The output of `nvidia-smi --query-gpu=index,uuid,name,memory.total
// --format=csv,noheader,nounits`, one GPU per line. Errors name the line and the field.
Result<std::vector<GpuDevice>> ParseNvidiaSmiCsv(std::string_view text);

// --virtual-gpus: "N" or "N:MODEL" (N in 1..1024; MODEL default "virtual").
Result<std::vector<GpuDevice>> VirtualGpus(std::string_view spec);

// The GPUs NVML reports; an error when the library or a driver is missing.
Result<std::vector<GpuDevice>> DiscoverWithNvml();

// Runs `binary --query-gpu=... --format=csv,noheader,nounits` and parses it; an error when it
// cannot be run or fails.
Result<std::vector<GpuDevice>> DiscoverWithNvidiaSmi(const std::string& binary = "nvidia-smi");

// --virtual-gpus when given (`virtual_spec` non-empty); else NVML, else nvidia-smi, else none.
Result<GpuInventory> DiscoverGpus(const std::string& virtual_spec,
                                  const std::string& nvidia_smi = "nvidia-smi");

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_GPU_DISCOVERY_H_
