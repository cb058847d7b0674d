// ForecastStart drives a copy of a real scheduler forward: the running jobs where they are,
// what the policy would do on the way (preemption after min_runtime), and the live one left
// untouched.
#include "core/forecast_start.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

ClusterSpec Nodes(int count, int gpus) {
  ClusterSpec c;
  PoolSpec pool;
  pool.name = "local";
  c.pools.push_back(pool);
  for (int i = 0; i < count; ++i) {
    NodeSpec node;
    node.name = "n" + std::to_string(i);
    node.pool = "local";
    node.gpus = gpus;
    c.nodes.push_back(node);
  }
  return c;
}

JobSpec Spec(JobId id, int gpus, std::optional<Time> estimate, Time submit = 0) {
  JobSpec j;
  j.id = id;
  j.name = "j" + std::to_string(id);
  j.gpus = gpus;
  j.estimate = estimate;
  j.submit_time = submit;
  return j;
}

std::unique_ptr<Scheduler> Make(const ClusterSpec& cluster, const Policy& policy) {
  auto s = Scheduler::Create(cluster, policy);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(s).value();
}

void SubmitAndCycle(Scheduler& s, const JobSpec& spec, Time now) {
  ASSERT_TRUE(s.Submit(spec, now).ok());
  (void)s.Cycle(now);
}

TEST(ForecastStartTest, WaitsForTheRunningJobsEstimatedEnd) {
  // A holds all 4 GPUs for 600 s and has run 100: B (2 GPUs) starts in 500 s; C (4 GPUs)
  // behind it waits for B's 100 s too: 600 s.
  auto s = Make(Nodes(1, 4), *NamedPolicy("fifo"));
  SubmitAndCycle(*s, Spec(1, 4, 600 * kSecond), 0);
  SubmitAndCycle(*s, Spec(2, 2, 100 * kSecond, 50 * kSecond), 50 * kSecond);
  SubmitAndCycle(*s, Spec(3, 4, 50 * kSecond, 60 * kSecond), 60 * kSecond);
  auto b = ForecastStart(*s, 2, 100 * kSecond);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->starts_after, 500 * kSecond);
  auto c = ForecastStart(*s, 3, 100 * kSecond);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->starts_after, 600 * kSecond);
  EXPECT_EQ(c->starts_in.at(2), 500 * kSecond) << "the jobs ahead's starts are given on the way";
}

TEST(ForecastStartTest, TheLiveSchedulerIsLeftAsItWas) {
  auto s = Make(Nodes(1, 4), *NamedPolicy("fifo"));
  SubmitAndCycle(*s, Spec(1, 4, 600 * kSecond), 0);
  SubmitAndCycle(*s, Spec(2, 2, 100 * kSecond, 50 * kSecond), 50 * kSecond);
  const int64_t cycles = s->counters().cycles;
  ASSERT_TRUE(ForecastStart(*s, 2, 100 * kSecond).ok());
  EXPECT_EQ(s->counters().cycles, cycles);
  EXPECT_EQ(s->Find(1)->state, JobState::kRunning);
  EXPECT_EQ(s->Find(2)->state, JobState::kPending);
  EXPECT_EQ(s->JobCount(), 2u);
  EXPECT_FALSE(ForecastStart(*s, 1, 100 * kSecond).ok()) << "a running job has no forecast";
  EXPECT_FALSE(ForecastStart(*s, 99, 100 * kSecond).ok()) << "an unknown job has no forecast";
}

TEST(ForecastStartTest, APreemptibleBlockerIsStoppedOnceItsMinimumRuntimeIsOver) {
  // A low, preemptible, checkpointable job holds the node for an hour; a high one arrives at
  // 60. The policy preempts after min_runtime (300 s) and the checkpoint takes 20 s: the
  // high job starts at about 320, not when A would end (3600).
  Policy policy = *NamedPolicy("squeeze");
  policy.min_runtime = 300 * kSecond;
  auto s = Make(Nodes(1, 4), policy);
  JobSpec low = Spec(1, 4, 3600 * kSecond);
  low.urgency = Urgency::kLow;
  low.preemptible = low.checkpointable = true;
  low.checkpoint_cost = 20 * kSecond;
  SubmitAndCycle(*s, low, 0);
  JobSpec high = Spec(2, 4, 600 * kSecond, 60 * kSecond);
  high.urgency = Urgency::kHigh;
  SubmitAndCycle(*s, high, 60 * kSecond);
  ASSERT_EQ(s->Find(1)->state, JobState::kRunning) << "preempted before its minimum runtime";
  auto f = ForecastStart(*s, 2, 60 * kSecond);
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_TRUE(f->starts_after.has_value());
  EXPECT_GT(f->stops_before.at(2), 0) << "it starts only once the blocker was stopped";
  EXPECT_GE(*f->starts_after, (300 - 60) * kSecond);
  EXPECT_LE(*f->starts_after, (300 + 20 + 5 - 60) * kSecond) << "the forecast waited for the blocker's end";
}

TEST(ForecastStartTest, AJobPastItsEstimateIsTakenToEndNow) {
  auto s = Make(Nodes(1, 4), *NamedPolicy("fifo"));
  SubmitAndCycle(*s, Spec(1, 4, 100 * kSecond), 0);
  SubmitAndCycle(*s, Spec(2, 4, 100 * kSecond, 10 * kSecond), 10 * kSecond);
  auto f = ForecastStart(*s, 2, 500 * kSecond);  // A has run 400 s of its 100
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->overrun, (std::vector<JobId>{1}));
  ASSERT_TRUE(f->starts_after.has_value());
  EXPECT_LE(*f->starts_after, 1 * kSecond);
}

TEST(ForecastStartTest, NoEstimateNoForecast) {
  auto s = Make(Nodes(1, 4), *NamedPolicy("fifo"));
  SubmitAndCycle(*s, Spec(1, 4, std::nullopt), 0);
  SubmitAndCycle(*s, Spec(2, 2, 100 * kSecond, 10 * kSecond), 10 * kSecond);
  auto f = ForecastStart(*s, 2, 100 * kSecond);
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(f->starts_after.has_value());
  EXPECT_EQ(f->missing_estimate, 1);
}

TEST(ForecastStartTest, ADownNodeIsNotCountedOn) {
  // Two nodes of 4; n1 is down. A runs on n0 for 600 s: B (4 GPUs) waits for it rather than
  // take n1.
  auto s = Make(Nodes(2, 4), *NamedPolicy("fifo"));
  ASSERT_TRUE(s->SetNodeAvailable(1, false).ok());
  SubmitAndCycle(*s, Spec(1, 4, 600 * kSecond), 0);
  ASSERT_EQ(s->Find(1)->placement.shares.front().node, 0);
  SubmitAndCycle(*s, Spec(2, 4, 100 * kSecond, 10 * kSecond), 10 * kSecond);
  auto f = ForecastStart(*s, 2, 100 * kSecond);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->starts_after, 500 * kSecond);
}

}  // namespace
}  // namespace squeeze
