// The spot and colocate actions, and the capacity events they answer: reclaims of spot nodes,
// inference load on colocated GPUs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "core/spot_math.h"
#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;

// Pool home (one 4-GPU node) and a spot pool (two 4-GPU nodes) reclaimed every 6 h per node
// by default, with a 30-s warning.
ClusterSpec WithSpot(Time mean = 6 * kHour) {
  ClusterSpec spec = Cluster({{"home", 1, 4}, {"spot", 2, 4}});
  spec.pools[1].kind = PoolKind::kSpot;
  spec.pools[1].spot.mean_reclaim_interval = mean;
  spec.pools[1].spot.warning = 30 * kSecond;
  return spec;
}

Policy SpotPolicy(bool aware = true, bool bridge = true) {
  return MakePolicy("fifo", {{"actions", "spot|allocate"}, {"learned_estimates", "false"},
                             {"spot_aware", aware ? "true" : "false"},
                             {"spot_long_job_bridge", bridge ? "true" : "false"}});
}

TEST(SpotTest, ANonSpotJobNeverLandsOnSpotByItself) {
  // A job of no pool runs anywhere but on spot: only the spot action puts it there.
  Scenario s(WithSpot(), MakePolicy("fifo"));
  s.Add(NewJob(1, 4, 0).Estimate(kHour));
  s.Add(NewJob(2, 4, 0).Estimate(kHour));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on home0:0,1,2,3"));
}

TEST(SpotTest, AShortJobGoesToSpotWhenWaitingTakesLonger) {
  Scenario s(WithSpot(), SpotPolicy());
  s.Add(NewJob(1, 4, 0).Pool("home").Estimate(4 * kHour));
  s.Cycle(0);
  // Job 2 (1 h, checkpoints in 60 s, cannot save in the 30-s warning) would wait 4 h at home.
  s.Add(NewJob(2, 2, 0).Pool("home").Elastic().CheckpointCost(60 * kSecond).Estimate(kHour));
  const auto lines = s.Cycle(0);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], StartsWith("start 2 on spot0:0,1 (on spot pool spot: expected to finish in "));
  EXPECT_THAT(lines[0], HasSubstr("against 4h waiting at home + 1h running"));
  // Daly's interval for C = 60 s and M = 6 h, which the run is asked to keep.
  EXPECT_EQ(s.last()[0].checkpoint_interval,
            Seconds(static_cast<int64_t>(DalyInterval(60, 6 * 3600))));
  EXPECT_NEAR(s.last()[0].speed, 1570.0 / 1630.0, 0.001);
  EXPECT_EQ(s.sched().counters().spot_starts, 1);
}

TEST(SpotTest, AJobThatStartsAtHomeNowStaysHomeUnlessFaultTolerant) {
  Scenario s(WithSpot(), SpotPolicy());
  s.Add(NewJob(1, 2, 0).Pool("home").Elastic().Estimate(kHour));
  JobSpec sweep = NewJob(2, 2, 0).Pool("home").Elastic().Estimate(kHour);
  sweep.fault_tolerant = true;  // a hyper-parameter sweep: prefers spot
  s.Add(sweep);
  EXPECT_THAT(s.Cycle(0), ElementsAre(StartsWith("start 2 on spot0:0,1"), "start 1 on home0:0,1"));
}

TEST(SpotTest, TheLongJobRuleKeepsUncheckpointedLongJobsOff) {
  // Without the bridge (return_home_test.cc has it).
  Scenario s(WithSpot(), SpotPolicy(true, false));
  s.Add(NewJob(1, 4, 0).Pool("home").Estimate(48 * kHour));
  s.Cycle(0);
  // 24 h, preemptible but not checkpointable, checkpoints every hour: refused.
  s.Add(NewJob(2, 2, 0).Pool("home").Preemptible().CheckpointEvery(kHour).Estimate(24 * kHour));
  EXPECT_THAT(s.Cycle(0), IsEmpty());
  // Checkpointable on request in 60 s (longer than the warning): Daly's interval for a 6-h
  // mean is 26 min, too long for a 24-h job: refused.
  s.Add(NewJob(3, 2, 0).Pool("home").Elastic().CheckpointCost(60 * kSecond).Estimate(24 * kHour));
  EXPECT_THAT(s.Cycle(0), IsEmpty());
  // Checkpoints of 40 s on a node reclaimed every 20 min on average: Daly's interval is under
  // 5 min (sqrt(2 x 40 x 1200) = 310 s, less C and plus the higher terms: 285 s): it goes.
  Scenario f(WithSpot(20 * kMinute), SpotPolicy());
  f.Add(NewJob(1, 4, 0).Pool("home").Estimate(48 * kHour));
  f.Cycle(0);
  f.Add(NewJob(3, 2, 0).Pool("home").Elastic().CheckpointCost(40 * kSecond).Estimate(24 * kHour));
  EXPECT_THAT(f.Cycle(0), ElementsAre(StartsWith("start 3 on spot0:0,1")));
  EXPECT_EQ(f.last()[0].checkpoint_interval, Seconds(static_cast<int64_t>(DalyInterval(40, 1200))));
  EXPECT_LE(f.last()[0].checkpoint_interval, 5 * kMinute);
  // Naive use takes any job and checkpoints every hour.
  Scenario n(WithSpot(), SpotPolicy(false));
  n.Add(NewJob(1, 4, 0).Pool("home").Estimate(48 * kHour));
  n.Cycle(0);
  n.Add(NewJob(2, 2, 0).Pool("home").CheckpointEvery(kHour).Estimate(24 * kHour));
  EXPECT_THAT(n.Cycle(0), ElementsAre(StartsWith("start 2 on spot0:0,1")));
  EXPECT_EQ(n.last()[0].checkpoint_interval, kHour);
}

TEST(SpotTest, ALongJobWithCheapCheckpointsIsAskedToCheckpointEveryFiveMinutes) {
  // Without the bridge, so that the rule's other way on is the only one.
  auto run = [](Policy policy, Time stall) {
    auto s = std::make_unique<Scenario>(WithSpot(), std::move(policy));
    s->Add(NewJob(1, 4, 0).Pool("home").Estimate(48 * kHour));
    s->Cycle(0);
    // 24 h, saves in 2 min (longer than the 30-s warning); Daly's interval is over 5 min.
    s->Add(NewJob(2, 2, 0)
               .Pool("home")
               .Elastic()
               .CheckpointCost(2 * kMinute)
               .CheckpointStall(stall)
               .Estimate(24 * kHour));
    return s;
  };
  // Asynchronous checkpoints pausing it 10 s: five-minute ones take 3% of its time, and 24 h
  // there at that pace beats 48 h waiting at home.
  auto s = run(SpotPolicy(true, false), 10 * kSecond);
  const auto lines = s->Cycle(0);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], StartsWith("start 2 on spot0:0,1"));
  EXPECT_THAT(lines[0], HasSubstr("checkpoints every 5m as the rule for long jobs asks"));
  EXPECT_EQ(s->last()[0].checkpoint_interval, 5 * kMinute);
  EXPECT_NEAR(s->last()[0].speed, 300.0 / 310.0, 0.001);
  EXPECT_EQ(s->sched().counters().spot_long_every, 1);
  EXPECT_EQ(s->sched().counters().spot_long_bridges, 0);
  // A reclaim keeps the work of the last periodic checkpoint on disk: the one begun 110 s of
  // progress (the save's 2 min less its 10-s pause) before, or earlier.
  // At this moment the latest checkpoint began 60 s of progress ago: not on disk yet.
  const Time at = 3 * kHour + 140 * kSecond;
  const Time progress = s->job(2).RunProgress(at);
  ASSERT_LT(progress % (5 * kMinute), 110 * kSecond);
  ASSERT_TRUE(s->sched().Reclaimed(1, at, 30 * kSecond).ok());
  s->Cycle(at);
  EXPECT_EQ(s->job(2).saved_at_stop, (progress - 110 * kSecond) / (5 * kMinute) * (5 * kMinute));
  EXPECT_EQ(s->job(2).saved_at_stop, progress / (5 * kMinute) * (5 * kMinute) - 5 * kMinute);
  // Synchronous 2-min checkpoints (or a 60-s pause) would take 29% (17%) of its time: refused.
  for (Time stall : {Time{120 * kSecond}, Time{60 * kSecond}}) {
    auto sync = run(SpotPolicy(true, false), stall);
    EXPECT_THAT(sync->Cycle(0), IsEmpty()) << "stall " << stall;
    EXPECT_EQ(sync->sched().counters().spot_long_every, 0);
  }
  // spot_long_job_comply=0: never asked.
  Policy never = SpotPolicy(true, false);
  ASSERT_TRUE(SetPolicyOption(never, "spot_long_job_comply", "0").ok());
  EXPECT_THAT(run(never, 10 * kSecond)->Cycle(0), IsEmpty());
  // With the bridge too, the five-minute checkpoints win: 24 h of work on spot at 3% beats 12 h
  // there, a stop and 12 h more after 48 h of waiting.
  auto both = run(SpotPolicy(true, true), 10 * kSecond);
  EXPECT_THAT(both->Cycle(0), ElementsAre(HasSubstr("as the rule for long jobs asks")));
}

TEST(SpotTest, AReclaimStopsTheJobsWithinTheWarningAndHoldsTheNode) {
  Scenario s(WithSpot(), SpotPolicy());
  s.Add(NewJob(1, 4, 0).Pool("home").Estimate(4 * kHour));
  s.Cycle(0);
  s.Add(NewJob(2, 2, 0).Pool("home").Elastic().CheckpointCost(10 * kSecond).Estimate(kHour));
  s.Add(NewJob(3, 2, 0).Pool("home").Elastic().CheckpointCost(120 * kSecond).Estimate(kHour));
  s.Cycle(0);
  ASSERT_EQ(s.job(2).placement.shares[0].node, 1);  // spot0
  ASSERT_EQ(s.job(3).placement.shares[0].node, 1);
  ASSERT_TRUE(s.sched().Reclaimed(1, 1000 * kSecond, 30 * kSecond).ok());
  EXPECT_THAT(s.Cycle(1000 * kSecond),
              ElementsAre("stop 2: spot reclaim: node spot0 is taken back in 30s",
                          "stop 3: spot reclaim: node spot0 is taken back in 30s"));
  // Job 2 saves within the warning (10 s); job 3's checkpoint (120 s) cannot end in time: it
  // keeps the work of its last periodic checkpoint and is killed when the node goes.
  EXPECT_EQ(s.job(2).StopTakes(1000 * kSecond), 10 * kSecond);
  EXPECT_EQ(s.job(2).saved_at_stop, s.job(2).RunProgress(1000 * kSecond));
  EXPECT_EQ(s.job(3).StopTakes(1000 * kSecond), 30 * kSecond);
  const Time interval3 = s.job(3).CheckpointInterval();
  ASSERT_GT(interval3, 0);
  EXPECT_EQ(s.job(3).saved_at_stop, s.job(3).RunProgress(1000 * kSecond) / interval3 * interval3);
  EXPECT_FALSE(s.sched().NodeAvailable(1));
  EXPECT_EQ(s.sched().counters().reclaims, 1);
  s.Stop(2, 1010 * kSecond);
  s.Stop(3, 1030 * kSecond);
  // Both wait again; the other spot node takes them. Job 3 had not reached its first periodic
  // checkpoint: it starts over.
  EXPECT_THAT(s.Cycle(1030 * kSecond), ElementsAre(StartsWith("start 2 on spot1:0,1 resume"),
                                                   StartsWith("start 3 on spot1:2,3 overhead=30")));
  EXPECT_EQ(s.job(3).work_done, 0);
  ASSERT_TRUE(s.sched().Returned(1, 5000 * kSecond).ok());
  EXPECT_TRUE(s.sched().NodeAvailable(1));
}

TEST(SpotTest, ANodeReclaimedTwiceInAnHourIsNotUsedForADay) {
  Scenario s(WithSpot(), SpotPolicy());
  ASSERT_TRUE(s.sched().Reclaimed(1, 100 * kSecond, 30 * kSecond).ok());
  ASSERT_TRUE(s.sched().Returned(1, 200 * kSecond).ok());
  EXPECT_TRUE(s.sched().NodeAvailable(1));
  ASSERT_TRUE(s.sched().Reclaimed(1, 1000 * kSecond, 30 * kSecond).ok());
  ASSERT_TRUE(s.sched().Returned(1, 1100 * kSecond).ok());
  EXPECT_FALSE(s.sched().NodeAvailable(1));  // banned until 1000 + 24 h
  EXPECT_EQ(s.sched().NextWakeup(), 1000 * kSecond + 24 * kHour);
  s.Cycle(1000 * kSecond + 24 * kHour);
  EXPECT_TRUE(s.sched().NodeAvailable(1));
  // Naive use does not avoid it.
  Scenario n(WithSpot(), SpotPolicy(false));
  ASSERT_TRUE(n.sched().Reclaimed(1, 100 * kSecond, 30 * kSecond).ok());
  ASSERT_TRUE(n.sched().Reclaimed(1, 1000 * kSecond, 30 * kSecond).ok());
  ASSERT_TRUE(n.sched().Returned(1, 1100 * kSecond).ok());
  EXPECT_TRUE(n.sched().NodeAvailable(1));
}

TEST(SpotTest, TheTimeBetweenReclaimsIsLearned) {
  Scenario s(WithSpot(6 * kHour), SpotPolicy());
  s.Cycle(0);  // both spot nodes in service from 0
  // No reclaim yet: (2 nodes x 1 h in service + the configured 6 h) / 1.
  EXPECT_DOUBLE_EQ(s.sched().MeanTimeBetweenTakes(1, "", kHour), 2 * 3600.0 + 6 * 3600.0);
  ASSERT_TRUE(s.sched().Reclaimed(1, kHour, 30 * kSecond).ok());
  ASSERT_TRUE(s.sched().Reclaimed(2, 2 * kHour, 30 * kSecond).ok());
  // (1 h + 2 h in service + 6 h) / (2 + 1) = 3 h.
  EXPECT_DOUBLE_EQ(s.sched().MeanTimeBetweenTakes(1, "", 2 * kHour), 3 * 3600.0);
  EXPECT_DOUBLE_EQ(s.sched().MeanTimeBetweenTakes(0, "", 2 * kHour), 0);  // not spot
}

// Pool home (one 2-GPU node) and a colocated pool (one 2-GPU node), cap 60%.
ClusterSpec WithInference() {
  ClusterSpec spec = Cluster({{"home", 1, 2}, {"infer", 1, 2}});
  spec.pools[1].kind = PoolKind::kColocated;
  spec.pools[1].colocation.evict_within = kMinute;
  return spec;
}

TEST(ColocateTest, TrainingTakesOnlyGpusInferenceLeavesAndLeavesWhenLoadRises) {
  Scenario s(WithInference(), MakePolicy("fifo", {{"actions", "colocate|allocate"},
                                                  {"learned_estimates", "false"}}));
  s.Add(NewJob(1, 2, 0).Pool("home").Estimate(2 * kHour));
  s.Add(
      NewJob(2, 1, 0).Pool("home").Elastic().CheckpointCost(20 * kSecond).Estimate(600 * kSecond));
  s.Add(NewJob(3, 1, 0).Pool("home").Preemptible().Estimate(600 * kSecond));  // cannot checkpoint
  // Load unknown: colocated GPUs are closed.
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on home0:0,1"));
  ASSERT_TRUE(s.sched().SetInferenceLoad(1, 0, 0.7, 10 * kSecond).ok());   // over 40%: stays closed
  ASSERT_TRUE(s.sched().SetInferenceLoad(1, 1, 0.2, 10 * kSecond).ok());   // open
  const auto lines = s.Cycle(10 * kSecond);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], StartsWith("start 2 on infer0:1 (on inference GPUs of infer:"));
  EXPECT_NEAR(s.last()[0].speed, 0.6, 1e-9);  // it runs at the cap
  EXPECT_EQ(s.sched().counters().colocated_starts, 1);
  // Load rises past 1 - cap: job 2 is asked to leave within 60 s and saves (20 s).
  ASSERT_TRUE(s.sched().SetInferenceLoad(1, 1, 0.55, 100 * kSecond).ok());
  EXPECT_THAT(s.Cycle(100 * kSecond),
              ElementsAre("stop 2: inference needs GPU 1 of node infer0 (load "
                          "55% > 40%): leave within 1m"));
  EXPECT_EQ(s.job(2).StopTakes(100 * kSecond), 20 * kSecond);
  // 90 s at speed 0.6: 54 s of progress, all saved.
  EXPECT_EQ(s.job(2).saved_at_stop, 54 * kSecond);
  s.Stop(2, 120 * kSecond);
  EXPECT_THAT(s.Cycle(120 * kSecond), IsEmpty());  // both inference GPUs are closed now
  EXPECT_EQ(s.sched().counters().inference_evictions, 1);
  EXPECT_FALSE(s.sched().SetInferenceLoad(0, 0, 0.5, 130 * kSecond).ok());  // not a colocated node
  EXPECT_FALSE(s.sched().SetInferenceLoad(1, 5, 0.5, 130 * kSecond).ok());  // no such GPU
  EXPECT_FALSE(s.sched().SetInferenceLoad(1, 0, 1.5, 130 * kSecond).ok());  // not a share
}

}  // namespace
}  // namespace squeeze
