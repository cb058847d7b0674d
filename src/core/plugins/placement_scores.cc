#include "core/plugins/placement_scores.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/types.h"

namespace squeeze {
namespace {

constexpr int64_t kCpuScale = 128000;  // milli CPU of the reference node
constexpr int64_t kGpuScale = 8000;    // milli GPU of the reference node

// Floor of a / b for b > 0.
int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && (a < 0)) --q;
  return q;
}

int Clamp100(int64_t s) { return static_cast<int>(std::clamp<int64_t>(s, 0, 100)); }

bool IsShare(const PodSpec& pod) { return pod.gpus == 1 && pod.gpu_milli < kMilliPerGpu; }

}  // namespace

bool PodFits(const NodeView& node, const PodSpec& pod) {
  if (node.cpu_free < pod.cpu_milli || node.memory_free < pod.memory_mib) return false;
  if (pod.CpuOnly()) return true;
  if (!pod.AllowsModel(node.gpu_model)) return false;
  if (pod.gpus == 1) return LeastFreeFittingGpu(node, pod.gpu_milli) >= 0;
  return static_cast<int>(LowestFreeGpus(node, pod.gpus).size()) == pod.gpus;
}

std::vector<int> LowestFreeGpus(const NodeView& node, int k) {
  std::vector<int> out;
  for (int i = 0; i < node.Gpus() && static_cast<int>(out.size()) < k; ++i) {
    if (node.free_milli[i] >= kMilliPerGpu) out.push_back(i);
  }
  if (static_cast<int>(out.size()) < k) out.clear();
  return out;
}

int LeastFreeFittingGpu(const NodeView& node, int milli) {
  int best = -1;
  for (int i = 0; i < node.Gpus(); ++i) {
    const int l = node.free_milli[i];
    if (l >= milli && (best < 0 || l < node.free_milli[best])) best = i;
  }
  return best;
}

std::vector<int> ChooseGpus(const NodeView& node, const PodSpec& pod) {
  if (pod.CpuOnly() || !PodFits(node, pod)) return {};
  if (IsShare(pod)) return {LeastFreeFittingGpu(node, pod.gpu_milli)};
  return LowestFreeGpus(node, pod.gpus);
}

int DotProdScore(const NodeView& node, const PodSpec& pod) {
  // 100(1 - [C c / 128000^2 + U R / 8000^2] / 2) over the denominator 128000^2, exactly:
  // U R / 8000^2 = 256 U R / 128000^2.
  const int64_t d = kCpuScale * kCpuScale;
  const int64_t dot = node.cpu_free * pod.cpu_milli + 256 * node.FreeMilli() * pod.TotalMilli();
  return Clamp100(FloorDiv(100 * d - 50 * dot, d));
}

int GpuPackingScore(const NodeView& node, const PodSpec& pod) {
  const std::vector<int> gpus = ChooseGpus(node, pod);
  if (gpus.empty()) return 0;  // CPU-only, or does not fit
  const int g = node.Gpus();
  if (std::all_of(node.free_milli.begin(), node.free_milli.end(),
                  [](int l) { return l >= kMilliPerGpu; })) {
    return Clamp100(std::max(33 - g, g));
  }
  int fully_free = 0;
  for (int i : gpus) fully_free += node.free_milli[i] >= kMilliPerGpu ? 1 : 0;
  if (fully_free > 0) return Clamp100(std::max(50 - fully_free, 33));
  const int l = node.free_milli[gpus.front()];
  return Clamp100(std::max(100 - (100 * l / 1000) / 10, 50));
}

int GpuClusteringScore(const NodeView& node, const PodSpec& pod) {
  if (pod.CpuOnly()) return 0;
  const int64_t b = FloorDiv(25 * (kGpuScale - node.FreeMilli()), kGpuScale);
  const bool share = IsShare(pod);
  const bool same = share ? node.hosts_share : node.hosts_kgpu;
  const bool other = share ? node.hosts_kgpu : node.hosts_share;
  if (same) return Clamp100(b + (other ? 50 : 75));
  if (!node.hosts_any_gpu_pod) return Clamp100(b + 25);
  return Clamp100(b);
}

int64_t BestFitRawScore(const NodeView& node, const PodSpec& pod) {
  // 100 - 50(C-c)/128000 - 50(U-R)/8000 over the denominator 128000, exactly.
  const int64_t cpu_left = node.cpu_free - pod.cpu_milli;
  const int64_t gpu_left = node.FreeMilli() - pod.TotalMilli();
  return FloorDiv(100 * kCpuScale - 50 * cpu_left - 800 * gpu_left, kCpuScale);
}

std::vector<int> NormaliseMinMax(const std::vector<int64_t>& raw) {
  std::vector<int> out(raw.size(), 0);
  if (raw.empty()) return out;
  const auto [lo, hi] = std::minmax_element(raw.begin(), raw.end());
  if (*lo == *hi) return out;
  for (size_t i = 0; i < raw.size(); ++i) {
    out[i] = static_cast<int>(FloorDiv((raw[i] - *lo) * 100, *hi - *lo));
  }
  return out;
}

NodeView AfterPlacement(const NodeView& node, const PodSpec& pod, const std::vector<int>& gpus) {
  NodeView after = node;
  after.cpu_free -= pod.cpu_milli;
  if (after.memory_free != std::numeric_limits<int64_t>::max()) {
    after.memory_free -= pod.memory_mib;
  }
  if (!pod.CpuOnly()) {
    for (int i : gpus) after.free_milli[i] -= pod.gpu_milli;
  }
  return after;
}

FgdResult FgdScore(const NodeView& node, const PodSpec& pod, const TargetWorkload& m) {
  return FgdScore(node, pod, FragmentationCalculator(m));
}

FgdResult FgdScore(const NodeView& node, const PodSpec& pod, const FragmentationCalculator& m) {
  FgdResult result;
  if (!PodFits(node, pod)) return result;
  const double before = m.Fragmentation(node);
  auto score = [&](const std::vector<int>& gpus) {
    const double delta = before - m.Fragmentation(AfterPlacement(node, pod, gpus));
    const double sigmoid = 1.0 / (1.0 + std::exp(-delta / 1000.0));
    return Clamp100(static_cast<int64_t>(std::floor(100.0 * sigmoid)));
  };
  if (pod.CpuOnly()) {
    result.score = score({});
    return result;
  }
  if (!IsShare(pod)) {
    result.gpus = LowestFreeGpus(node, pod.gpus);
    result.score = score(result.gpus);
    return result;
  }
  int best = -1;
  for (int i = 0; i < node.Gpus(); ++i) {
    if (node.free_milli[i] < pod.gpu_milli) continue;
    // An earlier GPU with the same free milli scores the same and wins the tie.
    if (std::find(node.free_milli.begin(), node.free_milli.begin() + i, node.free_milli[i]) !=
        node.free_milli.begin() + i) {
      continue;
    }
    const int s = score({i});
    if (best < 0 || s > result.score) {
      best = i;
      result.score = s;
    }
  }
  result.gpus = {best};
  return result;
}

}  // namespace squeeze
