// Kubernetes names and quantities for `squeeze export`: squeeze's pool, team, model and region
// names made into DNS-1123 labels (or refused with the name), label values checked, CPU and
// memory written as quantities. Pure functions; thread-safe.
#ifndef SQUEEZE_EXPORT_K8S_NAMES_H_
#define SQUEEZE_EXPORT_K8S_NAMES_H_

#include <cstdint>
#include <string>

#include "core/status.h"

namespace squeeze {

// The longest DNS-1123 label: namespaces, and names used as label values (a LocalQueue's).
constexpr size_t kMaxLabelLength = 63;

// `name` as a DNS-1123 label: lower case, each run of characters other than [a-z0-9] turned
// into one '-', '-' trimmed at both ends. An error naming `what` and `name` when nothing is
// left or the result is longer than 63 characters.
Result<std::string> DnsLabel(const std::string& name, const std::string& what);

// Whether `s` is a DNS-1123 label as it stands.
bool IsDnsLabel(const std::string& s);

// Whether `s` may be a label value as it stands: at most 63 characters of [A-Za-z0-9._-],
// beginning and ending with a letter or digit (or empty).
bool IsLabelValue(const std::string& s);

// A GPU model as the node label nvidia.com/gpu.product carries it: NVIDIA's GPU feature
// discovery labels a node with the product name, each run of spaces made one '-' (nvidia-smi's
// "NVIDIA GeForce RTX 4090" is "NVIDIA-GeForce-RTX-4090", "Tesla T4" is "Tesla-T4"), spaces at
// the ends left out. A model written so already is returned as it is.
std::string GpuProductLabel(const std::string& model);

// CPU milli-cores as a quantity: "64" for whole cores, "1500m" otherwise.
std::string CpuQuantity(int64_t milli);
// Memory in MiB as a quantity: "512Gi" when whole GiB, "1536Mi" otherwise.
std::string MemoryQuantity(int64_t mib);

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_K8S_NAMES_H_
