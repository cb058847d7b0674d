// The simulator's capacity that can be taken away: spot reclaims (seeded or from a trace) and
// inference load on colocated GPUs.
#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"
#include "sim/simulator.h"

namespace squeeze {
namespace {

using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;

// Pool home (one 2-GPU node) and a spot pool (two 2-GPU nodes), 30-s warning, back after 1 h.
ClusterSpec HomeAndSpot(Time mean) {
  ClusterSpec spec = Cluster({{"home", 1, 2}, {"spot", 2, 2}});
  spec.pools[1].kind = PoolKind::kSpot;
  spec.pools[1].spot = {30 * kSecond, mean, kHour};
  return spec;
}

// Job 1 fills home for 10 h; jobs 2..n (2 GPUs, 2 h, checkpoints in 2 min) go to spot.
Trace SpotTrace(int jobs) {
  Trace t;
  t.source = "test";
  JobSpec blocker = NewJob(1, 2, 0).Pool("home");
  t.jobs.push_back({blocker, 10 * kHour});
  for (int i = 2; i <= jobs; ++i) {
    JobSpec j = NewJob(i, 2, 0).Pool("home").Elastic().CheckpointCost(2 * kMinute);
    t.jobs.push_back({j, 2 * kHour});
  }
  return t;
}

Result<SimResult> RunSpot(const Trace& trace, const ClusterSpec& cluster, SimOptions options,
                      bool aware = false) {
  const Policy policy = MakePolicy("fifo", {{"actions", "spot|allocate"},
                                            {"spot_aware", aware ? "true" : "false"}});
  return Simulate(trace, cluster, policy, options);
}

TEST(SimulatorTakeableTest, AReclaimTraceIsReplayedAndItsLostWorkCounted) {
  const Trace trace = SpotTrace(2);
  auto reclaims = ParseReclaimTrace("time,node\n1800,spot0\n", "r.csv");
  ASSERT_TRUE(reclaims.ok()) << reclaims.status().message();
  SimOptions options;
  options.reclaim_trace = &*reclaims;
  auto r = RunSpot(trace, HomeAndSpot(0), options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->reclaims, 1);
  EXPECT_EQ(r->spot_starts, 2);  // started on spot0, again on spot1 after the reclaim
  const JobRecord& job = *std::find_if(r->jobs.begin(), r->jobs.end(),
                                       [](const JobRecord& j) { return j.id == 2; });
  EXPECT_EQ(job.preemptions, 1);
  // Naive use checkpoints every hour (at 3600 s of progress, 3720 s of run): a reclaim at
  // 1800 s keeps nothing; the 30-s notice is too short for the 2-min checkpoint, so the job
  // holds its GPUs until the node goes (1830) and loses all 1800 s of its run.
  EXPECT_GE(job.lost_gpu_s, 2 * 1800.0);
  // Without the trace (mean 0: no seeded process) nothing is reclaimed.
  auto quiet = RunSpot(trace, HomeAndSpot(0), SimOptions{});
  ASSERT_TRUE(quiet.ok());
  EXPECT_EQ(quiet->reclaims, 0);
}

TEST(SimulatorTakeableTest, AReclaimTraceMustNameSpotNodes) {
  const Trace trace = SpotTrace(2);
  for (const char* text : {"time,node\n5,nowhere\n", "time,node\n5,home0\n"}) {
    auto reclaims = ParseReclaimTrace(text, "r.csv");
    ASSERT_TRUE(reclaims.ok());
    SimOptions options;
    options.reclaim_trace = &*reclaims;
    auto r = RunSpot(trace, HomeAndSpot(0), options);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.status().message(), ::testing::StartsWith("r.csv:2: node '"));
  }
}

TEST(SimulatorTakeableTest, SeededReclaimsAreDeterministicAndFollowTheSeed) {
  const Trace trace = SpotTrace(12);
  SimOptions one;
  one.seed = 1;
  auto a = RunSpot(trace, HomeAndSpot(30 * kMinute), one);
  auto b = RunSpot(trace, HomeAndSpot(30 * kMinute), one);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT(a->reclaims, 0);
  EXPECT_EQ(a->reclaims, b->reclaims);
  EXPECT_EQ(a->makespan, b->makespan);
  EXPECT_DOUBLE_EQ(a->busy_gpu_s, b->busy_gpu_s);
  SimOptions other;
  other.seed = 2;
  auto c = RunSpot(trace, HomeAndSpot(30 * kMinute), other);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(std::make_pair(a->reclaims, a->makespan), std::make_pair(c->reclaims, c->makespan));
}

TEST(SimulatorTakeableTest, InferenceLoadOpensAndClosesColocatedGpus) {
  // One colocated GPU (cap 0.6: open at load <= 40%) whose load is 10% except from 1000 s to
  // 2000 s of every 3000 s, where it is 90%.
  ClusterSpec cluster = Cluster({{"home", 1, 1}, {"infer", 1, 1}});
  cluster.pools[1].kind = PoolKind::kColocated;
  cluster.pools[1].colocation.evict_within = kMinute;
  InferenceLoad load;
  load.source = "load";
  load.period = 3000 * kSecond;
  load.series.push_back({"pod", {{0, 0.1}, {1000 * kSecond, 0.9}, {2000 * kSecond, 0.1}}});
  Trace trace;
  trace.source = "test";
  trace.jobs.push_back({NewJob(1, 1, 0).Pool("home"), 10000 * kSecond});
  trace.jobs.push_back(
      {NewJob(2, 1, 0).Pool("home").Elastic().CheckpointCost(20 * kSecond), 1200 * kSecond});
  SimOptions options;
  options.inference_load = &load;
  const Policy policy = MakePolicy("fifo", {{"actions", "colocate|allocate"},
                                            {"learned_estimates", "false"}});
  auto r = Simulate(trace, cluster, policy, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->inference_evictions, 1);  // at 1000 s, having made 600 s of progress at 0.6
  EXPECT_EQ(r->inference_violations, 0);
  EXPECT_EQ(r->colocated_starts, 2);      // at 0 and again at 2000
  const JobRecord& job = *std::find_if(r->jobs.begin(), r->jobs.end(),
                                       [](const JobRecord& j) { return j.id == 2; });
  // 600 s of work saved at 1020 (a 20-s checkpoint); back at 2000 with 7 s of restart: the
  // other 600 s at 0.6 take 1000 s: done at 2000 + 7 + 1000.
  EXPECT_EQ(job.end, 3007 * kSecond);
  // Without a load trace colocated GPUs take no training: job 2 waits for home.
  auto none = Simulate(trace, cluster, policy, SimOptions{});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->colocated_starts, 0);
}

}  // namespace
}  // namespace squeeze
