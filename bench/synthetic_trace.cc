#include "bench/synthetic_trace.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace squeeze::bench {
namespace {

constexpr double kPi = 3.14159265358979323846;

// GPU counts and their shares, close to philly.csv (1: 93%, 2/4/8: 2% each, 16: 0.2%, 32: 0.1%).
struct GpuShare {
  int gpus;
  double share;
};
constexpr GpuShare kGpuShares[] = {{1, 0.925}, {2, 0.025}, {4, 0.025},
                                   {8, 0.020}, {16, 0.004}, {32, 0.001}};

// Uniform on [0, 1) from the top 53 bits.
double Uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);
}

// Standard normal by Box-Muller (one value per two uniforms).
double StandardNormal(std::mt19937_64& rng) {
  const double u1 = 1.0 - Uniform01(rng);  // (0, 1]
  const double u2 = Uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

double Exponential(std::mt19937_64& rng, double rate) {
  return -std::log1p(-Uniform01(rng)) / rate;
}

int DrawGpus(std::mt19937_64& rng) {
  double u = Uniform01(rng);
  for (const GpuShare& g : kGpuShares) {
    if (u < g.share) return g.gpus;
    u -= g.share;
  }
  return kGpuShares[std::size(kGpuShares) - 1].gpus;
}

// Index k in [0, n) with weight 1 / (k + 1).
int DrawTeam(std::mt19937_64& rng, int n) {
  double total = 0;
  for (int k = 0; k < n; ++k) total += 1.0 / (k + 1);
  double u = Uniform01(rng) * total;
  for (int k = 0; k < n; ++k) {
    u -= 1.0 / (k + 1);
    if (u < 0) return k;
  }
  return n - 1;
}

Time DrawDuration(std::mt19937_64& rng, const SyntheticOptions& o) {
  const double d = o.median_duration * std::exp(o.duration_sigma * StandardNormal(rng));
  const double clipped = std::clamp(std::round(d), static_cast<double>(o.min_duration),
                                    static_cast<double>(o.max_duration));
  return Seconds(static_cast<int64_t>(clipped));  // whole seconds
}

// The job's demand, duration, estimate and team; not its submit time.
TraceJob DrawJob(std::mt19937_64& rng, const SyntheticOptions& o, JobId id) {
  TraceJob job;
  job.spec.id = id;
  job.spec.name = "syn-" + std::to_string(id);
  job.spec.gpus = DrawGpus(rng);
  job.spec.checkpointable = true;
  job.spec.preemptible = true;
  job.duration = DrawDuration(rng, o);
  if (Uniform01(rng) < o.estimate_fraction) {
    const double lo = std::log(o.estimate_low);
    const double hi = std::log(o.estimate_high);
    const double factor = std::exp(lo + (hi - lo) * Uniform01(rng));
    job.spec.estimate =
        Seconds(std::max<int64_t>(1, std::llround(ToSeconds(job.duration) * factor)));
  }
  if (o.teams > 0) job.spec.team = "team-" + std::to_string(DrawTeam(rng, o.teams));
  return job;
}

}  // namespace

Trace MakeSyntheticTrace(const SyntheticOptions& options) {
  Trace trace;
  trace.source = "synthetic(jobs=" + std::to_string(options.jobs) +
                 ",seed=" + std::to_string(options.seed) + ")";
  trace.format = "synthetic";
  trace.jobs.reserve(static_cast<size_t>(std::max<int64_t>(0, options.jobs)));
  std::mt19937_64 job_rng(options.seed);
  double gpu_seconds = 0;
  for (int64_t i = 0; i < options.jobs; ++i) {
    trace.jobs.push_back(DrawJob(job_rng, options, i + 1));
    gpu_seconds += ToSeconds(trace.jobs.back().duration) * trace.jobs.back().spec.gpus;
  }
  if (trace.jobs.empty()) return trace;
  // Jobs arrive at `rate` per second so that rate * mean GPU-seconds = load * GPUs.
  const double mean_gpu_seconds = gpu_seconds / static_cast<double>(trace.jobs.size());
  const double rate = options.load * options.cluster_gpus / mean_gpu_seconds;
  std::mt19937_64 arrival_rng(options.seed ^ 0x9e3779b97f4a7c15ULL);
  double t = 0;
  for (TraceJob& job : trace.jobs) {
    job.spec.submit_time = Seconds(static_cast<int64_t>(t));  // whole seconds
    t += Exponential(arrival_rng, rate);
  }
  return trace;
}

ClusterSpec MakeUniformCluster(int nodes, int gpus_per_node) {
  ClusterSpec cluster;
  PoolSpec pool;
  pool.name = "pool";
  cluster.pools.push_back(pool);
  cluster.nodes.reserve(static_cast<size_t>(std::max(0, nodes)));
  for (int i = 0; i < nodes; ++i) {
    NodeSpec node;
    node.name = "node-" + std::to_string(i);
    node.pool = pool.name;
    node.gpus = gpus_per_node;
    cluster.nodes.push_back(std::move(node));
  }
  return cluster;
}

}  // namespace squeeze::bench
