#include <string>

#include "inventory/inventory_sources.h"
#include "slurm/slurm_output.h"

namespace squeeze {
namespace {

std::vector<GpuRecord> FromSlurmNodes(const std::vector<SlurmNode>& nodes,
                                      const std::string& source) {
  std::vector<GpuRecord> out;
  for (const SlurmNode& n : nodes) {
    std::vector<GpuRecord> gpus = ExpandNodeGpus(n.name, n.gpu_model.empty() ? "gpu" : n.gpu_model,
                                                 0, n.gpus, n.gpus_used, source);
    out.insert(out.end(), gpus.begin(), gpus.end());
  }
  return out;
}

}  // namespace

Result<std::vector<GpuRecord>> ParseSinfoInventory(std::string_view text) {
  Result<std::vector<SlurmNode>> nodes = ParseSinfoJson(text);
  if (!nodes.ok()) return nodes.status();
  return FromSlurmNodes(*nodes, "sinfo-json");
}

Result<std::vector<GpuRecord>> ParseScontrolNodesInventory(std::string_view text) {
  Result<std::vector<SlurmNode>> nodes = ParseScontrolNodes(text);
  if (!nodes.ok()) return nodes.status();
  return FromSlurmNodes(*nodes, "scontrol-nodes");
}

}  // namespace squeeze
