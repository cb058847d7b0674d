#include "exec/nvml_api.h"

#include <dlfcn.h>

namespace squeeze {
namespace {

template <typename F>
bool Load(void* lib, const char* symbol, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, symbol));
  return out != nullptr;
}

}  // namespace

Status NvmlApi::Fail(const std::string& what, NvmlReturn r) const {
  return Status::Error("NVML: " + what + ": " + (error ? error(r) : std::to_string(r)));
}

Result<NvmlApi> OpenNvml() {
  NvmlApi api;
  api.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (api.lib == nullptr) {
    const char* err = dlerror();
    return Status::Error(std::string("NVML: ") + (err ? err : "libnvidia-ml.so.1 not found"));
  }
  void* lib = api.lib;
  const bool loaded = Load(lib, "nvmlInit_v2", api.init) && Load(lib, "nvmlShutdown", api.shutdown) &&
                      Load(lib, "nvmlDeviceGetCount_v2", api.count) &&
                      Load(lib, "nvmlDeviceGetHandleByIndex_v2", api.handle) &&
                      Load(lib, "nvmlDeviceGetName", api.name) &&
                      Load(lib, "nvmlDeviceGetUUID", api.uuid) &&
                      Load(lib, "nvmlDeviceGetMemoryInfo", api.memory) &&
                      Load(lib, "nvmlDeviceGetUtilizationRates", api.utilization) &&
                      Load(lib, "nvmlErrorString", api.error);
  if (!loaded) {
    dlclose(lib);
    return Status::Error("NVML: libnvidia-ml.so.1 lacks a needed symbol");
  }
  if (NvmlReturn r = api.init(); r != kNvmlSuccess) {
    Status st = api.Fail("nvmlInit", r);
    dlclose(lib);
    return st;
  }
  return api;
}

void CloseNvml(NvmlApi& api) {
  if (api.lib == nullptr) return;
  api.shutdown();
  dlclose(api.lib);
  api.lib = nullptr;
}

}  // namespace squeeze
