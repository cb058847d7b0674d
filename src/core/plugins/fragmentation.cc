#include "core/plugins/fragmentation.h"

#include "core/types.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
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

namespace {

// The free milli of the GPUs too small for one of m's GPUs, when enough GPUs are big enough
// for m (CPU and model not checked); nullopt when they are not.
std::optional<int64_t> UnusableIfFits(const NodeView& node, const PodSpec& m) {
  int fitting = 0;
  int64_t unusable = 0;
  for (int l : node.free_milli) {
    if (l >= m.gpu_milli) {
      ++fitting;
    } else {
      unusable += l;
    }
  }
  if (fitting < m.gpus) return std::nullopt;
  return unusable;
}

}  // namespace

TargetWorkload::TargetWorkload(const std::vector<PodSpec>& pods, const Options& options) {
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
  // Integer percent as the reference compares (count >= 95% of all pods), exact for 0.95.
  const auto percent = static_cast<int64_t>(std::llround(options.coverage * 100));
  for (auto& [key, entry] : sorted) {
    if (kept * 100 >= total * percent) break;
    kept += entry.count;
    entries_.push_back(std::move(entry));
  }
  for (Entry& e : entries_) e.p = static_cast<double>(e.count) / static_cast<double>(kept);
}

TargetWorkload TargetWorkload::Reweighted(const std::vector<double>& weights) const {
  TargetWorkload out = *this;
  double sum = 0;
  for (double w : weights) sum += w;
  for (size_t i = 0; i < out.entries_.size() && i < weights.size(); ++i) {
    out.entries_[i].p = sum > 0 ? weights[i] / sum : 0;
  }
  return out;
}

int64_t SpecFragmentation(const NodeView& node, const PodSpec& m) {
  if (m.CpuOnly() || !m.AllowsModel(node.gpu_model) || node.cpu_free < m.cpu_milli) {
    return node.FreeMilli();
  }
  return UnusableIfFits(node, m).value_or(node.FreeMilli());
}

double NodeFragmentation(const NodeView& node, const TargetWorkload& m) {
  double f = 0;
  for (const TargetWorkload::Entry& e : m.entries()) {
    f += e.p * static_cast<double>(SpecFragmentation(node, e.spec));
  }
  return f;
}

}  // namespace squeeze

namespace squeeze {

FragmentationCalculator::FragmentationCalculator(const TargetWorkload& target)
    : target_(target) {}

const std::vector<char>& FragmentationCalculator::AllowedOn(const std::string& model) const {
  if (last_allowed_ != nullptr && model == last_model_) return *last_allowed_;
  auto it = allowed_.find(model);
  if (it == allowed_.end()) {
    std::vector<char> allowed;
    for (const auto& e : target_.entries()) allowed.push_back(e.spec.AllowsModel(model) ? 1 : 0);
    it = allowed_.emplace(model, std::move(allowed)).first;
  }
  last_model_ = model;
  last_allowed_ = &it->second;
  return it->second;
}

double FragmentationCalculator::Fragmentation(const NodeView& node) const {
  const std::vector<char>& allowed = AllowedOn(node.gpu_model);
  const int64_t u = node.FreeMilli();
  const auto& entries = target_.entries();
  double f = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const PodSpec& m = entries[i].spec;
    int64_t fm = u;
    if (!m.CpuOnly() && allowed[i] && node.cpu_free >= m.cpu_milli) {
      fm = UnusableIfFits(node, m).value_or(u);
    }
    f += entries[i].p * static_cast<double>(fm);
  }
  return f;
}

int64_t FragmentationCalculator::Room(const NodeView& node, size_t i) const {
  const PodSpec& m = target_.entries()[i].spec;
  if (m.CpuOnly()) return m.cpu_milli > 0 ? node.cpu_free / m.cpu_milli : 0;
  if (!AllowedOn(node.gpu_model)[i]) return 0;
  const int64_t by_cpu =
      m.cpu_milli > 0 ? node.cpu_free / m.cpu_milli : std::numeric_limits<int64_t>::max();
  int64_t by_gpu = 0;
  if (m.gpus == 1 && m.gpu_milli < kMilliPerGpu) {
    for (int l : node.free_milli) by_gpu += l / m.gpu_milli;
  } else {
    int whole = 0;
    for (int l : node.free_milli) whole += l >= kMilliPerGpu ? 1 : 0;
    by_gpu = whole / m.gpus;
  }
  return std::min(by_cpu, by_gpu);
}

double FragmentationCalculator::MixedWaste(const NodeView& node, double share) const {
  const std::vector<char>& allowed = AllowedOn(node.gpu_model);
  const int64_t u = node.FreeMilli();
  int whole = 0;
  for (int l : node.free_milli) whole += l >= kMilliPerGpu ? 1 : 0;
  const auto& entries = target_.entries();
  double f = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const PodSpec& m = entries[i].spec;
    int64_t frag = u;   // FGD's f_n(m)
    int64_t waste = u;  // U_n - R_m x room
    if (!m.CpuOnly() && allowed[i] && node.cpu_free >= m.cpu_milli) {
      const int64_t by_cpu = m.cpu_milli > 0 ? node.cpu_free / m.cpu_milli
                                             : std::numeric_limits<int64_t>::max();
      if (m.gpus == 1 && m.gpu_milli < kMilliPerGpu) {
        int64_t unusable = 0, slots = 0;
        for (int l : node.free_milli) {
          if (l >= m.gpu_milli) {
            slots += l / m.gpu_milli;
          } else {
            unusable += l;
          }
        }
        if (slots > 0) frag = unusable;
        waste = u - std::min(by_cpu, slots) * m.gpu_milli;
      } else {
        if (whole >= m.gpus) {
          int64_t partial = 0;
          for (int l : node.free_milli) partial += l < kMilliPerGpu ? l : 0;
          frag = partial;
        }
        waste = u - std::min<int64_t>(by_cpu, whole / m.gpus) * m.TotalMilli();
      }
    }
    f += entries[i].p * (share * static_cast<double>(frag) +
                         (1 - share) * static_cast<double>(waste));
  }
  return f;
}

double FragmentationCalculator::StreamWaste(const NodeView& node) const {
  const int64_t u = node.FreeMilli();
  const auto& entries = target_.entries();
  double f = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const PodSpec& m = entries[i].spec;
    const int64_t served = m.CpuOnly() ? 0 : Room(node, i) * m.TotalMilli();
    f += entries[i].p * static_cast<double>(u - served);
  }
  return f;
}

}  // namespace squeeze
