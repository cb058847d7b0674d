#include "sim/simulator.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;

TraceJob T(const JobSpec& spec, Time duration) { return TraceJob{spec, duration}; }

SimResult Simulated(const std::vector<TraceJob>& jobs, const ClusterSpec& cluster,
              const Policy& policy) {
  Trace trace;
  trace.source = "test";
  trace.jobs = jobs;
  auto r = Simulate(trace, cluster, policy, SimOptions{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : SimResult{};
}

// id -> (first start, end, queue in seconds, preemptions); exact, whatever the tick.
std::map<JobId, std::vector<double>> Times(const SimResult& r) {
  std::map<JobId, std::vector<double>> out;
  for (const JobRecord& j : r.jobs) {
    out[j.id] = {ToSeconds(j.first_start), ToSeconds(j.end), ToSeconds(j.queue),
                 static_cast<double>(j.preemptions)};
  }
  return out;
}

TEST(SimulatorTest, FifoOnTwoNodesHasExactTimes) {
  // 1 takes a0 until 100 and 2 half of a1 until 50; 3 (8 GPUs) waits for a1; 4 waits behind
  // 3 (strict FIFO) although it would fit at once; 5 needs both nodes.
  const std::vector<TraceJob> jobs = {
      T(NewJob(1, 8, 0), 100 * kSecond), T(NewJob(2, 4, 0), 50 * kSecond),
      T(NewJob(3, 8, 10 * kSecond), 30 * kSecond), T(NewJob(4, 2, 20 * kSecond), 10 * kSecond),
      T(NewJob(5, 16, 30 * kSecond), 20 * kSecond)};
  SimResult r = Simulated(jobs, Cluster({{"a", 2, 8}}), MakePolicy("fifo"));
  std::vector<JobId> order;
  for (const JobRecord& j : r.jobs) order.push_back(j.id);
  EXPECT_THAT(order, ElementsAre(2, 3, 4, 1, 5));  // completion order
  auto t = Times(r);
  EXPECT_THAT(t[1], ElementsAre(0, 100, 0, 0));
  EXPECT_THAT(t[2], ElementsAre(0, 50, 0, 0));
  EXPECT_THAT(t[3], ElementsAre(50, 80, 40, 0));
  EXPECT_THAT(t[4], ElementsAre(80, 90, 60, 0));
  EXPECT_THAT(t[5], ElementsAre(100, 120, 70, 0));
  EXPECT_EQ(r.makespan, 120 * kSecond);
  EXPECT_EQ(r.total_gpus, 16);
  EXPECT_DOUBLE_EQ(r.busy_gpu_s, 8 * 100 + 4 * 50 + 8 * 30 + 2 * 10 + 16 * 20);
  EXPECT_EQ(r.preemptions, 0);
  EXPECT_TRUE(r.rejected.empty());
  for (const JobRecord& j : r.jobs) EXPECT_DOUBLE_EQ(j.lost_gpu_s, 0.0) << j.id;
}

// Two 4-GPU nodes hold four 2-GPU jobs (1, 2 on a0; 3, 4 on a1). Job 5 (4 GPUs) comes at 50.
// `first_end` and `third_end` end jobs 1 and 3; job 2 ends at 400, job 4 at 1000.
SimResult TwoNodesAndAJobOfFour(Time first_end, Time third_end) {
  const std::vector<TraceJob> jobs = {
      T(NewJob(1, 2, 0).Pool("a"), first_end), T(NewJob(2, 2, 0).Pool("a"), 400 * kSecond),
      T(NewJob(3, 2, 0).Pool("a"), third_end), T(NewJob(4, 2, 0).Pool("a"), 1000 * kSecond),
      T(NewJob(5, 4, 50 * kSecond).Pool("a"), 10 * kSecond)};
  return Simulated(jobs, Cluster({{"a", 2, 4}}), MakePolicy("fifo"));
}

TEST(SimulatorTest, FragmentationBlockedGpuTimeIsIntegrated) {
  // From 100 (1 and 3 end) 2 + 2 GPUs are free but no node has 4: job 5 waits for job 2 to
  // end at 400, blocked by fragmentation for 300 s: 4 GPUs x 300 s. From 50 to 100 nothing
  // was free: that wait is not fragmentation.
  SimResult r = TwoNodesAndAJobOfFour(100 * kSecond, 100 * kSecond);
  EXPECT_THAT(Times(r)[5], ElementsAre(400, 410, 350, 0));
  EXPECT_DOUBLE_EQ(r.frag_blocked_gpu_s, 4 * 300.0);
  EXPECT_THAT(r.frag_blocked_gpu_s_by_scope, ElementsAre(4 * 300.0, 0.0));
}

TEST(SimulatorTest, WaitingForTooFewFreeGpusIsNotFragmentation) {
  // Only job 1 ends early: 2 GPUs are free until 400, fewer than job 5 needs.
  SimResult r = TwoNodesAndAJobOfFour(100 * kSecond, 1000 * kSecond);
  EXPECT_THAT(Times(r)[5], ElementsAre(400, 410, 350, 0));
  EXPECT_DOUBLE_EQ(r.frag_blocked_gpu_s, 0.0);
}

TEST(SimulatorTest, FreeGpusAreChargedToOneBlockedJobAtATime) {
  // Three 4-GPU nodes, each with one 2-GPU job left after 100 (2 on a0 until 300, 4 on a1 and
  // 6 on a2 until 1000). Jobs 7, 8, 9 (4 GPUs, 10 s each) wait; the 6 free GPUs hold one of
  // them had they been together, so 4 GPUs are blocked, not 12: 7 from 100 to 300 (a0 frees),
  // 8 from 300 to 310 and 9 from 310 to 320, each starting on a0 when the one before ends.
  std::vector<TraceJob> jobs;
  for (JobId id = 1; id <= 6; ++id) {
    const Time duration = (id % 2 == 1 ? 100 : (id == 2 ? 300 : 1000)) * kSecond;
    jobs.push_back(T(NewJob(id, 2, 0), duration));
  }
  for (JobId id = 7; id <= 9; ++id) {
    jobs.push_back(T(NewJob(id, 4, (40 + id) * kSecond), 10 * kSecond));
  }
  SimResult r = Simulated(jobs, Cluster({{"a", 3, 4}}), MakePolicy("fifo"));
  auto t = Times(r);
  EXPECT_EQ(t[7][0], 300);
  EXPECT_EQ(t[8][0], 310);
  EXPECT_EQ(t[9][0], 320);
  EXPECT_DOUBLE_EQ(r.frag_blocked_gpu_s, 4 * 200.0 + 4 * 10.0 + 4 * 10.0);
  EXPECT_THAT(r.frag_blocked_gpu_s_by_scope, ElementsAre(0.0, 880.0));  // jobs of any pool
}

TEST(SimulatorTest, RejectedJobsAreReported) {
  SimResult r = Simulated({T(NewJob(1, 8, 0), 10 * kSecond), T(NewJob(2, 9, 0), 10 * kSecond)},
                          Cluster({{"a", 1, 8}}), MakePolicy("fifo"));
  ASSERT_EQ(r.rejected.size(), 1u);
  EXPECT_THAT(r.rejected[0], ::testing::StartsWith("job 2: "));
  EXPECT_EQ(r.jobs.size(), 1u);
}

// A run that reaches its time limit ends there, timed out, and its GPUs go to the next job; a
// job whose work fits in its limit ends as usual.
TEST(SimulatorTest, AJobStopsAtItsTimeLimit) {
  SimResult r = Simulated({T(NewJob(1, 4, 0).TimeLimit(kMinute), 100 * kSecond),
                           T(NewJob(2, 4, 10 * kSecond).TimeLimit(kMinute), 30 * kSecond)},
                          Cluster({{"a", 1, 4}}), MakePolicy("fifo"));
  auto t = Times(r);
  EXPECT_THAT(t[1], ElementsAre(0, 60, 0, 0));
  EXPECT_THAT(t[2], ElementsAre(60, 90, 50, 0));
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_TRUE(r.jobs[0].timed_out);
  EXPECT_DOUBLE_EQ(r.jobs[0].lost_gpu_s, 60.0 * 4);  // all it held: its work was not done
  EXPECT_FALSE(r.jobs[1].timed_out);
}

// A low-urgency checkpointable job is preempted at 400 by a high-urgency one (squeeze: min
// runtime 300), resumes when it ends and pays 30 s of restart overhead.
std::vector<TraceJob> PreemptionTrace(Time checkpoint_cost) {
  return {T(NewJob(1, 4, 0).Urgency(Urgency::kLow).Elastic().CheckpointCost(checkpoint_cost),
            1000 * kSecond),
          T(NewJob(2, 4, 400 * kSecond).Urgency(Urgency::kHigh), 100 * kSecond)};
}

TEST(SimulatorTest, PreemptionKeepsTheInvariants) {
  SimResult r = Simulated(PreemptionTrace(0), Cluster({{"a", 1, 4}}), MakePolicy("squeeze"));
  auto t = Times(r);
  EXPECT_THAT(t[2], ElementsAre(400, 500, 0, 0));
  EXPECT_THAT(t[1], ElementsAre(0, 1130, 100, 1));
  EXPECT_EQ(r.preemptions, 1);
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[1].id, 1);
  EXPECT_DOUBLE_EQ(r.jobs[1].lost_gpu_s, 30.0 * 4);
}

TEST(SimulatorTest, CheckpointTimeDelaysThePreemptor) {
  SimResult r =
      Simulated(PreemptionTrace(20 * kSecond), Cluster({{"a", 1, 4}}), MakePolicy("squeeze"));
  auto t = Times(r);
  EXPECT_THAT(t[2], ElementsAre(420, 520, 20, 0));
  EXPECT_THAT(t[1], ElementsAre(0, 1150, 100, 1));
  EXPECT_EQ(r.preemptions, 1);
}

// Defrag moves job 1 off a0 at 100 so that job 4 (4 GPUs) starts; the move is charged as a
// preemption is (checkpoint time held, restart overhead) but it is not counted as one.
TEST(SimulatorTest, DefragMoveKeepsTheInvariants) {
  for (int checkpoint : {0, 20}) {  // seconds
    SCOPED_TRACE(checkpoint);
    const Time cost = checkpoint * kSecond;
    const std::vector<TraceJob> jobs = {
        T(NewJob(1, 2, 0).Elastic().Estimate(10000 * kSecond).CheckpointCost(cost),
          10000 * kSecond),
        T(NewJob(2, 2, 0), 50 * kSecond),
        T(NewJob(3, 2, 0).Elastic().Estimate(10000 * kSecond).CheckpointCost(cost),
          10000 * kSecond),
        T(NewJob(4, 4, 100 * kSecond), 500 * kSecond)};
    SimResult r = Simulated(jobs, Cluster({{"a", 2, 4}}), MakePolicy("fifo+defrag"));
    auto t = Times(r);
    EXPECT_THAT(t[4], ElementsAre(100 + checkpoint, 600 + checkpoint, checkpoint, 0));
    EXPECT_THAT(t[1], ElementsAre(0, 10030 + checkpoint, 0, 0));
    EXPECT_EQ(r.defrag_moves, 1);
    EXPECT_EQ(r.preemptions, 0);
    for (const JobRecord& j : r.jobs) {
      EXPECT_DOUBLE_EQ(j.lost_gpu_s, j.id == 1 ? (30.0 + checkpoint) * 2 : 0.0) << j.id;
    }
  }
}

TEST(SimulatorTest, ARegionMoveCopiesTheDataBeforeTheRun) {
  ClusterSpec cluster = Cluster({{"east", 1, 4}, {"west", 1, 4}});
  cluster.pools[0].region = "us-east";
  cluster.pools[1].region = "us-west";
  cluster.region_links.push_back({"us-east", "us-west", 10, 0.02});
  JobSpec moved = NewJob(2, 2, 0).Pool("east");
  moved.data_gb = 100;  // 80 s over 10 Gbit/s
  const std::vector<TraceJob> jobs = {
      T(NewJob(1, 4, 0).Pool("east").Estimate(1000 * kSecond), 1000 * kSecond),
      T(moved, 100 * kSecond)};
  SimResult r = Simulated(jobs, cluster, MakePolicy("fifo+region"));
  auto t = Times(r);
  EXPECT_THAT(t[2], ElementsAre(0, 180, 0, 0));
  EXPECT_EQ(r.region_moves, 1);
  EXPECT_DOUBLE_EQ(r.data_moved_gb, 100);
  EXPECT_DOUBLE_EQ(r.data_transfer_cost, 2);
  // GPU time by the pool whose GPUs were held: job 1 on east, job 2 (copy included) on west.
  EXPECT_THAT(r.pool_gpu_s, ElementsAre(4 * 1000.0, 2 * 180.0));
  SimResult home = Simulated(jobs, cluster, MakePolicy("fifo"));
  EXPECT_THAT(Times(home)[2], ElementsAre(1000, 1100, 1000, 0));
  EXPECT_EQ(home.region_moves, 0);
}

TEST(SimulatorTest, RunsAreDeterministic) {
  std::vector<TraceJob> jobs;
  for (int i = 0; i < 40; ++i) {
    auto spec = NewJob(i + 1, 1 << (i % 4), (i * 37 % 500) * kSecond)
                    .Urgency(static_cast<Urgency>(i % 3))
                    .Team(i % 2 ? "x" : "y");
    if (i % 3 != 1) spec.Elastic();
    if (i % 5 == 0) spec.CheckpointEvery(2 * kMinute);
    jobs.push_back(T(spec, (200 + (i * 53) % 3000) * kSecond));
  }
  std::sort(jobs.begin(), jobs.end(), [](const TraceJob& a, const TraceJob& b) {
    return a.spec.submit_time < b.spec.submit_time;
  });
  const ClusterSpec cluster = Cluster({{"a", 2, 8}, {"b", 1, 4}});
  for (const char* name :
       {"squeeze", "squeeze+borrow", "las", "las+defrag", "srtf", "backfill"}) {
    SCOPED_TRACE(name);
    SimResult a = Simulated(jobs, cluster, MakePolicy(name));
    SimResult b = Simulated(jobs, cluster, MakePolicy(name));
    ASSERT_EQ(a.jobs.size(), jobs.size());
    ASSERT_EQ(a.jobs.size(), b.jobs.size());
    for (size_t i = 0; i < a.jobs.size(); ++i) {
      const JobRecord& x = a.jobs[i];
      const JobRecord& y = b.jobs[i];
      EXPECT_EQ(x.id, y.id);
      EXPECT_EQ(x.first_start, y.first_start);
      EXPECT_EQ(x.end, y.end);
      EXPECT_EQ(x.queue, y.queue);
      EXPECT_EQ(x.preemptions, y.preemptions);
      EXPECT_DOUBLE_EQ(x.lost_gpu_s, y.lost_gpu_s);
    }
    if (std::string(name) != "backfill") {
      EXPECT_GT(a.preemptions + a.slice_yields, 0) << "the trace should exercise preemption";
    }
    EXPECT_EQ(a.preemptions, b.preemptions);
    EXPECT_EQ(a.slice_yields, b.slice_yields);
    EXPECT_EQ(a.makespan, b.makespan);
  }
}

// 300 one-GPU jobs of 100 s, a second apart, on 8 GPUs: the queue grows. Progress comes every
// 64 event times with what is done, waiting and running, and once more at the end.
TEST(SimulatorTest, ProgressReportsWhereTheRunIs) {
  Trace trace;
  for (int i = 0; i < 300; ++i) trace.jobs.push_back(T(NewJob(i + 1, 1, i * kSecond), 100 * kSecond));
  std::vector<SimProgress> seen;
  SimOptions options;
  options.progress = [&](const SimProgress& p) { seen.push_back(p); };
  auto r = Simulate(trace, Cluster({{"a", 1, 8}}), MakePolicy("fifo"), options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_GE(seen.size(), 3u);
  const SimProgress& first = seen.front();
  EXPECT_FALSE(first.end);
  EXPECT_EQ(first.jobs, 300u);
  EXPECT_EQ(first.running, 8u);
  EXPECT_GT(first.waiting, 0u);
  EXPECT_EQ(first.finished + first.waiting + first.running, ToSeconds(first.now) + 1);
  for (size_t i = 1; i < seen.size(); ++i) {
    EXPECT_GE(seen[i].now, seen[i - 1].now);
    EXPECT_GE(seen[i].finished, seen[i - 1].finished);
  }
  const SimProgress& last = seen.back();
  EXPECT_TRUE(last.end);
  EXPECT_EQ(last.done, 1.0);
  EXPECT_EQ(last.finished, 300u);
  EXPECT_EQ(last.waiting + last.running, 0u);
  EXPECT_EQ(last.now, r->makespan);
  EXPECT_EQ(std::count_if(seen.begin(), seen.end(), [](const SimProgress& p) { return p.end; }), 1);
}

// Heterogeneous GPUs: a run goes at its card's speed for the job (the job's own table first),
// a gang at its slowest card's, and the time beyond its duration is counted as held.
TEST(SimulatorTest, ARunGoesAtItsCardsSpeed) {
  ClusterSpec cluster = Cluster({{"a", 1, 4, "fast"}, {"a", 1, 4, "slow"}});
  cluster.gpu_models["fast"] = {0, 1};
  cluster.gpu_models["slow"] = {0, 0.5};
  JobSpec own = NewJob(3, 4, 0).Pool("a");
  own.gpu_speeds = {{"slow", 0.25}};
  // 1 takes the fast node, 2 the slow one; 3 (its own table: 0.25 on slow) starts when 1
  // ends, on the fast node; 4 when both nodes are free again, on the fast one.
  const std::vector<TraceJob> jobs = {T(NewJob(1, 4, 0).Pool("a"), 100 * kSecond),
                                      T(NewJob(2, 4, 0).Pool("a"), 100 * kSecond),
                                      T(own, 100 * kSecond),
                                      T(NewJob(4, 4, 0).Pool("a"), 100 * kSecond)};
  SimResult r = Simulated(jobs, cluster, MakePolicy("fifo", {{"hardware_aware", "true"}}));
  auto t = Times(r);
  EXPECT_THAT(t[1], ElementsAre(0, 100, 0, 0));
  EXPECT_THAT(t[2], ElementsAre(0, 200, 0, 0));  // 100 s of work at half speed
  EXPECT_THAT(t[3], ElementsAre(100, 200, 100, 0));
  EXPECT_THAT(t[4], ElementsAre(200, 300, 200, 0));
  for (const JobRecord& j : r.jobs) {
    const double held = j.id == 2 ? 4 * 100.0 : 0.0;  // the slow run's extra
    EXPECT_DOUBLE_EQ(j.lost_gpu_s, held) << j.id;
  }
}

}  // namespace
}  // namespace squeeze
