#include "export/node_labels.h"

#include "export/k8s_names.h"

namespace squeeze {

std::map<std::string, std::string> FlavorNodeLabels(const Flavor& flavor, bool multi_region) {
  std::map<std::string, std::string> labels = {
      {kPoolKindLabel, std::string(PoolKindName(flavor.kind))}};
  if (flavor.gpu_model != kUnnamedGpuModel) {
    labels[kGpuModelLabel] = GpuProductLabel(flavor.gpu_model);
  }
  if (multi_region) labels[kRegionLabel] = flavor.region;
  return labels;
}

std::optional<std::string> FlavorTaintKey(PoolKind kind) {
  if (kind == PoolKind::kSpot) return std::string("squeeze.dev/spot");
  if (kind == PoolKind::kColocated) return std::string("squeeze.dev/colocated");
  return std::nullopt;
}

}  // namespace squeeze
