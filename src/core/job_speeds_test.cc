// A job's own gpu_speeds (issue 38) in a live queue, where they are a user's claim: they choose
// its cards, and count nothing toward its progress, expected end or rank
// (Scheduler::CountProgressAtClusterSpeeds). In the simulator they are the truth and count.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/hardware.h"
#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;
using testing::TwoCardKinds;

TEST(JobSpeedsTest, ClaimsChooseTheCardsButTheClustersSpeedsCountInALiveQueue) {
  for (const bool live : {false, true}) {
    SCOPED_TRACE(live ? "live" : "simulated");
    Scenario s(TwoCardKinds(2, 1), MakePolicy("fifo", {{"hardware_aware", "true"}}));
    if (live) s.sched().CountProgressAtClusterSpeeds();
    JobSpec job = NewJob(1, 8, 0).Pool("a").Estimate(10 * kHour);
    job.gpu_speeds = {{"small", 100}, {"big", 1}};
    s.Add(job);
    // Its claim chooses its cards in both: the small ones, where it says it is fastest.
    EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a1:0,1,2,3,4,5,6,7"));
    const Job& j = s.job(1);
    // Live, it goes at the cluster's speed of those cards (1): an hour is an hour of work and
    // its estimate ends it in ten hours, not six minutes.
    EXPECT_EQ(j.run_speed_milli, live ? 1000 : 100000);
    EXPECT_EQ(j.RunProgress(kHour), live ? kHour : 100 * kHour);
    EXPECT_EQ(j.EstimatedEnd(), live ? 10 * kHour : 6 * kMinute);
    EXPECT_EQ(j.EstimatedRemaining(kHour), live ? 9 * kHour : 0);
  }
}

// A job the cluster says is faster on a card still goes faster there in a live queue: the
// cluster's speeds are the admin's word.
TEST(JobSpeedsTest, TheClustersSpeedsStillCountInALiveQueue) {
  Scenario s(TwoCardKinds(2, 1), MakePolicy("fifo", {{"hardware_aware", "true"}}));
  s.sched().CountProgressAtClusterSpeeds();
  s.Add(NewJob(1, 8, 0).Pool("a").Estimate(10 * kHour).GpuMemory(40000));  // the big cards
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3,4,5,6,7"));
  EXPECT_EQ(s.job(1).run_speed_milli, 2000);
  EXPECT_EQ(s.job(1).EstimatedEnd(), 5 * kHour);
}

// The attack: two users' equal jobs on one node; mallory's claims to go 100 times as fast. Under
// the default sliced policy (gittins order: estimate less attained work), once her job has run
// a slice it would rank as done and never yield to alice's shorter job. In a live queue it
// yields at its slice end as an honest job does.
TEST(JobSpeedsTest, AClaimedSpeedBuysNoRankInALiveQueue) {
  auto run = [](bool live) {
    ClusterSpec spec = Cluster({{"a", 1, 8, "big"}});
    spec.gpu_models["big"] = {81920, 1};
    Scenario s(spec, MakePolicy("sliced", {{"slice", "30m"}}));
    if (live) s.sched().CountProgressAtClusterSpeeds();
    JobSpec mallory = NewJob(1, 8, 0).Estimate(10 * kHour).Elastic().Team("m");
    mallory.gpu_speeds = {{"big", 100}};
    s.Add(mallory);
    std::vector<std::string> lines = s.Settle(0);
    s.Add(NewJob(2, 8, kMinute).Estimate(5 * kHour).Elastic().Team("a"));
    for (Time t = kMinute; t <= 31 * kMinute; t += kMinute) {
      std::vector<std::string> more = s.Settle(t);
      lines.insert(lines.end(), more.begin(), more.end());
    }
    return lines;
  };
  EXPECT_THAT(run(true), ElementsAre("start 1 on a0:0,1,2,3,4,5,6,7 slice_end=1800",
                                     "stop 1: slice ended; yields to 2",
                                     "start 2 on a0:0,1,2,3,4,5,6,7 slice_end=3600"));
  // Counted at its claim (the simulator's rule), it looks done after its slice and keeps the GPU.
  EXPECT_THAT(run(false), ElementsAre("start 1 on a0:0,1,2,3,4,5,6,7 slice_end=1800"));
}

}  // namespace
}  // namespace squeeze
