#include "core/plugins/job_order.h"

#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::IsSupersetOf;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;

std::unique_ptr<JobOrder> Order(const std::string& name, JobOrderOptions options = {}) {
  auto o = MakeJobOrder(name, options);
  EXPECT_TRUE(o.ok()) << o.status().message();
  return o.ok() ? std::move(*o) : nullptr;
}

Job Pending(const JobSpec& spec, double attained = 0, Time work_done = 0) {
  Job j;
  j.spec = spec;
  j.attained_gpu_s = attained;
  j.work_done = work_done;
  return j;
}

Job Running(const JobSpec& spec, Time run_start, Time overhead = 0, Time work_done = 0) {
  Job j;
  j.spec = spec;
  j.state = JobState::kRunning;
  j.run_start = run_start;
  j.run_overhead = overhead;
  j.work_done = work_done;
  return j;
}

TEST(JobOrderTest, NamesAndUnknownName) {
  EXPECT_THAT(JobOrderNames(), IsSupersetOf({"fifo", "las", "sjf", "srtf"}));
  std::string known;
  for (const std::string& n : JobOrderNames()) known += (known.empty() ? "" : ", ") + n;
  auto o = MakeJobOrder("lifo", {});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), "unknown job order 'lifo' (known: " + known + ")");
  EXPECT_EQ(Order("sjf")->name(), "sjf");
}

TEST(JobOrderTest, FifoKeyIsConstant) {
  auto fifo = Order("fifo");
  EXPECT_EQ(fifo->Key(Pending(NewJob(1, 1, 0).Estimate(5 * kSecond)), 0), 0.0);
  EXPECT_EQ(fifo->Key(Running(NewJob(2, 8, 9 * kSecond), 0), 5000 * kSecond), 0.0);
}

TEST(JobOrderTest, SjfUsesTheEstimateAndPutsUnknownLast) {
  auto sjf = Order("sjf");
  const double with = sjf->Key(Pending(NewJob(1, 1).Estimate(600 * kSecond)), 0);
  const double without = sjf->Key(Pending(NewJob(2, 1)), 0);
  EXPECT_EQ(with, 600.0);
  EXPECT_GT(without, 1e15);
  // The whole estimate, not what is left of it.
  EXPECT_EQ(sjf->Key(Pending(NewJob(3, 1).Estimate(600 * kSecond), 0, 500 * kSecond), 0), 600.0);
}

TEST(JobOrderTest, SrtfUsesTheRemainingTime) {
  auto srtf = Order("srtf");
  EXPECT_EQ(srtf->Key(Pending(NewJob(1, 1).Estimate(600 * kSecond), 0, 250 * kSecond), 0), 350.0);
  // Running since 100 with 30 s of overhead: at 400, 270 s done.
  EXPECT_EQ(srtf->Key(Running(NewJob(2, 1).Estimate(600 * kSecond), 100 * kSecond, 30 * kSecond),
                      400 * kSecond),
            330.0);
  EXPECT_EQ(srtf->Key(Pending(NewJob(3, 1).Estimate(600 * kSecond), 0, 900 * kSecond), 0), 0.0);
  EXPECT_GT(srtf->Key(Pending(NewJob(4, 1)), 0), 1e15);
}

TEST(JobOrderTest, LasLevelsByGpuWeightedService) {
  auto las = Order("las");  // thresholds 3600, 36000, 360000 GPU-seconds
  EXPECT_EQ(las->Key(Pending(NewJob(1, 1), 0), 0), 0.0);
  EXPECT_EQ(las->Key(Pending(NewJob(1, 1), 3599), 0), 0.0);
  EXPECT_EQ(las->Key(Pending(NewJob(1, 1), 3600), 0), 1.0);  // a threshold starts a level
  EXPECT_EQ(las->Key(Pending(NewJob(1, 1), 35999), 0), 1.0);
  EXPECT_EQ(las->Key(Pending(NewJob(1, 1), 36000), 0), 2.0);
  EXPECT_EQ(las->Key(Pending(NewJob(1, 1), 1e9), 0), 3.0);
  // Running: 4 GPUs for 1000 s are 4000 GPU-seconds.
  EXPECT_EQ(las->Key(Running(NewJob(2, 4), 0), 899 * kSecond), 0.0);
  EXPECT_EQ(las->Key(Running(NewJob(2, 4), 0), 1000 * kSecond), 1.0);
  // A half GPU for 7200 s is 3600 GPU-seconds.
  EXPECT_EQ(las->Key(Running(NewJob(3, 1).Milli(500), 0), 7199 * kSecond), 0.0);
  EXPECT_EQ(las->Key(Running(NewJob(3, 1).Milli(500), 0), 7200 * kSecond), 1.0);
}

TEST(JobOrderTest, LasWithoutGpuWeightCountsRunningTime) {
  JobOrderOptions o;
  o.las_thresholds = {100, 1000};
  o.las_gpu_weighted = false;
  auto las = Order("las", o);
  EXPECT_EQ(las->Key(Pending(NewJob(1, 8), 792), 0), 0.0);   // 99 s on 8 GPUs
  EXPECT_EQ(las->Key(Pending(NewJob(1, 8), 800), 0), 1.0);   // 100 s
  EXPECT_EQ(las->Key(Running(NewJob(2, 4), 0), 999 * kSecond), 1.0);
  EXPECT_EQ(las->Key(Running(NewJob(2, 4), 0), 1000 * kSecond), 2.0);
  o.las_gpu_weighted = true;
  EXPECT_EQ(Order("las", o)->Key(Pending(NewJob(1, 8), 800), 0), 1.0);
  EXPECT_EQ(Order("las", o)->Key(Pending(NewJob(1, 8), 8000), 0), 2.0);
}

// Scenario: one 8-GPU node, 1-GPU jobs; the order of the start decisions (and the GPUs they
// get, lowest index first) is the queue order.
std::vector<std::string> StartOrder(const std::string& job_order,
                                    const std::vector<JobSpec>& jobs) {
  Scenario s(Cluster({{"a", 1, 8}}), MakePolicy("fifo", {{"job_order", job_order}}));
  for (const JobSpec& j : jobs) s.Add(j);
  return s.Cycle(100 * kSecond);
}

TEST(JobOrderScenarioTest, FifoTiesBreakBySubmitThenId) {
  EXPECT_THAT(
      StartOrder("fifo", {NewJob(3, 1, 10 * kSecond), NewJob(1, 1, 10 * kSecond),
                          NewJob(2, 1, 5 * kSecond), NewJob(9, 1, 0)}),
      ElementsAre("start 9 on a0:0", "start 2 on a0:1", "start 1 on a0:2", "start 3 on a0:3"));
}

TEST(JobOrderScenarioTest, SjfShortestFirstUnknownLast) {
  EXPECT_THAT(StartOrder("sjf", {NewJob(1, 1, 0), NewJob(2, 1, kSecond).Estimate(900 * kSecond),
                                 NewJob(3, 1, 2 * kSecond).Estimate(60 * kSecond),
                                 NewJob(4, 1, 3 * kSecond).Estimate(900 * kSecond),
                                 NewJob(5, 1, 0).Estimate(900 * kSecond)}),
              ElementsAre("start 3 on a0:0", "start 5 on a0:1", "start 2 on a0:2",
                          "start 4 on a0:3", "start 1 on a0:4"));
}

TEST(JobOrderScenarioTest, SrtfRanksByWhatIsLeft) {
  EXPECT_THAT(
      StartOrder("srtf", {NewJob(1, 1, 0).Estimate(500 * kSecond),
                          NewJob(2, 1, kSecond).Estimate(50 * kSecond), NewJob(3, 1, 2 * kSecond)}),
      ElementsAre("start 2 on a0:0", "start 1 on a0:1", "start 3 on a0:2"));
}

// LAS: a job that ran past the first threshold waits behind one that did not, although it
// arrived first. The "las" policy preempts by order, which makes it wait.
TEST(JobOrderScenarioTest, LasPutsAttainedServiceBehindNewcomers) {
  Scenario s(Cluster({{"a", 1, 1}}), "las");
  s.Add(NewJob(1, 1, 0).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0"));
  s.Add(NewJob(2, 1, 1000 * kSecond).Elastic());
  // 1000 GPU-s: 1 is still in level 0, ahead of 2.
  EXPECT_THAT(s.Cycle(1000 * kSecond), ElementsAre());
  s.Add(NewJob(3, 1, 4000 * kSecond).Elastic());
  EXPECT_THAT(s.Settle(4000 * kSecond), ElementsAre("stop 1: preempted for 2", "start 2 on a0:0"));
  EXPECT_DOUBLE_EQ(s.job(1).attained_gpu_s, 4000.0);
  s.Finish(2, 4100 * kSecond);
  // Level 0 before 1's level 1.
  EXPECT_THAT(s.Cycle(4100 * kSecond), ElementsAre("start 3 on a0:0"));
}

}  // namespace
}  // namespace squeeze
