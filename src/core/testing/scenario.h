// Terse builders and a driver for scenario tests of the scheduling core: a ClusterSpec from
// node blocks, JobSpecs from a fluent builder, and a Scenario that submits, cycles and reports
// each decision as a line of text that a test compares exactly. Test-only and header-only (the
// core library globs every .cc of src/core and must not link GoogleTest); not thread-safe.
#ifndef SQUEEZE_CORE_TESTING_SCENARIO_H_
#define SQUEEZE_CORE_TESTING_SCENARIO_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/cluster_spec.h"
#include "core/decision.h"
#include "core/job.h"
#include "core/policy.h"
#include "core/scheduler.h"
#include "core/status.h"

namespace squeeze::testing {

// `nodes` nodes of `gpus` GPUs in pool `pool`. Nodes are named pool + running number within
// the pool ("a0", "a1", ...) and indexed in the order the blocks are given.
struct NodeBlock {
  std::string pool;
  int nodes = 1;
  int gpus = 8;
  std::string model = "gpu";
  int64_t cpu_milli = 0;   // per node; 0 = not tracked
  int64_t memory_mib = 0;  // per node; 0 = not tracked
  int64_t gpu_memory_mib = 0;
};

// Pools are created in the order they first appear.
inline ClusterSpec Cluster(std::initializer_list<NodeBlock> blocks) {
  ClusterSpec spec;
  std::map<std::string, int> count;
  for (const NodeBlock& b : blocks) {
    if (spec.PoolIndex(b.pool) < 0) {
      PoolSpec pool;
      pool.name = b.pool;
      spec.pools.push_back(std::move(pool));
    }
    for (int i = 0; i < b.nodes; ++i) {
      NodeSpec n;
      n.name = b.pool + std::to_string(count[b.pool]++);
      n.pool = b.pool;
      n.gpu_model = b.model;
      n.gpus = b.gpus;
      n.gpu_memory_mib = b.gpu_memory_mib;
      n.cpu_milli = b.cpu_milli;
      n.memory_mib = b.memory_mib;
      spec.nodes.push_back(std::move(n));
    }
  }
  return spec;
}

// Cards of two kinds (issue 38): pool a, node a0 of model `big` (80 GB), a1 of model `small`
// (16 GB), 8 GPUs each, at the given speeds.
inline ClusterSpec TwoCardKinds(double big_speed, double small_speed) {
  ClusterSpec spec = Cluster({{"a", 1, 8, "big", 0, 0, 81920}, {"a", 1, 8, "small", 0, 0, 16384}});
  spec.gpu_models["big"] = {81920, big_speed};
  spec.gpu_models["small"] = {16384, small_speed};
  return spec;
}

// Sets the guaranteed GPUs of `team` in `pool` (which must exist).
inline ClusterSpec Quota(ClusterSpec spec, const std::string& pool, const std::string& team,
                         int gpus) {
  const int p = spec.PoolIndex(pool);
  EXPECT_GE(p, 0) << "no pool " << pool;
  if (p >= 0) spec.pools[p].team_quota_gpus[team] = gpus;
  return spec;
}

class JobBuilder {
 public:
  JobBuilder(JobId id, int gpus, Time submit) {
    spec_.id = id;
    spec_.gpus = gpus;
    spec_.submit_time = submit;
  }
  JobBuilder& Estimate(Time t) { spec_.estimate = t; return *this; }
  JobBuilder& TimeLimit(Time t) { spec_.time_limit = t; return *this; }
  JobBuilder& Urgency(squeeze::Urgency u) { spec_.urgency = u; return *this; }
  JobBuilder& Name(std::string n) { spec_.name = std::move(n); return *this; }
  JobBuilder& Pool(std::string p) { spec_.pool = std::move(p); return *this; }
  JobBuilder& Team(std::string t) { spec_.team = std::move(t); return *this; }
  JobBuilder& Milli(int m) { spec_.gpu_milli = m; return *this; }
  JobBuilder& Models(std::vector<std::string> m) { spec_.gpu_models = std::move(m); return *this; }
  JobBuilder& GpuMemory(int64_t mib) { spec_.min_gpu_memory_mib = mib; return *this; }
  JobBuilder& Cpu(int64_t milli) { spec_.cpu_milli = milli; return *this; }
  JobBuilder& Memory(int64_t mib) { spec_.memory_mib = mib; return *this; }
  JobBuilder& Preemptible() { spec_.preemptible = true; return *this; }
  // Checkpointable and preemptible: the common profile of a long training job.
  JobBuilder& Elastic() { spec_.preemptible = spec_.checkpointable = true; return *this; }
  JobBuilder& Checkpointable() { spec_.checkpointable = true; return *this; }
  // An elastic job of `min` to `max` GPUs (checkpointable and preemptible), its estimate for
  // `reference` GPUs (0: max), linear unless told.
  JobBuilder& Range(int min, int max, int reference = 0) {
    spec_.preemptible = spec_.checkpointable = true;
    spec_.elastic.min = min;
    spec_.elastic.max = max;
    spec_.elastic.reference = reference;
    return *this;
  }
  JobBuilder& Scales(const Scaling& scaling) { spec_.elastic.scaling = scaling; return *this; }
  JobBuilder& ResizeCost(Time t) { spec_.elastic.resize_cost = t; return *this; }
  JobBuilder& CheckpointEvery(Time t) { spec_.checkpoint_interval = t; return *this; }
  JobBuilder& CheckpointCost(Time t) { spec_.checkpoint_cost = t; return *this; }
  JobBuilder& CheckpointStall(Time t) { spec_.checkpoint_stall = t; return *this; }
  JobBuilder& Overhead(Time t) { spec_.restart_overhead = t; return *this; }
  JobBuilder& Deadline(Time t) { spec_.deadline = t; return *this; }
  JobBuilder& Regions(std::vector<std::string> r) { spec_.regions = std::move(r); return *this; }
  JobBuilder& ArrayTask(JobId array, int task, int limit) {
    spec_.array_id = array;
    spec_.array_task = task;
    spec_.array_limit = limit;
    return *this;
  }
  const JobSpec& spec() const { return spec_; }
  operator JobSpec() const { return spec_; }  // NOLINT(google-explicit-constructor)

 private:
  JobSpec spec_;
};

inline JobBuilder NewJob(JobId id, int gpus, Time submit = 0) {
  return JobBuilder(id, gpus, submit);
}

// A named policy, optionally changed by "key=value" options; fails the test on an error.
inline Policy MakePolicy(const std::string& name,
                         std::initializer_list<std::pair<std::string, std::string>> options = {}) {
  auto p = NamedPolicy(name);
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return Policy{};
  for (const auto& [key, value] : options) {
    Status st = SetPolicyOption(*p, key, value);
    EXPECT_TRUE(st.ok()) << st.message();
  }
  return *p;
}

// A placement as "a0:0,1 a1:0" (node name, then GPU indices), " milli=500" for a fraction.
inline std::string DescribePlacement(const Placement& p, const ClusterSpec& cluster) {
  std::string out;
  int milli = kMilliPerGpu;
  for (const NodeShare& share : p.shares) {
    if (!out.empty()) out += " ";
    out += cluster.nodes[share.node].name;
    out += ':';
    for (size_t i = 0; i < share.gpus.size(); ++i) {
      if (i > 0) out += ',';
      out += std::to_string(share.gpus[i]);
    }
    if (!share.gpus.empty() && share.milli_per_gpu != kMilliPerGpu) milli = share.milli_per_gpu;
  }
  if (milli != kMilliPerGpu) out += " milli=" + std::to_string(milli);
  return out;
}

// One decision as a line: "start 3 on a0:0,1 a1:0" with " milli=500", " resume",
// " overhead=30", " borrowed", " slice_end=1800" (in seconds, whatever the tick) when they
// apply; "stop 2: <reason>".
inline std::string Describe(const Decision& d, const ClusterSpec& cluster) {
  if (d.kind == Decision::Kind::kStop) return "stop " + std::to_string(d.job) + ": " + d.reason;
  std::string out = "start " + std::to_string(d.job) + " on " + DescribePlacement(d.placement, cluster);
  if (d.resume) out += " resume";
  if (d.overhead != 0) out += " overhead=" + std::to_string(WholeSeconds(d.overhead));
  if (d.borrowed) out += " borrowed";
  if (d.slice_end != kNever) out += " slice_end=" + std::to_string(WholeSeconds(d.slice_end));
  if (!d.reason.empty()) out += " (" + d.reason + ")";
  return out;
}

class Scenario {
 public:
  Scenario(ClusterSpec cluster, const Policy& policy) : cluster_(std::move(cluster)) {
    auto s = Scheduler::Create(cluster_, policy);
    if (!s.ok()) ADD_FAILURE() << s.status().message();
    else sched_ = std::move(*s);
  }
  Scenario(ClusterSpec cluster, const std::string& policy_name)
      : Scenario(std::move(cluster), MakePolicy(policy_name)) {}

  // Submits at the spec's submit time.
  Status Submit(const JobSpec& spec) { return sched_->Submit(spec, spec.submit_time); }
  // Submits and fails the test on an error.
  void Add(const JobSpec& spec) {
    Status st = Submit(spec);
    EXPECT_TRUE(st.ok()) << st.message();
  }
  // Runs one cycle and describes its decisions, in order.
  std::vector<std::string> Cycle(Time now) {
    last_ = sched_->Cycle(now);
    std::vector<std::string> out;
    for (const Decision& d : last_) out.push_back(Describe(d, cluster_));
    return out;
  }
  // Runs a cycle; every kStop is answered with Stopped at `now` and the cycle runs again
  // (at most 8 rounds), as a driver whose checkpoints take no time would. Returns the
  // decisions of all rounds, in order.
  std::vector<std::string> Settle(Time now) {
    std::vector<std::string> all;
    for (int round = 0; round < 8; ++round) {
      std::vector<std::string> lines = Cycle(now);
      all.insert(all.end(), lines.begin(), lines.end());
      bool stopped = false;
      for (const Decision& d : last_) {
        if (d.kind != Decision::Kind::kStop) continue;
        Stop(d.job, now);
        stopped = true;
      }
      if (!stopped) break;
    }
    return all;
  }
  // The job ends by itself; fails the test on an error.
  void Finish(JobId id, Time now) {
    auto r = sched_->Finished(id, now, true);
    EXPECT_TRUE(r.ok()) << r.status().message();
  }
  // A job asked to stop has stopped; fails the test on an error.
  void Stop(JobId id, Time now) {
    Status st = sched_->Stopped(id, now);
    EXPECT_TRUE(st.ok()) << st.message();
  }

  Scheduler& sched() { return *sched_; }
  // The job, which must be known (pending or active).
  const Job& job(JobId id) const {
    const Job* j = sched_->Find(id);
    if (j == nullptr) {
      ADD_FAILURE() << "job " << id << " is not known";
      static const Job kNone;
      return kNone;
    }
    return *j;
  }
  const std::vector<Decision>& last() const { return last_; }
  const ClusterSpec& cluster() const { return cluster_; }

 private:
  ClusterSpec cluster_;
  std::unique_ptr<Scheduler> sched_;
  std::vector<Decision> last_;
};

// A deterministic stream of small numbers for random workloads (a linear congruential
// generator): Next(n) is in [0, n).
class Draws {
 public:
  explicit Draws(uint64_t seed) : state_(seed) {}
  int Next(int n) {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((state_ >> 33) % static_cast<uint64_t>(n));
  }

 private:
  uint64_t state_;
};

}  // namespace squeeze::testing

#endif  // SQUEEZE_CORE_TESTING_SCENARIO_H_
