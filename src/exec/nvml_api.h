// NVML's C API, the few calls squeeze makes (nvml.h, stable since driver 3xx), loaded at run
// time from libnvidia-ml.so.1 so that the same binary runs where there is no NVIDIA driver.
// Used by GPU discovery and by the daemon's utilization sampling. Not thread-safe (NVML's init
// is process-wide): one caller at a time.
#ifndef SQUEEZE_EXEC_NVML_API_H_
#define SQUEEZE_EXEC_NVML_API_H_

#include <string>

#include "core/status.h"

namespace squeeze {

using NvmlReturn = int;
using NvmlDevice = void*;
struct NvmlMemory {
  unsigned long long total, free, used;
};
struct NvmlUtilization {
  unsigned int gpu, memory;  // percent of the last sample period
};
constexpr NvmlReturn kNvmlSuccess = 0;

struct NvmlApi {
  void* lib = nullptr;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  NvmlReturn (*count)(unsigned int*) = nullptr;
  NvmlReturn (*handle)(unsigned int, NvmlDevice*) = nullptr;
  NvmlReturn (*name)(NvmlDevice, char*, unsigned int) = nullptr;
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned int) = nullptr;
  NvmlReturn (*memory)(NvmlDevice, NvmlMemory*) = nullptr;
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;
  const char* (*error)(NvmlReturn) = nullptr;

  // "NVML: WHAT: the library's message for r".
  Status Fail(const std::string& what, NvmlReturn r) const;
};

// Loads the library and its symbols and calls nvmlInit; an error says why not.
Result<NvmlApi> OpenNvml();
// nvmlShutdown and unload.
void CloseNvml(NvmlApi& api);

}  // namespace squeeze

#endif  // SQUEEZE_EXEC_NVML_API_H_
