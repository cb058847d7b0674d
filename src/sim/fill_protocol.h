// The FGD "fill" experiment (ATC'23; shared/traces/openb/PROTOCOL.md §1, §3, §4): pods arrive
// one after another in a seeded order tuned to `fill` x cluster GPU capacity, never leave, and
// are placed by a caller-given rule; the allocation ratio is reported at X% of capacity
// arrived. Stateless functions; thread-safe as long as the callbacks are.
#ifndef SQUEEZE_SIM_FILL_PROTOCOL_H_
#define SQUEEZE_SIM_FILL_PROTOCOL_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "core/cluster_spec.h"
#include "core/cluster_state.h"
#include "core/job.h"
#include "core/placement.h"
#include "sim/trace.h"

namespace squeeze {

struct FillOptions {
  uint64_t seed = 42;
  double fill = 1.3;  // target total GPU milli as a multiple of capacity; <= 0: no tuning
  std::vector<int> report_at = {80, 90, 100, 110, 120, 130};  // percent of capacity arrived
};

// Where a pod goes on the current free capacity; nullopt = it does not fit (counted as
// failed; the next pod goes ahead).
using PlacePod =
    std::function<std::optional<Placement>(const JobSpec& pod, const ClusterState& cluster)>;
// A per-event measure of the cluster (e.g. fragmentation, in %), averaged like alloc.
using ClusterMeasure = std::function<double(const ClusterState& cluster)>;

struct FillResult {
  std::map<int, double> alloc_at;  // X -> allocation ratio (%); X absent if no event near it
  std::map<int, double> frag_at;   // likewise for the measure; empty without one
  int64_t pods_tried = 0;
  int64_t pods_failed = 0;
  double final_alloc = 0;  // allocation ratio (%) after the last pod
};

// The pods in the protocol's order (§1): sorted by name (then id), Fisher-Yates shuffled with
// Rng(seed), then tuned to T = fill x cluster_gpu_milli of total GPU milli (gpus x gpu_milli):
// - below T: clones drawn uniformly with replacement from the name-sorted originals are
//   appended (name "<name>-tuned-<i>", fresh ids above the largest), stopping at the first
//   draw whose PER-GPU milli g would push the total above T (the reference's quirk: g, not
//   k*g, is tested, k*g is added), so CPU-only draws are always accepted;
// - above T: pods chosen uniformly at random are removed until the total is <= T.
// A trace without GPU demand is only shuffled.
std::vector<JobSpec> FillOrder(const Trace& pods, int64_t cluster_gpu_milli,
                               const FillOptions& options);

// Offers `ordered` one by one to `place` on an empty `cluster` and reports per §4.
FillResult RunFill(const std::vector<JobSpec>& ordered, const ClusterSpec& cluster,
                   const PlacePod& place, const FillOptions& options,
                   const ClusterMeasure& frag = nullptr);

// Python's round(x) (halves to even) and round(x, 2) (correctly rounded from the exact binary
// value), as the reference's analysis scripts use them.
double RoundHalfEven(double x);
double Round2(double x);

// Column X of §4 from per-event (r, value) pairs: the mean of values with r == X, else of
// those with r in [X-1, X+1], rounded to 2 decimals; nullopt when there are none.
std::optional<double> ColumnAt(const std::vector<std::pair<int, double>>& events, int x);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_FILL_PROTOCOL_H_
