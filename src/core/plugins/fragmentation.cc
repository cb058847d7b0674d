#include "core/plugins/fragmentation.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace squeeze {

std::string PodSpec::GpuSpec() const {
  std::string out;
  for (size_t i = 0; i < gpu_models.size(); ++i) {
    if (i > 0) out += '|';
    out += gpu_models[i];
  }
  return out;
}

bool PodSpec::AllowsModel(const std::string& model) const {
  if (CpuOnly() || gpu_models.empty()) return true;
  return std::find(gpu_models.begin(), gpu_models.end(), model) != gpu_models.end();
}

int64_t NodeView::FreeMilli() const {
  int64_t sum = 0;
  for (int l : free_milli) sum += l;
  return sum;
}

TargetWorkload::TargetWorkload(const std::vector<PodSpec>& pods) {
  using Key = std::tuple<int64_t, int, int, std::string>;
  std::map<Key, Entry> by_key;
  for (const PodSpec& pod : pods) {
    Entry& e = by_key[Key{pod.cpu_milli, pod.gpu_milli, pod.gpus, pod.GpuSpec()}];
    if (e.count == 0) {
      e.spec = pod;
      e.spec.memory_mib = 0;
    }
    ++e.count;
  }
  std::vector<std::pair<Key, Entry>> sorted(by_key.begin(), by_key.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    if (a.second.count != b.second.count) return a.second.count > b.second.count;
    return a.first > b.first;
  });
  const int64_t total = static_cast<int64_t>(pods.size());
  int64_t kept = 0;
  for (auto& [key, entry] : sorted) {
    if (kept * 100 >= total * 95) break;
    kept += entry.count;
    entries_.push_back(std::move(entry));
  }
  for (Entry& e : entries_) e.p = static_cast<double>(e.count) / static_cast<double>(kept);
}

int64_t SpecFragmentation(const NodeView& node, const PodSpec& m) {
  const int64_t u = node.FreeMilli();
  if (m.CpuOnly()) return u;
  if (!m.AllowsModel(node.gpu_model)) return u;
  int fitting = 0;
  int64_t unusable = 0;
  for (int l : node.free_milli) {
    if (l >= m.gpu_milli) {
      ++fitting;
    } else {
      unusable += l;
    }
  }
  if (fitting >= m.gpus && node.cpu_free >= m.cpu_milli) return unusable;
  return u;
}

double NodeFragmentation(const NodeView& node, const TargetWorkload& m) {
  double f = 0;
  for (const TargetWorkload::Entry& e : m.entries()) {
    f += e.p * static_cast<double>(SpecFragmentation(node, e.spec));
  }
  return f;
}

}  // namespace squeeze
