// The node scores of the policies the FGD paper compares (DotProd, GpuPacking, GpuClustering,
// BestFit, FGD), the reference feasibility filter and the reference GPU choice within a node,
// as pure functions of a NodeView and a PodSpec. The reference is
// ../shared/traces/openb/PROTOCOL.md sections 2 and 5. Thread-compatible.
#ifndef SQUEEZE_CORE_PLUGINS_PLACEMENT_SCORES_H_
#define SQUEEZE_CORE_PLUGINS_PLACEMENT_SCORES_H_

#include <cstdint>
#include <vector>

#include "core/plugins/fragmentation.h"

namespace squeeze {

// The reference filter: CPU and memory fit; a GPU pod needs a node of an allowed model with
// (k = 1) some GPU with free milli >= g, or (k > 1) k fully free GPUs.
bool PodFits(const NodeView& node, const PodSpec& pod);

// The k lowest-index fully free GPUs; empty when there are fewer.
std::vector<int> LowestFreeGpus(const NodeView& node, int k);

// The fitting GPU (free >= milli) with the least free milli, lowest index on ties; -1 if none.
int LeastFreeFittingGpu(const NodeView& node, int milli);

// The GPUs every policy but FGD and Random gives `pod` on `node`: a fractional pod the
// least-free fitting GPU, a whole-GPU pod the k lowest-index fully free GPUs, a CPU-only pod
// none. Empty also when the pod does not fit.
std::vector<int> ChooseGpus(const NodeView& node, const PodSpec& pod);

// Scores in [0, 100], meaningful on nodes where PodFits holds.
int DotProdScore(const NodeView& node, const PodSpec& pod);
int GpuPackingScore(const NodeView& node, const PodSpec& pod);
int GpuClusteringScore(const NodeView& node, const PodSpec& pod);

// BestFit before normalisation: floor(100(1 - [0.5(C-c)/128000 + 0.5(U-R)/8000])), exact.
int64_t BestFitRawScore(const NodeView& node, const PodSpec& pod);
// Min-max normalisation over the feasible nodes' raw scores: floor((raw-lo)*100/(hi-lo));
// all 0 when every raw score is equal (or there are none).
std::vector<int> NormaliseMinMax(const std::vector<int64_t>& raw);

struct FgdResult {
  int score = 0;
  std::vector<int> gpus;  // the GPUs FGD gives the pod; empty for CPU-only or unfit pods
};

// The node after placing `pod` on `gpus` of it (CPU, memory and GPU milli reduced).
NodeView AfterPlacement(const NodeView& node, const PodSpec& pod, const std::vector<int>& gpus);

// floor(100 sigmoid((F_n - F_n') / 1000)), n' the node after the placement. A fractional pod
// tries every GPU with free >= g and keeps the best, lowest index on ties; a whole-GPU pod
// takes the k lowest-index fully free GPUs. Score 0 and no GPUs when the pod does not fit.
FgdResult FgdScore(const NodeView& node, const PodSpec& pod, const TargetWorkload& m);
// The same with the target prepared for speed.
FgdResult FgdScore(const NodeView& node, const PodSpec& pod, const FragmentationCalculator& m);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_PLUGINS_PLACEMENT_SCORES_H_
