// Google Benchmark of one scheduling cycle at scale: 1,250 nodes x 8 GPUs, all busy, and
// 100,000 pending jobs. Variants:
//   Full      nothing can start and the running jobs are not preemptible: the cycle walks the
//             queue and decides nothing (checked: the state stays unchanged).
//   NodeFrees the running jobs are preemptible. Before each measured cycle (timing paused) the
//             jobs the last cycle stopped have stopped, the jobs on the next node finish and
//             the queue is topped up to 100,000; the cycle then fills the freed GPUs and may
//             preempt (squeeze does, for jobs its order ranks far ahead).
// Jobs come from the synthetic generator (Philly-like GPU counts, 30% with estimates, 8 teams),
// reused in turn with fresh ids. Times are reported in microseconds.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "bench/synthetic_trace.h"
#include "core/policy.h"
#include "core/scheduler.h"

namespace squeeze::bench {
namespace {

constexpr int kNodes = 1250;
constexpr int kGpusPerNode = 8;
constexpr int64_t kPending = 100000;
constexpr int kArrayTasks = 10000;
// Running jobs start at kFillTime, pending ones are submitted at kSubmitTime and cycles run at
// kCycleTime: past squeeze's minimum run time (5 min), so that preemption is allowed, and before
// a default slice (30 min) would end.
constexpr Time kFillTime = 0;
constexpr Time kSubmitTime = kSecond;
constexpr Time kCycleTime = 10 * kMinute;

// A scheduler with a full cluster and kPending waiting jobs, plus a supply of further jobs.
struct Setup {
  std::string key;
  std::unique_ptr<Scheduler> scheduler;
  std::vector<TraceJob> templates;  // synthetic jobs, taken in turn, each with a fresh id
  size_t next_template = 0;
  JobId next_id = 1;
  size_t fill_skipped = 0;  // fill jobs that did not fit what was left and were dropped
  int next_node = 0;        // the node the NodeFrees variant frees next
};

JobSpec TakeJob(Setup& s, Time submit_time) {
  JobSpec spec = s.templates[s.next_template].spec;
  s.next_template = (s.next_template + 1) % s.templates.size();
  spec.id = s.next_id++;
  spec.submit_time = submit_time;
  return spec;
}

// Starts jobs until no GPU is free. A job that cannot start on what is left is cancelled.
bool Fill(Setup& s, bool preemptible) {
  Scheduler& sched = *s.scheduler;
  size_t misses = 0;  // in a row
  while (sched.cluster().FreeMilli() > 0) {
    if (misses > s.templates.size()) return false;
    JobSpec spec = TakeJob(s, kFillTime);
    spec.preemptible = preemptible;
    if (spec.gpus * kMilliPerGpu > sched.cluster().FreeMilli()) {
      ++s.fill_skipped;
      ++misses;
      continue;
    }
    if (!sched.Submit(spec, kFillTime).ok()) return false;
    (void)sched.Cycle(kFillTime);
    if (sched.PendingCount() > 0) {
      ++s.fill_skipped;
      ++misses;
      if (!sched.Cancel(spec.id, kFillTime).ok()) return false;
    } else {
      misses = 0;
    }
  }
  return true;
}

// Submits waiting jobs until kPending wait.
bool TopUpPending(Setup& s) {
  while (s.scheduler->PendingCount() < static_cast<size_t>(kPending)) {
    if (!s.scheduler->Submit(TakeJob(s, kSubmitTime), kSubmitTime).ok()) return false;
  }
  return true;
}

// The "array" variants: a 10,000-task array of 1-GPU jobs waits first, without a limit (all
// its tasks in the queue) or with %100 (100 admitted, the rest parked); other variants: none.
bool SubmitArray(Setup& s, const std::string& variant) {
  if (variant != "array" && variant != "array-limit") return true;
  const JobId array = s.next_id;
  for (int task = 0; task < kArrayTasks; ++task) {
    JobSpec spec = TakeJob(s, kSubmitTime);
    spec.gpus = 1;
    spec.gpu_milli = kMilliPerGpu;
    spec.array_id = array;
    spec.array_task = task;
    spec.array_limit = variant == "array-limit" ? 100 : 0;
    if (!s.scheduler->Submit(spec, kSubmitTime).ok()) return false;
  }
  return true;
}

// The state for `policy`, built once and kept while the same benchmark repeats (Google
// Benchmark calls a benchmark several times to size its iteration count). In the "full"
// variant the running jobs are not preemptible, so that no cycle may stop one.
Setup* GetSetup(const std::string& policy_name, const std::string& variant, std::string* error) {
  static std::unique_ptr<Setup> cached;
  const std::string key = policy_name + "/" + variant;
  if (cached && cached->key == key) return cached.get();
  cached.reset();
  auto policy = NamedPolicy(policy_name);
  if (!policy.ok()) {
    *error = policy.status().message();
    return nullptr;
  }
  auto sched = Scheduler::Create(MakeUniformCluster(kNodes, kGpusPerNode), *policy);
  if (!sched.ok()) {
    *error = sched.status().message();
    return nullptr;
  }
  auto s = std::make_unique<Setup>();
  s->key = key;
  s->scheduler = std::move(*sched);
  SyntheticOptions options;
  options.jobs = 2 * kPending;
  options.cluster_gpus = kNodes * kGpusPerNode;
  s->templates = MakeSyntheticTrace(options).jobs;
  if (!Fill(*s, variant != "full") || !SubmitArray(*s, variant) || !TopUpPending(*s)) {
    *error = "could not fill the cluster or queue the pending jobs";
    return nullptr;
  }
  cached = std::move(s);
  return cached.get();
}

// The measured call, kept out of line so that a profiler can single it out:
//   valgrind --tool=callgrind --toggle-collect='*MeasuredCycle*' bench/cycle_bench ...
[[gnu::noinline]] std::vector<Decision> MeasuredCycle(Scheduler& scheduler) {
  return scheduler.Cycle(kCycleTime);
}

void ReportState(benchmark::State& state, const Setup& s) {
  state.counters["pending"] = static_cast<double>(s.scheduler->PendingCount());
  size_t parked = 0;  // array tasks kept out of the queue by their array's limit
  s.scheduler->ForEachParked([&](const Job&) { ++parked; });
  state.counters["parked"] = static_cast<double>(parked);
  state.counters["running"] =
      static_cast<double>(s.scheduler->JobCount() - s.scheduler->PendingCount() - parked);
  state.counters["fill_skipped"] = static_cast<double>(s.fill_skipped);
}

void BM_CycleFull(benchmark::State& state, const std::string& policy) {
  std::string error;
  Setup* s = GetSetup(policy, "full", &error);
  if (s == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  for (auto _ : state) {
    std::vector<Decision> decisions = MeasuredCycle(*s->scheduler);
    if (!decisions.empty()) {
      state.SkipWithError("a cycle on the full cluster decided something: the state changed");
      break;
    }
    benchmark::DoNotOptimize(decisions);
  }
  ReportState(state, *s);
}

// Acts as the driver between two cycles: the jobs the last cycle asked to stop have stopped,
// the jobs on the next node finish, and the queue is topped up to kPending.
bool BetweenCycles(Setup& s, const std::vector<Decision>& last) {
  Scheduler& sched = *s.scheduler;
  for (const Decision& d : last) {
    if (d.kind == Decision::Kind::kStop && !sched.Stopped(d.job, kCycleTime).ok()) return false;
  }
  const std::vector<JobId> on_node = sched.JobsOnNode(s.next_node);
  s.next_node = (s.next_node + 1) % kNodes;
  for (JobId id : on_node) {
    if (!sched.Finished(id, kCycleTime, true).ok()) return false;
  }
  return TopUpPending(s);
}

void BM_CycleNodeFreesWith(benchmark::State& state, const std::string& policy,
                           const std::string& variant) {
  std::string error;
  Setup* s = GetSetup(policy, variant, &error);
  if (s == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  int64_t starts = 0;
  int64_t stops = 0;
  double driver_s = 0;  // untimed: Stopped, Finished (which may rekey the queue), Submit
  std::vector<Decision> decisions;
  for (auto _ : state) {
    state.PauseTiming();
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = BetweenCycles(*s, decisions);
    driver_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.ResumeTiming();
    if (!ok) {
      state.SkipWithError("the driver's calls between cycles failed");
      break;
    }
    decisions = MeasuredCycle(*s->scheduler);
    for (const Decision& d : decisions) ++(d.kind == Decision::Kind::kStart ? starts : stops);
  }
  // Outside the timed loop: leaves no job checkpointing for the next run of this benchmark.
  if (!BetweenCycles(*s, decisions)) state.SkipWithError("the driver's calls failed");
  const double n = static_cast<double>(std::max<benchmark::IterationCount>(1, state.iterations()));
  state.counters["starts_per_cycle"] = static_cast<double>(starts) / n;
  state.counters["stops_per_cycle"] = static_cast<double>(stops) / n;
  state.counters["driver_us_per_cycle"] = driver_s * 1e6 / n;
  ReportState(state, *s);
}

void BM_CycleNodeFrees(benchmark::State& state, const std::string& policy) {
  BM_CycleNodeFreesWith(state, policy, "node-frees");
}

// NodeFrees with a 10,000-task array waiting among the 100,000 jobs (all queued, or %100).
void BM_CycleArray(benchmark::State& state, const std::string& policy) {
  BM_CycleNodeFreesWith(state, policy, "array");
}
void BM_CycleArrayLimit(benchmark::State& state, const std::string& policy) {
  BM_CycleNodeFreesWith(state, policy, "array-limit");
}

}  // namespace
}  // namespace squeeze::bench

using squeeze::bench::BM_CycleArray;
using squeeze::bench::BM_CycleArrayLimit;
using squeeze::bench::BM_CycleFull;
using squeeze::bench::BM_CycleNodeFrees;

BENCHMARK_CAPTURE(BM_CycleFull, fifo, std::string("fifo"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CycleFull, backfill, std::string("backfill"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CycleFull, squeeze, std::string("squeeze"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CycleNodeFrees, fifo, std::string("fifo"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CycleNodeFrees, backfill, std::string("backfill"))
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CycleNodeFrees, squeeze, std::string("squeeze"))
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_CAPTURE(BM_CycleArray, backfill, std::string("backfill"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CycleArray, squeeze, std::string("squeeze"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CycleArrayLimit, backfill, std::string("backfill"))
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CycleArrayLimit, squeeze, std::string("squeeze"))
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
