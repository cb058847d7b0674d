// The description of a cluster: pools and their nodes, as a cluster file gives them.
// Plain data, validated by Validate(); shared by the simulator and the server.
#ifndef SQUEEZE_CORE_CLUSTER_SPEC_H_
#define SQUEEZE_CORE_CLUSTER_SPEC_H_

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/topology_spec.h"
#include "core/types.h"

namespace squeeze {

// Where a pool of backend `slurm` sends its jobs: a whole Slurm cluster (or one partition).
struct SlurmPoolSpec {
  std::string cluster;    // Slurm's ClusterName (for messages and `why`)
  std::string partition;  // empty = the cluster's default partition
  std::string conf;       // path of its slurm.conf (SLURM_CONF for sbatch, squeue, ...)
  std::string user;       // the user jobs run as; empty = the daemon's user
};

// A spot pool's nodes can be taken back by their provider at short notice (a reclaim). The
// jobs on a reclaimed node get `warning` to checkpoint and leave.
struct SpotSpec {
  Time warning = 30 * kSecond;
  // The mean time between reclaims of one node, as the provider or experience says: the
  // simulator draws each node's reclaims from a seeded exponential process with this mean
  // (0 = never), and the scheduler starts from it before it has seen reclaims of its own.
  Time mean_reclaim_interval = 0;
  // Simulator: how long a reclaimed node stays away before the pool gets it back.
  Time outage = kHour;
};

// A colocated pool's GPUs serve inference first; training may use what inference leaves.
struct ColocationSpec {
  double cap = 0.6;       // the largest share of a GPU training may take (0 < cap <= 1)
  // Training on a GPU leaves within this once the inference load rises past 1 - cap.
  Time evict_within = kMinute;
  // How fast training runs on a GPU it shares, as a fraction of a dedicated GPU (0 < x <= 1;
  // default: the cap, as for a job that keeps a whole GPU busy).
  double training_speed = 0;  // 0 = cap
  double TrainingSpeed() const { return training_speed > 0 ? training_speed : cap; }
  // GPUs whose owner leaves them idle at recurring times (nights, weekends): training goes
  // there only when it is of normal or low urgency and the GPU's predicted idle window (what
  // the same moment of the past weeks showed, core/idle_forecast.h) holds the job's run, or
  // holds a useful part of it for a job that checkpoints within evict_within when the owner
  // comes back. Until two weeks have been seen, placement is as without it.
  bool idle_windows = false;
};

struct PoolSpec {
  std::string name;
  PoolKind kind = PoolKind::kOwned;
  std::string region = "default";
  double price_per_gpu_hour = 0;
  // A fixed cost per month (30 days), used or not: reserved capacity, or owned GPUs'
  // amortization. Reports prorate it over the time covered.
  double monthly_cost = 0;
  std::string backend = "local";
  // Guaranteed whole GPUs of this pool per team. A team's unused guarantee is lent to others
  // as preemptible capacity and taken back when the team needs it.
  std::map<std::string, int> team_quota_gpus;
  SlurmPoolSpec slurm;  // backend "slurm" only
  // A job here runs on one node only (a job bigger than the largest node is refused): the live
  // daemon's local pools, whose executor starts a job's processes on one machine. The
  // simulator's pools spread a job over several nodes.
  bool one_node_jobs = false;
  SpotSpec spot;              // kind spot only
  ColocationSpec colocation;  // kind colocated only
};

// The network between two regions, both ways: how fast a job's data moves and what a GB costs.
struct RegionLink {
  std::string from;
  std::string to;
  double bandwidth_gbps = 0;  // gigabits per second, > 0
  double price_per_gb = 0;    // per gigabyte moved, >= 0
};

struct NodeSpec {
  std::string name;
  std::string pool;
  std::string gpu_model = "gpu";
  int gpus = 8;
  int64_t gpu_memory_mib = 0;
  int64_t cpu_milli = 0;   // 0 = not tracked
  int64_t memory_mib = 0;  // 0 = not tracked
  std::map<std::string, std::string> labels;
  // Its domain at each level of ClusterSpec::topology (same order); empty when it has none.
  std::vector<std::string> domains;
};

// What a cluster file says about one GPU model (its `gpu_models` table): the memory of each
// card and how fast a job trains on it, relative to the card a job's estimate (or a trace's
// duration) is for (speed 1). A job's own table (JobSpec::gpu_speeds) overrides the speed.
struct GpuModelSpec {
  int64_t memory_mib = 0;  // 0 = not said (a node's gpu_memory_mib, when given, wins)
  double speed = 1;        // > 0
};

struct ClusterSpec {
  std::vector<PoolSpec> pools;
  std::map<std::string, GpuModelSpec> gpu_models;  // by model name
  std::vector<NodeSpec> nodes;
  std::vector<RegionLink> region_links;
  // A region's prices relative to the list prices (1 = as listed; absent regions are 1): a
  // pool's price_per_gpu_hour is multiplied by its region's factor.
  std::map<std::string, double> region_price_factors;
  TopologySpec topology;  // blocks, racks, ...: empty = none

  // Checks names are unique, every node names a known pool, counts are sane.
  Status Validate() const;
  int TotalGpus() const;
  int PoolIndex(const std::string& name) const;  // -1 if absent
  // The link between regions `a` and `b` (either direction), or nullptr.
  const RegionLink* LinkBetween(const std::string& a, const std::string& b) const;
  // What one GPU-hour of pool `pool` costs: its price times its region's price factor.
  double PricePerGpuHour(int pool) const;
  // The relative speed of GPU model `model` (its gpu_models entry; 1 when not listed).
  double ModelSpeed(const std::string& model) const;
};

}  // namespace squeeze

#endif  // SQUEEZE_CORE_CLUSTER_SPEC_H_
