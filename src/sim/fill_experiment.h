// The whole FGD fill experiment (shared/traces/openb/PROTOCOL.md): for each placement and each
// seed, the pods in the protocol's order are placed one by one on an empty cluster by that
// node order plugin, and the allocation ratio and the fragmentation are read at 80..130% of
// capacity arrived; the columns are averaged over the seeds. Stateless; thread-compatible.
#ifndef SQUEEZE_SIM_FILL_EXPERIMENT_H_
#define SQUEEZE_SIM_FILL_EXPERIMENT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/cluster_spec.h"
#include "core/plugins/fragmentation.h"
#include "core/status.h"
#include "sim/fill_protocol.h"
#include "sim/trace.h"

namespace squeeze {

struct FillExperimentOptions {
  std::vector<std::string> placements = {"bestfit", "fgd"};  // node order names
  uint64_t first_seed = 42;
  uint64_t last_seed = 51;
  double fill = 1.3;
  std::vector<int> report_at = {80, 90, 100, 110, 120, 130};
  // Called after each (placement, seed) run, e.g. for progress.
  std::function<void(const std::string& placement, uint64_t seed)> progress;
};

struct PlacementOutcome {
  std::string placement;
  std::map<int, double> alloc_at;  // mean over the seeds of each seed's column, 2 decimals
  std::map<int, double> frag_at;   // fragmentation amount, % of cluster GPUs, likewise
  std::map<uint64_t, std::map<int, double>> alloc_by_seed;
  int seeds = 0;
  double failed_pods = 0;  // mean over the seeds
  int64_t pods_tried = 0;  // over all the seeds
  double wall_s = 0;       // all seeds together
};

// The fragmentation amount of the protocol (§4): 100 x sum_n F_n / 1000 / GPUs, F_n against
// `target`, in % of the cluster's GPUs. Keeps each node's F_n until the node changes.
class FragmentationAmountMeter {
 public:
  explicit FragmentationAmountMeter(const TargetWorkload& target) : target_(target) {}
  double operator()(const ClusterState& cluster);

 private:
  FragmentationCalculator target_;
  std::vector<uint64_t> stamps_;
  std::vector<double> node_frag_;
  double total_ = 0;
};

// The pods of `trace` as the protocol's pod specs (for the target workload).
std::vector<PodSpec> PodSpecsOf(const Trace& trace);

// Runs the experiment. Errors: an unknown placement name, no seeds, a cluster without GPUs.
Result<std::vector<PlacementOutcome>> RunFillExperiment(const Trace& pods,
                                                        const ClusterSpec& cluster,
                                                        const FillExperimentOptions& options);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_FILL_EXPERIMENT_H_
