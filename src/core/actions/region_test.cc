// The region action: a waiting job runs in another region its data may go to when its
// expected wait at home is longer than copying its data there.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;

// Pool east (region us-east) and pool west (region us-west), one 4-GPU node each, linked at
// 10 Gbit/s for 0.02 per GB.
ClusterSpec TwoRegions(bool linked = true) {
  ClusterSpec spec = Cluster({{"east", 1, 4}, {"west", 1, 4}});
  spec.pools[0].region = "us-east";
  spec.pools[1].region = "us-west";
  if (linked) spec.region_links.push_back({"us-east", "us-west", 10, 0.02});
  return spec;
}

Policy RegionPolicy() {
  return MakePolicy("fifo", {{"actions", "allocate|region"}});
}

TEST(RegionTest, AJobWhoseHomeIsFullRunsInTheOtherRegion) {
  Scenario s(TwoRegions(), RegionPolicy());
  s.Add(NewJob(1, 4, 0).Pool("east").Estimate(kHour));
  s.Cycle(0);
  JobSpec movable = NewJob(2, 2, 10 * kSecond).Pool("east");
  movable.data_gb = 100;  // 800 Gbit at 10 Gbit/s: 80 s
  s.Add(movable);
  EXPECT_THAT(s.Cycle(10 * kSecond),
              ElementsAre("start 2 on west0:0,1 overhead=80 (moved from region us-east to "
                          "us-west: expected wait at home 59m50s > 1m20s to copy 100.0 GB "
                          "(cost 2.00))"));
  EXPECT_EQ(s.sched().counters().region_moves, 1);
  EXPECT_DOUBLE_EQ(s.sched().counters().data_moved_gb, 100);
  EXPECT_DOUBLE_EQ(s.sched().counters().data_transfer_cost, 2);
  EXPECT_FALSE(s.job(2).borrowed);  // not preemptible: the other region may not take it back
}

TEST(RegionTest, AJobWhoseDataMayNotLeaveWaitsAtHome) {
  Scenario s(TwoRegions(), RegionPolicy());
  s.Add(NewJob(1, 4, 0).Pool("east").Estimate(kHour));
  s.Cycle(0);
  s.Add(NewJob(2, 2, 10 * kSecond).Pool("east").Regions({"us-east"}));
  EXPECT_THAT(s.Cycle(10 * kSecond), IsEmpty());
  EXPECT_EQ(s.sched().counters().region_moves, 0);
  s.Finish(1, kHour);
  EXPECT_THAT(s.Cycle(kHour), ElementsAre("start 2 on east0:0,1"));
}

TEST(RegionTest, AJobStaysWhenCopyingTakesLongerThanWaiting) {
  Scenario s(TwoRegions(), RegionPolicy());
  s.Add(NewJob(1, 4, 0).Pool("east").Estimate(600 * kSecond));
  s.Cycle(0);
  JobSpec big = NewJob(2, 1, 0).Pool("east");
  big.data_gb = 1000;  // 800 s to copy > 600 s of wait
  s.Add(big);
  EXPECT_THAT(s.Cycle(0), IsEmpty());
  JobSpec small = NewJob(3, 1, 0).Pool("east");
  small.data_gb = 500;  // 400 s to copy < 600 s (job 2's GPU is counted ahead: 1 of 4 freed)
  s.Add(small);
  EXPECT_THAT(s.Cycle(0), ElementsAre(::testing::StartsWith("start 3 on west0:0 overhead=400")));
}

TEST(RegionTest, TheMinimumGainHoldsBackSmallWins) {
  Policy p = RegionPolicy();
  ASSERT_TRUE(SetPolicyOption(p, "region_min_gain", "1h").ok());
  Scenario s(TwoRegions(), p);
  s.Add(NewJob(1, 4, 0).Pool("east").Estimate(3000 * kSecond));
  s.Cycle(0);
  s.Add(NewJob(2, 1, 0).Pool("east"));
  EXPECT_THAT(s.Cycle(0), IsEmpty());  // 50 min saved < 1 h
}

TEST(RegionTest, DataNeedsALinkButNoDataMovesAnywhereAllowed) {
  Scenario s(TwoRegions(/*linked=*/false), RegionPolicy());
  s.Add(NewJob(1, 4, 0).Pool("east").Estimate(kHour));
  s.Cycle(0);
  JobSpec with_data = NewJob(2, 1, 0).Pool("east");
  with_data.data_gb = 1;
  s.Add(with_data);
  EXPECT_THAT(s.Cycle(0), IsEmpty());
  s.Add(NewJob(3, 1, 0).Pool("east"));
  EXPECT_THAT(s.Cycle(0),
              ElementsAre("start 3 on west0:0 (moved from region us-east to us-west: expected "
                          "wait at home 1h > 0s (no data to copy))"));
}

TEST(RegionTest, AnUnknownWaitAtHomeCountsAsLonger) {
  Scenario s(TwoRegions(), RegionPolicy());
  s.Add(NewJob(1, 4, 0).Pool("east"));  // no estimate: its end is unknown
  s.Cycle(0);
  JobSpec j = NewJob(2, 1, 0).Pool("east");
  j.data_gb = 10;
  s.Add(j);
  EXPECT_THAT(s.Cycle(0), ElementsAre(::testing::HasSubstr(
                              "expected wait at home unknown (no job there has an expected end)")));
}

TEST(RegionTest, TheOtherRegionsReservationsAreRespected) {
  Policy p = MakePolicy("fifo", {{"actions", "allocate|backfill|region"}});
  Scenario s(TwoRegions(), p);
  s.Add(NewJob(1, 4, 0).Pool("east").Estimate(kHour));
  s.Add(NewJob(2, 2, 0).Pool("west").Estimate(kHour));
  s.Cycle(0);
  s.Add(NewJob(3, 4, kSecond).Pool("west"));  // blocked in west: reserves west0 at 3600
  // Job 4 would take west's free GPUs past the reservation.
  s.Add(NewJob(4, 2, 2 * kSecond).Pool("east"));
  EXPECT_THAT(s.Cycle(2 * kSecond), IsEmpty());
}

TEST(RegionTest, ARestartWhereTheDataAlreadyIsCopiesNothing) {
  Policy p = MakePolicy("fifo", {{"priority", "true"}, {"actions", "allocate|preempt|region"}});
  Scenario s(TwoRegions(), p);
  s.Add(NewJob(1, 4, 0).Pool("east").Estimate(2 * kHour));
  s.Cycle(0);
  JobSpec j = NewJob(2, 4, 0).Pool("east").Elastic().Urgency(Urgency::kLow);
  j.data_gb = 100;
  s.Add(j);
  EXPECT_THAT(s.Cycle(0), ElementsAre(::testing::StartsWith("start 2 on west0:0,1,2,3 overhead=80")));
  EXPECT_TRUE(s.job(2).borrowed);  // preemptible: west may take its GPUs back
  s.Add(NewJob(3, 4, 100 * kSecond).Pool("west").Urgency(Urgency::kHigh));  // after job 2's copy
  EXPECT_THAT(s.Settle(100 * kSecond),
              ElementsAre("stop 2: preempted for 3", "start 3 on west0:0,1,2,3"));
  s.Finish(3, 200 * kSecond);
  EXPECT_THAT(s.Cycle(200 * kSecond), ElementsAre(::testing::HasSubstr("(no data to copy)")));
  EXPECT_DOUBLE_EQ(s.sched().counters().data_moved_gb, 100);  // copied once
  EXPECT_EQ(s.sched().counters().region_moves, 2);
}

TEST(RegionTest, TheOutlookExplainsWhereAWaitingJobMayGo) {
  ClusterSpec spec = TwoRegions();
  spec.pools.push_back(PoolSpec{});
  spec.pools.back().name = "eu";
  spec.pools.back().region = "eu-west";
  spec.nodes.push_back(NodeSpec{"eu0", "eu", "gpu", 4});
  Scenario s(spec, MakePolicy("fifo", {{"actions", "allocate"}}));
  s.Add(NewJob(1, 4, 0).Pool("east").Estimate(kHour));
  s.Add(NewJob(2, 1, 0).Pool("west").Estimate(600 * kSecond));
  s.Cycle(0);
  JobSpec j = NewJob(3, 2, 0).Pool("east").Regions({"us-east", "us-west"});
  j.data_gb = 100;
  s.Add(j);
  EXPECT_THAT(s.sched().RegionOutlook(3, 0),
              ElementsAre("expected wait in its home region us-east: 1h",
                          "region us-west: 3 GPUs it may use free now; copying its 100.0 GB takes "
                          "1m20s; it moves there when GPUs there fit it and its wait at home is "
                          "longer (the policy has no region action)",
                          "its data may not go to region eu-west (allowed regions: us-east, "
                          "us-west)"));
  EXPECT_THAT(s.sched().RegionOutlook(1, 0), IsEmpty());  // running: it waits nowhere
  EXPECT_THAT(s.sched().RegionOutlook(99, 0), IsEmpty());
}

TEST(RegionTest, NamedPoliciesAndOptions) {
  EXPECT_TRUE(NamedPolicy("squeeze")->Has("region"));
  EXPECT_FALSE(NamedPolicy("fifo")->Has("region"));
  EXPECT_TRUE(NamedPolicy("fifo+region")->Has("region"));
  Policy p = *NamedPolicy("squeeze");
  ASSERT_TRUE(SetPolicyOption(p, "region", "false").ok());
  EXPECT_FALSE(p.Has("region"));
  EXPECT_EQ(SetPolicyOption(p, "region_min_gain", "soon").message(),
            "policy option region_min_gain: value 'soon' is not a duration");
}

TEST(RegionTest, DataSizeIsChecked) {
  Scenario s(TwoRegions(), RegionPolicy());
  JobSpec j = NewJob(1, 1, 0).Pool("east");
  j.data_gb = -1;
  EXPECT_THAT(s.Submit(j).message(), ::testing::HasSubstr("data_gb -1.000000 must be a size in GB"));
}

}  // namespace
}  // namespace squeeze
