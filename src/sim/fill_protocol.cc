#include "sim/fill_protocol.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "core/rng.h"

namespace squeeze {
namespace {

int64_t GpuMilli(const JobSpec& pod) { return pod.gpus > 0 ? pod.TotalMilli() : 0; }
int64_t PerGpuMilli(const JobSpec& pod) { return pod.gpus > 0 ? pod.gpu_milli : 0; }

int64_t SumGpuMilli(const std::vector<JobSpec>& pods) {
  int64_t total = 0;
  for (const JobSpec& p : pods) total += GpuMilli(p);
  return total;
}

// Appends clones of `originals` drawn with replacement until a draw's per-GPU milli would
// push the total above `target` (the reference tests g but adds k*g; see the header).
void TuneUp(const std::vector<JobSpec>& originals, double target, int64_t total, Rng& rng,
            std::vector<JobSpec>& out) {
  JobId next_id = 0;
  for (const JobSpec& p : originals) next_id = std::max(next_id, p.id + 1);
  for (int i = 0;; ++i) {
    const JobSpec& drawn = originals[rng.UniformInt(originals.size())];
    if (static_cast<double>(total + PerGpuMilli(drawn)) > target) break;
    JobSpec clone = drawn;
    clone.id = next_id++;
    clone.name = drawn.name + "-tuned-" + std::to_string(i);
    total += GpuMilli(drawn);
    out.push_back(std::move(clone));
  }
}

void TuneDown(double target, int64_t total, Rng& rng, std::vector<JobSpec>& out) {
  while (static_cast<double>(total) > target && !out.empty()) {
    const auto idx = static_cast<std::ptrdiff_t>(rng.UniformInt(out.size()));
    total -= GpuMilli(out[idx]);
    out.erase(out.begin() + idx);
  }
}

bool NearColumn(int r, const std::vector<int>& columns) {
  for (int x : columns) {
    if (r >= x - 1 && r <= x + 1) return true;
  }
  return false;
}

}  // namespace

std::vector<JobSpec> FillOrder(const Trace& pods, int64_t cluster_gpu_milli,
                               const FillOptions& options) {
  std::vector<JobSpec> sorted;
  sorted.reserve(pods.jobs.size());
  for (const TraceJob& j : pods.jobs) sorted.push_back(j.spec);
  std::stable_sort(sorted.begin(), sorted.end(), [](const JobSpec& a, const JobSpec& b) {
    return a.name != b.name ? a.name < b.name : a.id < b.id;
  });

  Rng rng(options.seed);
  std::vector<JobSpec> out = sorted;
  for (size_t i = out.size(); i > 1; --i) {
    const size_t j = rng.UniformInt(i);
    std::swap(out[i - 1], out[j]);
  }

  const int64_t total = SumGpuMilli(out);
  if (options.fill <= 0 || total <= 0) return out;
  // As the reference: the target is a double and the totals are compared as doubles.
  const double target = options.fill * static_cast<double>(cluster_gpu_milli);
  if (static_cast<double>(total) < target) {
    TuneUp(sorted, target, total, rng, out);
  } else if (static_cast<double>(total) > target) {
    TuneDown(target, total, rng, out);
  }
  return out;
}

double RoundHalfEven(double x) { return std::nearbyint(x); }  // FE_TONEAREST: ties to even

double Round2(double x) {
  // printf rounds the exact binary value correctly (ties to even), as Python's round(x, 2).
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return std::strtod(buf, nullptr);
}

std::optional<double> ColumnAt(const std::vector<std::pair<int, double>>& events, int x) {
  for (int width : {0, 1}) {
    double sum = 0;
    int64_t n = 0;
    for (const auto& [r, v] : events) {
      if (r >= x - width && r <= x + width) {
        sum += v;
        ++n;
      }
    }
    if (n > 0) return Round2(sum / static_cast<double>(n));
  }
  return std::nullopt;
}

FillResult RunFill(const std::vector<JobSpec>& ordered, const ClusterSpec& cluster,
                   const PlacePod& place, const FillOptions& options,
                   const ClusterMeasure& frag) {
  FillResult result;
  ClusterState state(cluster);
  const int64_t total_gpus = state.TotalGpus();
  const int64_t capacity = total_gpus * kMilliPerGpu;
  std::vector<std::pair<int, double>> alloc_events;
  std::vector<std::pair<int, double>> frag_events;
  int64_t arrived = 0;
  for (const JobSpec& pod : ordered) {
    ++result.pods_tried;
    arrived += GpuMilli(pod);  // counts whether or not the pod is placed (§3)
    if (std::optional<Placement> p = place(pod, state)) {
      state.Allocate(*p);
    } else {
      ++result.pods_failed;
    }
    if (total_gpus == 0) continue;
    const int64_t used = capacity - state.FreeMilli();
    const double alloc = 100.0 * static_cast<double>(used) / static_cast<double>(capacity);
    result.final_alloc = alloc;
    // Units (§4): arrived is milli-GPU, so arrived / total_gpus is milli per GPU, i.e. per
    // mille of capacity (a GPU holds 1000 milli); / 10 turns it into percent. Divided in the
    // reference's order (arrived / 6212 / 10) so the double is the same.
    const double percent = static_cast<double>(arrived) / static_cast<double>(total_gpus) / 10.0;
    const int r = static_cast<int>(RoundHalfEven(percent));
    alloc_events.emplace_back(r, Round2(alloc));
    // A column reads the events of its own percent, or failing those its neighbours', so
    // the measure is only taken near a column.
    if (frag && NearColumn(r, options.report_at)) frag_events.emplace_back(r, Round2(frag(state)));
  }
  for (int x : options.report_at) {
    if (auto v = ColumnAt(alloc_events, x)) result.alloc_at[x] = *v;
    if (!frag) continue;
    if (auto v = ColumnAt(frag_events, x)) result.frag_at[x] = *v;
  }
  return result;
}

}  // namespace squeeze
