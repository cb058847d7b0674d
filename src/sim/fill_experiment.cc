#include "sim/fill_experiment.h"

#include <chrono>
#include <memory>
#include <numeric>

#include "core/cluster_state.h"
#include "core/plugins/node_order.h"
#include "core/plugins/scored_order.h"
#include "core/rng.h"

namespace squeeze {
namespace {

// The node groups a pod may use: every group of an allowed model (all groups for a pod
// without GPUs or without a model constraint).
class GroupsByModels {
 public:
  explicit GroupsByModels(const ClusterState& cluster) : cluster_(cluster) {}
  const std::vector<int>& For(const JobSpec& pod) {
    const std::string key = pod.gpus > 0 ? PodOf(pod).GpuSpec() : "";
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    std::vector<int> groups;
    const PodSpec spec = PodOf(pod);
    for (int g = 0; g < static_cast<int>(cluster_.groups().size()); ++g) {
      const NodeGroup& group = cluster_.group(g);
      if (!spec.CpuOnly() && group.max_gpus_per_node == 0) continue;
      if (spec.AllowsModel(group.gpu_model)) groups.push_back(g);
    }
    return cache_.emplace(key, std::move(groups)).first->second;
  }

 private:
  const ClusterState& cluster_;
  std::map<std::string, std::vector<int>> cache_;
};

// A seeded permutation of the nodes: rank[node] (the reference's "%04d-" name prefixes).
std::vector<int> NodeRank(size_t nodes, uint64_t seed) {
  std::vector<int> order(nodes);
  std::iota(order.begin(), order.end(), 0);
  Rng rng(seed ^ 0x6e6f64652d72616eULL);  // a stream apart from the pod order's
  for (size_t i = nodes; i > 1; --i) std::swap(order[i - 1], order[rng.UniformInt(i)]);
  std::vector<int> rank(nodes);
  for (size_t r = 0; r < nodes; ++r) rank[order[r]] = static_cast<int>(r);
  return rank;
}

}  // namespace

double FragmentationAmountMeter::operator()(const ClusterState& cluster) {
  const auto& nodes = cluster.nodes();
  if (stamps_.size() != nodes.size()) {
    stamps_.assign(nodes.size(), 0);
    node_frag_.assign(nodes.size(), 0);
    total_ = 0;
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (stamps_[i] == nodes[i].stamp) continue;
    const double f = target_.Fragmentation(ViewOf(nodes[i], cluster.group(nodes[i].group)));
    total_ += f - node_frag_[i];
    node_frag_[i] = f;
    stamps_[i] = nodes[i].stamp;
  }
  // Summed afresh so that the running total's rounding never drifts into the figures.
  const double sum = std::accumulate(node_frag_.begin(), node_frag_.end(), 0.0);
  return cluster.TotalGpus() == 0 ? 0 : 100.0 * sum / 1000.0 / cluster.TotalGpus();
}

std::vector<PodSpec> PodSpecsOf(const Trace& trace) {
  std::vector<PodSpec> out;
  out.reserve(trace.jobs.size());
  for (const TraceJob& j : trace.jobs) out.push_back(PodOf(j.spec));
  return out;
}

Result<std::vector<PlacementOutcome>> RunFillExperiment(const Trace& pods,
                                                        const ClusterSpec& cluster,
                                                        const FillExperimentOptions& options) {
  if (options.last_seed < options.first_seed) {
    return Status::Error("seeds: the range " + std::to_string(options.first_seed) + "-" +
                         std::to_string(options.last_seed) + " is empty");
  }
  const ClusterState empty(cluster);
  if (empty.TotalGpus() == 0) return Status::Error("nodes: the cluster has no GPUs");
  const std::vector<PodSpec> history = PodSpecsOf(pods);
  const TargetWorkload target(history);  // the protocol's, for the fragmentation figures
  std::vector<PlacementOutcome> outcomes;
  for (const std::string& name : options.placements) {
    PlacementOutcome out;
    out.placement = name;
    std::map<int, double> alloc_sum, frag_sum;
    std::map<int, int> alloc_n, frag_n;
    double failed = 0;
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t seed = options.first_seed; seed <= options.last_seed; ++seed) {
      auto order = MakeNodeOrder(name);
      if (!order.ok()) return order.status().WithContext("placement");
      (*order)->SetSeed(seed);
      (*order)->SetNodeRank(NodeRank(cluster.nodes.size(), seed));
      (*order)->SetWorkloadHistory(history);
      FillOptions fill;
      fill.seed = seed;
      fill.fill = options.fill;
      fill.report_at = options.report_at;
      const std::vector<JobSpec> ordered =
          FillOrder(pods, int64_t{empty.TotalGpus()} * kMilliPerGpu, fill);
      GroupsByModels groups(empty);
      NodeOrder& placer = **order;
      PlacePod place = [&](const JobSpec& pod, const ClusterState& state) {
        placer.ObserveArrival(pod, state);
        PlaceRequest req;
        req.job = &pod;
        req.groups = groups.For(pod);
        return placer.Place(req, state);
      };
      FragmentationAmountMeter meter(target);
      const FillResult r = RunFill(ordered, cluster, place, fill, std::ref(meter));
      for (const auto& [x, v] : r.alloc_at) {
        alloc_sum[x] += v;
        ++alloc_n[x];
      }
      for (const auto& [x, v] : r.frag_at) {
        frag_sum[x] += v;
        ++frag_n[x];
      }
      out.alloc_by_seed[seed] = r.alloc_at;
      failed += static_cast<double>(r.pods_failed);
      out.pods_tried += r.pods_tried;
      ++out.seeds;
      if (options.progress) options.progress(name, seed);
    }
    out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const auto& [x, s] : alloc_sum) out.alloc_at[x] = Round2(s / alloc_n[x]);
    for (const auto& [x, s] : frag_sum) out.frag_at[x] = Round2(s / frag_n[x]);
    out.failed_pods = failed / out.seeds;
    outcomes.push_back(std::move(out));
  }
  return outcomes;
}

}  // namespace squeeze
