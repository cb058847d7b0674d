#include "export/unexpressed.h"

#include <algorithm>
#include <cstdio>

#include "core/duration.h"

namespace squeeze {
namespace {

bool HasKind(const CapacityPlan& plan, PoolKind kind) {
  return std::any_of(plan.flavors.begin(), plan.flavors.end(),
                     [&](const Flavor& f) { return f.kind == kind; });
}

// "8", "1.5": a setting's value as people write it.
std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

std::string Joined(const std::vector<std::string>& names, size_t most) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < most; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > most) out += " and " + std::to_string(names.size() - most) + " more";
  return out;
}

// Preemption, slices and the job order: the policy's judgements about running jobs.
void PolicyItems(const Policy& p, ExportTarget target, std::vector<std::string>* out) {
  const std::string them = target == ExportTarget::kKueue ? "Kueue" : "Volcano";
  if (p.Has("slice")) {
    out->push_back("checkpointed slices: a checkpointable, preemptible job runs " +
                   FormatDuration(p.slice) + " at a time and yields at a slice end to waiting "
                   "work that ranks ahead of it; " + them + " has no time slices");
  }
  if (p.Has("shrink") || p.Has("grow")) {
    out->push_back(
        "elastic jobs: squeeze starts a job of a GPU range (gpus: 2-8) on the GPUs free, shrinks "
        "it at a checkpoint for a waiting job that ranks ahead of it and grows it into idle GPUs "
        "by each job's throughput per width; " +
        (target == ExportTarget::kKueue
             ? std::string("Kueue's partial admission (a podSet's minCount) admits a workload "
                           "with fewer pods once, when the whole does not fit, and never resizes "
                           "it")
             : std::string("Volcano's minAvailable starts a job with that many pods and adds "
                           "the others as room frees, but never shrinks it for a waiting job")));
  }
  if (p.Has("preempt")) {
    out->push_back(
        "checkpoint-aware victims: squeeze evicts the preemptible jobs that lose the least work "
        "since their last checkpoint (restart included)" +
        (p.min_runtime > 0 ? " and none that ran less than " + FormatDuration(p.min_runtime)
                           : std::string()) +
        "; " +
        (target == ExportTarget::kKueue
             ? "Kueue evicts the lowest priority, most recently admitted workloads"
             : "Volcano evicts lower-priority pods with no notion of checkpoints") +
        ", and a job that is not preemptible is protected only by its priority class");
  }
  if (p.Has("preempt") && p.preempt_by_order) {
    out->push_back("preemption within a class: a waiting job may evict jobs of its own urgency "
                   "class that the " + p.job_order + " order ranks " + Number(p.preempt_key_ratio) +
                   " times below it; Kubernetes priorities preempt strictly lower classes only");
  }
  if (p.job_order != "fifo") {
    out->push_back("job order: within an urgency class squeeze runs jobs by the " + p.job_order +
                   " order (no true durations read); " +
                   (target == ExportTarget::kKueue
                        ? "Kueue admits by priority, then creation time"
                        : "Volcano orders by priority, then share (drf) and creation time"));
  }
  if (p.deadline) {
    out->push_back("deadlines: a job that can no longer meet its deadline if it waits moves "
                   "ahead of its class; neither has deadlines");
  }
  if (p.starve_after > 0) {
    out->push_back("starvation bound: a job waiting " + FormatDuration(p.starve_after) +
                   " moves ahead of its class");
  }
  if (p.held_idle_yields) {
    out->push_back("held-idle yields: a job that holds GPUs it leaves idle ranks one class lower");
  }
}

// Reservations, backfill, defragmentation and fair share: the policy's placement judgements.
void PlacementItems(const Policy& p, ExportTarget target, std::vector<std::string>* out) {
  if (p.Has("backfill")) {
    std::string s = "reservations and backfill: squeeze reserves GPUs for a blocked job";
    if (p.reserve_after > 0) s += " once it has waited " + FormatDuration(p.reserve_after);
    s += " and lets a later job use them only when it is expected to end first" +
         std::string(p.learned_estimates ? " (run times learned from finished jobs)" : "") + "; ";
    s += target == ExportTarget::kKueue
             ? "Kueue keeps no reservation (BestEffortFIFO lets any workload that fits pass a "
               "blocked one)"
             : "Volcano's sla plugin holds idle resources for a job past sla-waiting-time but "
               "lets no shorter job use them, and its backfill action places only pods "
               "without resource requests";
    out->push_back(s);
  }
  if (p.Has("defrag")) {
    out->push_back("defragmentation: squeeze moves checkpointable jobs to free whole GPUs for a "
                   "job blocked only by scattered free ones; neither moves running jobs");
  }
  if (p.fair_share) {
    out->push_back(
        target == ExportTarget::kKueue
            ? "fair share: within a class squeeze starts the team with the fewest running GPUs "
              "first; Kueue's fair sharing (equal weights, as here) needs fairSharing.enable in "
              "Kueue's Configuration"
            : "fair share: within a class squeeze starts the team with the fewest running GPUs "
              "first; Volcano's drf orders jobs by their dominant resource share instead");
  }
  out->push_back("fractional GPUs: a job may ask part of a GPU (gpu_milli); nvidia.com/gpu "
                 "counts whole GPUs (sharing needs a device plugin with time-slicing or MIG)");
}

// Spot, co-location, regions, home pools and the rest of the cluster file.
void ClusterItems(const ClusterSpec& cluster, const CapacityPlan& plan, ExportTarget target,
                  std::vector<std::string>* out) {
  if (HasKind(plan, PoolKind::kSpot)) {
    out->push_back("spot by reclaim rate: squeeze sends a job to spot only when Daly's model "
                   "with the learned time between reclaims says it finishes sooner there, "
                   "keeps long jobs off, avoids nodes reclaimed often and brings runs home "
                   "(return_home); here any job that tolerates the squeeze.dev/spot taint may "
                   "go, and it must checkpoint within the reclaim warning by itself");
  }
  if (HasKind(plan, PoolKind::kColocated)) {
    out->push_back("co-location caps: training may take at most a share (cap) of an inference "
                   "GPU and leaves within evict_within when inference needs it; Kubernetes "
                   "gives nvidia.com/gpu whole, so a colocated GPU goes to one pod, inference "
                   "or training" +
                   std::string(std::any_of(cluster.pools.begin(), cluster.pools.end(),
                                           [](const PoolSpec& s) {
                                             return s.colocation.idle_windows;
                                           })
                                   ? "; idle windows (GPUs lent at recurring idle times) "
                                     "likewise"
                                   : ""));
  }
  if (plan.MultiRegion() || !cluster.region_links.empty()) {
    out->push_back("region links: squeeze runs a waiting job in another region when its wait at "
                   "home exceeds copying its data over the link (bandwidth_gbps, price_per_gb); " +
                   std::string(target == ExportTarget::kKueue
                                   ? "here each region is a cohort of its own"
                                   : "here queues span every region") +
                   " and data is not moved");
  }
  std::vector<std::string> shared;
  for (const Flavor& f : plan.flavors) {
    if (f.pools.size() > 1) shared.push_back(f.name + " (" + Joined(f.pools, 4) + ")");
  }
  if (!shared.empty()) {
    out->push_back(std::string("home pools: ") +
                   (target == ExportTarget::kKueue
                        ? "pools that share a flavor keep their own quota, but their pods may "
                          "land on any node of the flavor"
                        : "each pool's queue keeps its own share, but its pods may land on any "
                          "node") +
                   " unless a job adds a nodeSelector on squeeze.dev/pool (flavors shared: " +
                   Joined(shared, 3) + ")");
  }
  if (std::any_of(cluster.pools.begin(), cluster.pools.end(), [](const PoolSpec& s) {
        return s.price_per_gpu_hour > 0 || s.monthly_cost > 0;
      })) {
    out->push_back("prices: price_per_gpu_hour and monthly_cost have no place in either");
  }
  if (std::any_of(cluster.pools.begin(), cluster.pools.end(),
                  [](const PoolSpec& s) { return s.backend == "slurm"; })) {
    out->push_back("Slurm pools (backend: slurm): squeeze submits their jobs to Slurm; here "
                   "their nodes are Kubernetes nodes like the others");
  }
  if (!plan.pools_without_nodes.empty()) {
    out->push_back("pools without nodes have no quota: " + Joined(plan.pools_without_nodes, 6));
  }
  if (target == ExportTarget::kVolcano && plan.flavors.size() > 1) {
    out->push_back("GPU models and pool kinds: a Volcano queue counts nvidia.com/gpu over all "
                   "of them; a job picks a model with a nodeSelector on nvidia.com/gpu.product "
                   "and spot with a toleration");
  }
}

// The topology's spread speeds, and what Kueue's or Volcano's requests cannot say.
void TopologyItems(const ClusterSpec& cluster, ExportTarget target,
                   std::vector<std::string>* out) {
  if (cluster.topology.empty()) return;
  std::vector<std::string> speeds;
  for (const TopologyLevel& l : cluster.topology.levels) {
    if (l.spread_speed < 1) speeds.push_back(l.name + " " + Number(l.spread_speed));
  }
  std::string s = "topology: squeeze keeps a job of several nodes inside one domain when it can";
  if (!speeds.empty()) {
    s += " and expects one spread over domains to run slower (spread_speed: " +
         Joined(speeds, 4) + ")";
  }
  s += target == ExportTarget::kKueue
           ? "; Kueue's preferred topology does the first with no notion of the second"
           : "; Volcano's soft networkTopology does the first, names no level (squeeze's "
             "preferred level is dropped) and has no notion of the second";
  out->push_back(s);
  const bool outside = std::any_of(cluster.nodes.begin(), cluster.nodes.end(),
                                   [&](const NodeSpec& n) { return n.domains.empty(); });
  if (outside) {
    out->push_back(target == ExportTarget::kKueue
                       ? "nodes outside the topology: a flavor with such nodes names no "
                         "Topology, and its jobs are placed without one"
                       : "nodes outside the topology are in no HyperNode: a job with a hard "
                         "networkTopology never goes there");
  }
}

// GPU memory and speed (issue 38): what a job's gpu_memory becomes there, and what is lost.
void HardwareItems(const ClusterSpec& cluster, const Policy& p, ExportTarget target,
                   std::vector<std::string>* out) {
  bool memory = false, speeds = false;
  for (const NodeSpec& n : cluster.nodes) memory = memory || n.gpu_memory_mib > 0;
  for (const auto& [model, m] : cluster.gpu_models) {
    memory = memory || m.memory_mib > 0;
    speeds = speeds || m.speed != 1;
  }
  if (!memory && !speeds) return;
  const std::string them = target == ExportTarget::kKueue ? "Kueue" : "Volcano";
  out->push_back(
      "GPU memory and speed: squeeze places a job that asks for gpu_memory only on cards with at "
      "least that much" +
      std::string(p.hardware_aware ? ", the smallest card that serves it unless a faster one "
                                     "finishes it sooner by the models' speeds"
                                   : "") +
      "; here such a job adds a nodeAffinity on nvidia.com/gpu.memory (GPU feature discovery's "
      "label, in MiB) with the operator Gt, and " + them +
      " weighs neither a card's memory nor its speed when it admits or places work");
}

}  // namespace

std::vector<std::string> Unexpressed(const ClusterSpec& cluster, const CapacityPlan& plan,
                                     const Policy& policy, ExportTarget target) {
  std::vector<std::string> out;
  PolicyItems(policy, target, &out);
  PlacementItems(policy, target, &out);
  ClusterItems(cluster, plan, target, &out);
  TopologyItems(cluster, target, &out);
  HardwareItems(cluster, policy, target, &out);
  return out;
}

}  // namespace squeeze
