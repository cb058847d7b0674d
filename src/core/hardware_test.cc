// Heterogeneous GPUs (issue 38): a job's speed on each card, the speed tables' parser, and the
// order in which a hardware-aware placement tries the cards a job may use.
#include "core/hardware.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;
using testing::TwoCardKinds;

TEST(HardwareTest, AJobsOwnSpeedsWinOverTheClustersAndUnlistedModelsGoAtOne) {
  ClusterSpec spec = TwoCardKinds(2, 1);
  spec.gpu_models.erase("small");
  ClusterState cluster(spec);
  JobSpec job;
  EXPECT_EQ(JobSpeedOn(job, cluster.group(0)), 2);  // groups in model-name order: big, small
  EXPECT_EQ(JobSpeedOn(job, cluster.group(1)), 1);
  job.gpu_speeds = {{"big", 0.5}};
  EXPECT_EQ(JobSpeedOn(job, cluster.group(0)), 0.5);
  EXPECT_EQ(JobSpeedOn(job, cluster.group(1)), 1);
}

TEST(HardwareTest, SpeedTablesParseAndBrokenOnesNameTheirPair) {
  auto ok = ParseGpuSpeeds("V100:1,P100:0.77|K80:0.24");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->size(), 3u);
  EXPECT_EQ(ok->at("K80"), 0.24);
  EXPECT_EQ(GpuSpeedsText(*ok, '|'), "K80:0.24|P100:0.77|V100:1");
  for (const auto& [text, named] : std::vector<std::pair<std::string, std::string>>{
           {"", "no MODEL:SPEED pairs"},
           {"V100", "'V100' is not MODEL:SPEED"},
           {"V100:fast", "'V100:fast'"},
           {"V100:0", "'V100:0'"},
           {"V100:-1", "'V100:-1'"},
           {"V100:1001", "'V100:1001'"},
           {"V100:1,,K80:1", "'' is not MODEL:SPEED"},
           {":1", "':1'"},
           {"V100:1,V100:2", "model 'V100' is given twice"},
           {"V 100:1", "has a space"},
           {"V100:nan", "'V100:nan'"}}) {
    auto bad = ParseGpuSpeeds(text);
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_THAT(bad.status().message(), HasSubstr(named)) << text;
    EXPECT_THAT(bad.status().message(), HasSubstr("GPU speeds '")) << text;
  }
}

TEST(HardwareTest, EqualCardsGoSmallestFirstAndOneKindIsOneTier) {
  ClusterState cluster(TwoCardKinds(1, 1));
  JobSpec job;
  EXPECT_THAT(HardwareTiers(cluster, job, {0, 1}, std::nullopt, {}),
              ElementsAre(ElementsAre(1), ElementsAre(0)));
  EXPECT_THAT(HardwareTiers(cluster, job, {0}, std::nullopt, {}), ElementsAre(ElementsAre(0)));
}

TEST(HardwareTest, AFasterCardFirstUnlessItSavesTooLittle) {
  ClusterState cluster(TwoCardKinds(2, 1));
  JobSpec job;
  const HardwareRule rule{0.1, 10 * kMinute};
  // Unknown length, or ten hours: the fast card saves much.
  EXPECT_THAT(HardwareTiers(cluster, job, {0, 1}, std::nullopt, rule),
              ElementsAre(ElementsAre(0), ElementsAre(1)));
  EXPECT_THAT(HardwareTiers(cluster, job, {0, 1}, 10 * kHour, rule),
              ElementsAre(ElementsAre(0), ElementsAre(1)));
  // Five minutes: 2.5 minutes saved, under 10: the small card is enough.
  EXPECT_THAT(HardwareTiers(cluster, job, {0, 1}, 5 * kMinute, rule),
              ElementsAre(ElementsAre(1), ElementsAre(0)));
  // Within the slack (1.05 times as fast): the small card is enough whatever the length.
  job.gpu_speeds = {{"big", 1.05}};
  EXPECT_THAT(HardwareTiers(cluster, job, {0, 1}, 10 * kHour, rule),
              ElementsAre(ElementsAre(1), ElementsAre(0)));
}

TEST(HardwareTest, AwarePlacementKeepsTheBigCardsForTheJobsThatNeedThem) {
  auto run = [](bool aware) {
    Scenario s(TwoCardKinds(1, 1), MakePolicy("fifo", {{"hardware_aware", aware ? "true" : "false"}}));
    s.Add(NewJob(1, 8, 0).Pool("a"));
    auto first = s.Cycle(0);
    s.Add(NewJob(2, 8, kSecond).Pool("a").GpuMemory(40000));
    auto second = s.Cycle(kSecond);
    first.insert(first.end(), second.begin(), second.end());
    return first;
  };
  // Aware: the small job on the small cards, the 40 GB job starts at once on the big ones.
  EXPECT_THAT(run(true), ElementsAre("start 1 on a1:0,1,2,3,4,5,6,7",
                                     "start 2 on a0:0,1,2,3,4,5,6,7"));
  // Blind: the small job takes the big cards, and the 40 GB job waits.
  EXPECT_THAT(run(false), ElementsAre("start 1 on a0:0,1,2,3,4,5,6,7"));
}

TEST(HardwareTest, AJobGoesWhereItsOwnTableSaysItIsFastest) {
  // The cluster says big is twice as fast; this job's table says it is faster on small.
  Scenario s(TwoCardKinds(2, 1), MakePolicy("fifo", {{"hardware_aware", "true"}}));
  JobSpec job = NewJob(1, 8, 0).Pool("a");
  job.gpu_speeds = {{"small", 1.5}, {"big", 1}};
  s.Add(job);
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a1:0,1,2,3,4,5,6,7"));
  s.Add(NewJob(2, 8, kSecond).Pool("a"));  // by the cluster's speeds: big
  EXPECT_THAT(s.Cycle(kSecond), ElementsAre("start 2 on a0:0,1,2,3,4,5,6,7"));
}

// A ten-hour job waits an hour for the fast cards rather than start on cards four times
// slower (40 hours); blind, it starts on the slow ones at once.
TEST(HardwareTest, ALongJobWaitsForAFastCardAboutToBeFree) {
  auto run = [](bool aware) {
    Scenario s(TwoCardKinds(1, 0.25),
               MakePolicy("fifo", {{"hardware_aware", aware ? "true" : "false"}}));
    s.Add(NewJob(1, 8, 0).Pool("a").Estimate(kHour));
    auto lines = s.Cycle(0);
    s.Add(NewJob(2, 8, kSecond).Pool("a").Estimate(10 * kHour));
    auto second = s.Cycle(kSecond);
    lines.insert(lines.end(), second.begin(), second.end());
    return lines;
  };
  EXPECT_THAT(run(true), ElementsAre("start 1 on a0:0,1,2,3,4,5,6,7"));
  EXPECT_THAT(run(false), ElementsAre("start 1 on a0:0,1,2,3,4,5,6,7",
                                      "start 2 on a1:0,1,2,3,4,5,6,7"));
}

// `why` names the cards in the order tried, the one a held job waits for, and the cards a job
// may not use.
TEST(HardwareTest, WhyNamesTheCardsAndTheOneAJobWaitsFor) {
  Scenario s(TwoCardKinds(1, 0.25), MakePolicy("fifo", {{"hardware_aware", "true"}}));
  s.Add(NewJob(1, 8, 0).Pool("a").Estimate(kHour));
  s.Cycle(0);
  s.Add(NewJob(2, 8, kSecond).Pool("a").Estimate(10 * kHour));
  s.Add(NewJob(3, 8, kSecond).Pool("a").GpuMemory(40000));
  s.Cycle(kSecond);
  const std::vector<std::string> held = s.sched().CardOutlook(2, kSecond);
  ASSERT_EQ(held.size(), 4u) << ::testing::PrintToString(held);
  EXPECT_THAT(held[1], HasSubstr("big cards of pool a: 0 of 8 GPUs free, speed 1 for it, its "
                                 "work there about 10h"));
  EXPECT_THAT(held[1], HasSubstr("expected to have 8 free in about 59m59s"));
  EXPECT_THAT(held[2], HasSubstr("small cards of pool a: 8 of 8 GPUs free, speed 0.25 for it, "
                                 "its work there about 1d16h"));
  EXPECT_THAT(held[3], HasSubstr("it waits for big cards of pool a, busy now"));
  const std::vector<std::string> big = s.sched().CardOutlook(3, kSecond);
  ASSERT_FALSE(big.empty());
  EXPECT_EQ(big[0], "not small cards of pool a: 16384 MiB each, it needs 40000 MiB");
  // Blind to hardware, nothing to say.
  Scenario blind(TwoCardKinds(1, 0.25), MakePolicy("fifo", {{"hardware_aware", "false"}}));
  blind.Add(NewJob(1, 8, 0).Pool("a"));
  EXPECT_TRUE(blind.sched().CardOutlook(1, 0).empty());
}

// A job that started on the slow cards (the fast ones busy, for how long not known) moves to
// the fast ones once they are free, through a checkpoint: the upgrade action.
TEST(HardwareTest, AJobMovesToFasterCardsWhenTheyAreFree) {
  Scenario s(TwoCardKinds(1, 0.25),
             MakePolicy("fifo", {{"hardware_aware", "true"}, {"actions", "allocate|upgrade"}}));
  JobSpec slow = NewJob(2, 8, 0).Pool("a").Estimate(10 * kHour);
  slow.checkpointable = true;
  s.Add(NewJob(1, 8, 0).Pool("a"));
  s.Add(slow);
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3,4,5,6,7",
                                      "start 2 on a1:0,1,2,3,4,5,6,7"));
  s.Finish(1, kHour);
  EXPECT_THAT(s.Cycle(kHour), ElementsAre("stop 2: moved to faster cards"));
  s.Stop(2, kHour);
  EXPECT_THAT(s.Cycle(kHour), ElementsAre("start 2 on a0:0,1,2,3,4,5,6,7 resume overhead=30"));
  EXPECT_EQ(s.job(2).work_done, kHour / 4);  // an hour at a quarter of the speed
  EXPECT_EQ(s.sched().counters().hardware_moves, 1);
  EXPECT_EQ(s.sched().counters().preemptions, 0);
}

}  // namespace
}  // namespace squeeze
