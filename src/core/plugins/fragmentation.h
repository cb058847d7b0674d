// GPU fragmentation as the FGD paper (Weng et al., ATC '23) measures it: a target workload
// (the mix of pod shapes expected to arrive) and the expected GPU milli of a node that no pod
// of that mix could use. Pure value types and functions; the reference is
// ../shared/traces/openb/PROTOCOL.md section 5. Thread-compatible.
#ifndef SQUEEZE_CORE_PLUGINS_FRAGMENTATION_H_
#define SQUEEZE_CORE_PLUGINS_FRAGMENTATION_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace squeeze {

// One pod's demand in the trace's terms. Not JobSpec: a pod is one node's worth, its CPU is
// per pod (not spread over nodes), and a CPU-only pod (gpus == 0 or gpu_milli == 0) is
// allowed. `gpu_models` is the trace's gpu_spec split on '|'; empty = any model.
struct PodSpec {
  int64_t cpu_milli = 0;
  int gpu_milli = 0;  // per GPU; 1000 = a whole card
  int gpus = 0;       // k; > 1 only with gpu_milli == 1000
  std::vector<std::string> gpu_models;
  int64_t memory_mib = 0;  // only checked for feasibility

  bool CpuOnly() const { return gpus <= 0 || gpu_milli <= 0; }
  int64_t TotalMilli() const { return CpuOnly() ? 0 : int64_t{gpus} * gpu_milli; }
  // The trace's gpu_spec string: the models joined by '|'.
  std::string GpuSpec() const;
  // Whether a node of `model` may host the pod (always true for CPU-only pods).
  bool AllowsModel(const std::string& model) const;
};

// What the scores need to know of a node. Filled by the caller (from a NodeState, say), or
// built directly in tests.
struct NodeView {
  int64_t cpu_free = 0;  // C_n, milli
  int64_t memory_free = std::numeric_limits<int64_t>::max();  // MiB; max = not tracked
  std::vector<int> free_milli;  // l_1..l_G
  std::string gpu_model;        // t_n
  // Pod classes the node hosts, for GpuClustering: "share" (k=1, g<1000), "k-gpu" (g=1000),
  // and any GPU pod at all (normally hosts_share || hosts_kgpu).
  bool hosts_share = false;
  bool hosts_kgpu = false;
  bool hosts_any_gpu_pod = false;

  int Gpus() const { return static_cast<int>(free_milli.size()); }
  int64_t FreeMilli() const;  // U_n
};

// The target workload M: the most frequent pod specs, with their probabilities p_m.
class TargetWorkload {
 public:
  struct Entry {
    PodSpec spec;
    int64_t count = 0;
    double p = 0;
  };

  TargetWorkload() = default;
  // Counts `pods` per (c, g, k, gpu_spec), sorts by count descending (ties to the larger
  // (c, g, k, gpu_spec)), keeps the top specs until they cover >= 95% of the pods, and sets
  // p_m = count_m / (sum of kept counts). CPU-only pods count like any other; memory is no
  // part of a spec (entries carry memory_mib 0).
  explicit TargetWorkload(const std::vector<PodSpec>& pods);

  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

// f_n(m): the free GPU milli of `node` that a pod of spec `m` could not use.
int64_t SpecFragmentation(const NodeView& node, const PodSpec& m);

// F_n = sum over m of p_m f_n(m), in milli-GPU.
double NodeFragmentation(const NodeView& node, const TargetWorkload& m);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLUGINS_FRAGMENTATION_H_
