// A deterministic synthetic trace for the benchmarks: Poisson arrivals at a target load,
// Philly-like GPU counts and heavy-tailed durations. The same options give the same trace on
// every standard library: the generator draws from std::mt19937_64 (whose output the standard
// fixes) through distributions written here, not std::*_distribution. Stateless; thread-safe.
#ifndef SQUEEZE_BENCH_SYNTHETIC_TRACE_H_
#define SQUEEZE_BENCH_SYNTHETIC_TRACE_H_

#include <cstdint>

#include "core/cluster_spec.h"
#include "sim/trace.h"

namespace squeeze::bench {

struct SyntheticOptions {
  int64_t jobs = 1000000;
  uint64_t seed = 1;
  // Offered load: arrivals are paced so that the jobs' GPU-seconds per second of trace time
  // equal load * cluster_gpus.
  int cluster_gpus = 10000;
  double load = 0.8;
  // Run time: log-normal with this median and log-standard-deviation, clipped to
  // [min_duration, max_duration] seconds (Philly: median ~19 min, sigma ~2).
  double median_duration = 1200;
  double duration_sigma = 2.0;
  int64_t min_duration = 1;
  int64_t max_duration = 30 * 86400;
  // Share of jobs that carry an estimate: the true run time times a factor drawn
  // log-uniformly from [estimate_low, estimate_high] (users mostly overestimate).
  double estimate_fraction = 0.3;
  double estimate_low = 0.8;
  double estimate_high = 3.0;
  // Jobs belong to teams "team-0".."team-<teams-1>", team k with weight 1/(k+1); 0 = no team.
  int teams = 8;
};

// N jobs with ids 1..N, submit times ascending from 0, no pool (any pool), all checkpointable
// and preemptible, urgency normal.
Trace MakeSyntheticTrace(const SyntheticOptions& options);

// One owned pool "pool" of `nodes` nodes "node-<i>", each with `gpus_per_node` GPUs "gpu".
ClusterSpec MakeUniformCluster(int nodes, int gpus_per_node);

}  // namespace squeeze::bench

#endif  // SQUEEZE_BENCH_SYNTHETIC_TRACE_H_
