// GPU fragmentation as the FGD paper (Weng et al., ATC '23) measures it: a target workload
// (the mix of pod shapes expected to arrive) and the expected GPU milli of a node that no pod
// of that mix could use. Pure value types and functions; the reference is
// ../shared/traces/openb/PROTOCOL.md section 5. Thread-compatible.
#ifndef SQUEEZE_CORE_PLUGINS_FRAGMENTATION_H_
#define SQUEEZE_CORE_PLUGINS_FRAGMENTATION_H_

#include <cstdint>
#include <limits>
#include <map>
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

  struct Options {
    double coverage = 0.95;  // keep the top specs until they cover this share of pods
  };

  TargetWorkload() = default;
  // Counts `pods` per (c, g, k, gpu_spec), sorts by count descending (ties to the larger
  // (c, g, k, gpu_spec)), keeps the top specs until they cover >= 95% of the pods, and sets
  // p_m = count_m / (sum of kept counts). CPU-only pods count like any other; memory is no
  // part of a spec (entries carry memory_mib 0).
  explicit TargetWorkload(const std::vector<PodSpec>& pods) : TargetWorkload(pods, Options{}) {}
  TargetWorkload(const std::vector<PodSpec>& pods, const Options& options);

  const std::vector<Entry>& entries() const { return entries_; }
  // The same specs with p_m in proportion to weights[m] (one per entry), summing to 1.
  TargetWorkload Reweighted(const std::vector<double>& weights) const;

 private:
  std::vector<Entry> entries_;
};

// A target workload prepared for evaluating many nodes fast: each spec's allowed models are
// resolved once per GPU model. Gives the same F_n as NodeFragmentation. Not thread-safe (it
// caches per model).
class FragmentationCalculator {
 public:
  FragmentationCalculator() = default;
  explicit FragmentationCalculator(const TargetWorkload& target);

  const TargetWorkload& target() const { return target_; }
  // FGD's F_n (see NodeFragmentation).
  double Fragmentation(const NodeView& node) const;
  // The free GPU milli a stream of pods of each spec could never fill, weighted by p_m: for
  // spec m, U_n - R_m x (how many m-pods the node could still take, by its GPUs and its CPU);
  // all of U_n for CPU-only specs and specs the node's model does not serve. Unlike F_n it
  // counts what each pod strands on the GPU it takes (190 milli for an 810-milli pod on a free
  // GPU) and GPUs the node has no CPU left to use.
  double StreamWaste(const NodeView& node) const;
  // share x Fragmentation + (1 - share) x StreamWaste, in one pass.
  double MixedWaste(const NodeView& node, double share) const;
  // How many pods of entry `i` the node could still take, alone.
  int64_t Room(const NodeView& node, size_t i) const;

 private:
  const std::vector<char>& AllowedOn(const std::string& model) const;

  TargetWorkload target_;
  mutable std::string last_model_;
  mutable const std::vector<char>* last_allowed_ = nullptr;
  mutable std::map<std::string, std::vector<char>> allowed_;  // model -> per entry
};

// f_n(m): the free GPU milli of `node` that a pod of spec `m` could not use.
int64_t SpecFragmentation(const NodeView& node, const PodSpec& m);

// F_n = sum over m of p_m f_n(m), in milli-GPU.
double NodeFragmentation(const NodeView& node, const TargetWorkload& m);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLUGINS_FRAGMENTATION_H_
