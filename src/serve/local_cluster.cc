#include "serve/local_cluster.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>

#include "exec/published_gpu_speeds.h"

namespace squeeze {

std::vector<int> LocalCluster::CudaIndices(const Placement& placement) const {
  std::vector<int> out;
  for (const NodeShare& share : placement.shares) {
    for (int g : share.gpus) {
      if (const LocalGpu* gpu = Find(share.node, g)) out.push_back(gpu->device.index);
    }
  }
  return out;
}

std::optional<Placement> LocalCluster::PlacementOf(const std::vector<int>& cuda_indices,
                                                   int milli) const {
  Placement p;
  for (int index : cuda_indices) {
    const LocalGpu* gpu = nullptr;
    for (const LocalGpu& g : gpus) gpu = g.device.index == index ? &g : gpu;
    if (gpu == nullptr) return std::nullopt;
    NodeShare* share = nullptr;
    for (NodeShare& s : p.shares) share = s.node == gpu->node ? &s : share;
    if (share == nullptr) {
      share = &p.shares.emplace_back();
      share->node = gpu->node;
      share->milli_per_gpu = milli;
    }
    share->gpus.push_back(gpu->gpu_on_node);
  }
  if (p.empty()) return std::nullopt;
  return p;
}

std::vector<std::string> LocalCluster::NodeNamesOf(const std::vector<int>& cuda_indices) const {
  std::vector<std::string> out;
  for (int index : cuda_indices) {
    for (const LocalGpu& g : gpus) {
      if (g.device.index != index) continue;
      const std::string& name = spec.nodes[g.node].name;
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
      break;
    }
  }
  return out;
}

const LocalGpu* LocalCluster::Find(int node, int gpu_on_node) const {
  for (const LocalGpu& g : gpus) {
    if (g.node == node && g.gpu_on_node == gpu_on_node) return &g;
  }
  return nullptr;
}

namespace {

// Cards of several kinds on this machine and no cluster file: a node per model, named
// HOST-MODEL, and each model's memory (what the driver said) and speed, its published TFLOPS
// relative to the fastest card here's, when every model is in the table (else speeds stay 1:
// a guess for some would skew the others).
void AddPublishedSpeeds(const std::string& host, ClusterSpec& spec) {
  for (NodeSpec& n : spec.nodes) n.name = host + "-" + n.gpu_model;
  double fastest = 0;
  for (const NodeSpec& n : spec.nodes) {
    const std::optional<double> tflops = PublishedTflops(n.gpu_model);
    if (!tflops) {
      fastest = 0;
      break;
    }
    fastest = std::max(fastest, *tflops);
  }
  for (const NodeSpec& n : spec.nodes) {
    GpuModelSpec& model = spec.gpu_models[n.gpu_model];
    model.memory_mib = n.gpu_memory_mib;
    if (fastest > 0) model.speed = *PublishedTflops(n.gpu_model) / fastest;
  }
}

}  // namespace

Result<LocalCluster> BuildLocalCluster(const GpuInventory& found,
                                       const std::optional<ClusterSpec>& config,
                                       const std::string& host) {
  auto none_found = [&found] {
    std::string why;
    for (const std::string& note : found.notes) why += "; " + note;
    return Status::Error("no GPU found (NVML, nvidia-smi)" + why +
                         ". Run with --virtual-gpus N to try squeeze without GPUs");
  };
  LocalCluster out;
  out.source = found.source;
  if (!config) {
    if (found.gpus.empty()) return none_found();
    PoolSpec pool;
    pool.name = "local";
    out.spec.pools.push_back(pool);
    // One node per model, in the order the models first appear.
    std::map<std::string, int> node_of_model;
    for (const GpuDevice& d : found.gpus) {
      auto [it, added] = node_of_model.emplace(d.model, static_cast<int>(out.spec.nodes.size()));
      if (added) {
        NodeSpec node;
        node.name = host;
        node.pool = pool.name;
        node.gpu_model = d.model;
        node.gpus = 0;
        node.gpu_memory_mib = d.memory_mib;
        if (d.is_virtual) node.labels["virtual"] = "true";
        out.spec.nodes.push_back(node);
      }
      NodeSpec& node = out.spec.nodes[it->second];
      out.gpus.push_back({it->second, node.gpus, d});
      ++node.gpus;
    }
    if (node_of_model.size() > 1) AddPublishedSpeeds(host, out.spec);
  } else {
    out.spec = *config;
    size_t next = 0;
    int declared = 0, remote = 0;
    for (size_t n = 0; n < out.spec.nodes.size(); ++n) {
      NodeSpec& node = out.spec.nodes[n];
      const int pool = out.spec.PoolIndex(node.pool);
      if (pool < 0) continue;
      if (out.spec.pools[pool].backend != "local") {
        // GPUs of a cluster manager's nodes: it binds them itself; squeeze only needs an
        // identity for each, kept in the store across restarts.
        for (int g = 0; g < node.gpus; ++g) {
          GpuDevice d;
          d.index = kRemoteSlotBase + remote++;
          d.name = out.spec.pools[pool].backend + " pool " + node.pool;
          d.model = node.gpu_model;
          out.gpus.push_back({static_cast<int>(n), g, d});
        }
        continue;
      }
      declared += node.gpus;
      for (int g = 0; g < node.gpus && next < found.gpus.size(); ++g, ++next) {
        out.gpus.push_back({static_cast<int>(n), g, found.gpus[next]});
        if (found.gpus[next].is_virtual) node.labels["virtual"] = "true";
      }
    }
    if (declared > 0 && found.gpus.empty()) return none_found();
    if (declared > static_cast<int>(found.gpus.size())) {
      return Status::Error("the config's local nodes declare " + std::to_string(declared) +
                           " GPUs; this machine has " + std::to_string(found.gpus.size()) +
                           " (" + found.source + ")");
    }
    if (declared == 0 && remote == 0) return Status::Error("the config has no node with GPUs");
  }
  // This machine's executor runs a job on one node: a local pool takes no job bigger than its
  // largest node (a Slurm pool runs those over several nodes).
  for (PoolSpec& pool : out.spec.pools) pool.one_node_jobs = pool.backend == "local";
  if (Status s = out.spec.Validate(); !s.ok()) return s;
  return out;
}

}  // namespace squeeze
