// Scenario tests of elastic jobs (core/elastic.h) and the shrink and grow actions: a job of a
// range starts on what is free, is shrunk at a checkpoint for a waiting job that ranks ahead of
// it, grows back into idle GPUs, and its work counts at its reference width.
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

Scaling Amdahl(double p) {
  Scaling s;
  s.kind = Scaling::Kind::kAmdahl;
  s.parallel = p;
  return s;
}

TEST(ElasticTest, StartsOnWhatIsFreeAndAtLeastItsMinimum) {
  Scenario s(Cluster({{"a", 1, 8}}), "fifo+grow");
  s.Add(NewJob(1, 5, 0));
  s.Add(NewJob(2, 1, 0).Range(4, 8));  // 3 GPUs free: fewer than its minimum
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3,4"));
  EXPECT_EQ(s.job(2).state, JobState::kPending);
  EXPECT_EQ(s.job(2).spec.gpus, 4);  // it waits for its minimum
  s.Finish(1, 10 * kSecond);
  // All 8 free: it starts on all of them at once, not on its minimum and then a resize.
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("start 2 on a0:0,1,2,3,4,5,6,7"));
  EXPECT_EQ(s.job(2).spec.gpus, 8);
  EXPECT_EQ(s.job(2).resizes, 0);
  EXPECT_EQ(s.sched().counters().widened_starts, 1);
  EXPECT_EQ(s.sched().cluster().FreeMilli(), 0);
}

TEST(ElasticTest, IdleGpusGoWhereTheyRaiseThroughputMost) {
  // Two elastic jobs start together on 8 GPUs: with Amdahl scaling each more GPU gains more on
  // the narrower job, so they share them 4 and 4 (ties go to the job ranked first).
  Scenario s(Cluster({{"a", 1, 8}}), "fifo+grow");
  s.Add(NewJob(1, 1, 0).Range(1, 8).Scales(Amdahl(0.9)));
  s.Add(NewJob(2, 1, 0).Range(1, 8).Scales(Amdahl(0.9)));
  s.Cycle(0);
  EXPECT_EQ(s.job(1).spec.gpus, 4);
  EXPECT_EQ(s.job(2).spec.gpus, 4);
  EXPECT_EQ(s.sched().cluster().FreeMilli(), 0);
}

// One node of 8: elastic job 1 (2-8 GPUs, linear, 100000 s of work at 8 GPUs) runs alone on
// all 8; job 2 (4 GPUs, fixed) arrives at 1000 and LAS ranks it ahead (it has had no service).
void ShrinkForJob2(Scenario& s) {
  s.Add(NewJob(1, 1, 0).Range(2, 8).Estimate(100000 * kSecond));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3,4,5,6,7"));
  s.Add(NewJob(2, 4, 1000 * kSecond).Estimate(1000 * kSecond));
  EXPECT_THAT(s.Cycle(1000 * kSecond), ElementsAre("stop 1: shrunk from 8 to 4 GPUs for job 2"));
  EXPECT_EQ(s.job(1).state, JobState::kCheckpointing);
  s.Stop(1, 1000 * kSecond);
  EXPECT_THAT(s.Cycle(1000 * kSecond), ElementsAre("start 1 on a0:0,1,2,3 resume overhead=30",
                                                   "start 2 on a0:4,5,6,7"));
}

TEST(ElasticTest, ShrinksAtACheckpointSoThatAWaitingJobStartsAtOnce) {
  Scenario s(Cluster({{"a", 1, 8}}), MakePolicy("las+shrink+grow", {{"min_runtime", "0"}}));
  ShrinkForJob2(s);
  const Job& one = s.job(1);
  EXPECT_EQ(one.spec.gpus, 4);
  EXPECT_EQ(one.work_done, 1000 * kSecond);  // the checkpoint kept all of it
  EXPECT_EQ(one.resizes, 1);
  EXPECT_EQ(one.preemptions, 0);  // a resize is not a preemption
  EXPECT_EQ(one.resize_reason, "shrunk from 8 to 4 GPUs for job 2");
  EXPECT_EQ(one.run_speed_milli, 500);  // linear: half the GPUs, half the speed
  EXPECT_EQ(s.sched().counters().resizes, 1);
  EXPECT_EQ(s.sched().counters().shrinks, 1);
  EXPECT_EQ(s.sched().counters().preemptions, 0);
}

TEST(ElasticTest, GrowsBackIntoIdleGpusAndCountsItsTimeAtEachWidth) {
  Scenario s(Cluster({{"a", 1, 8}}), MakePolicy("las+shrink+grow", {{"min_runtime", "0"}}));
  ShrinkForJob2(s);
  s.Finish(2, 2030 * kSecond);
  EXPECT_THAT(s.Cycle(2030 * kSecond), ElementsAre("stop 1: grown from 4 to 8 GPUs into idle GPUs"));
  s.Stop(1, 2030 * kSecond);
  EXPECT_THAT(s.Cycle(2030 * kSecond),
              ElementsAre("start 1 on a0:0,1,2,3,4,5,6,7 resume overhead=30"));
  const Job& one = s.job(1);
  // 1000 s at 8 GPUs, then 30 s of restart and 1000 s at half speed.
  EXPECT_EQ(one.work_done, 1500 * kSecond);
  EXPECT_EQ(one.resizes, 2);
  EXPECT_THAT(one.time_at_width, ElementsAre(std::pair<const int, Time>(4, 1030 * kSecond),
                                             std::pair<const int, Time>(8, 1000 * kSecond)));
  EXPECT_EQ(s.sched().counters().shrinks, 1);
}

TEST(ElasticTest, NoResizeForAJobRankedBehindNorBelowTheMinimum) {
  {
    SCOPED_TRACE("fifo: the waiting job ranks behind");
    Scenario s(Cluster({{"a", 1, 8}}), "fifo+shrink+grow");
    s.Add(NewJob(1, 1, 0).Range(2, 8));
    s.Cycle(0);
    s.Add(NewJob(2, 4, 10 * kSecond));
    EXPECT_THAT(s.Cycle(10 * kSecond), IsEmpty());
  }
  {
    SCOPED_TRACE("the minimum frees too little: nothing changes");
    Scenario s(Cluster({{"a", 1, 8}}), MakePolicy("las+shrink+grow", {{"min_runtime", "0"}}));
    s.Add(NewJob(1, 1, 0).Range(6, 8).Estimate(100000 * kSecond));
    s.Cycle(0);
    s.Add(NewJob(2, 4, 1000 * kSecond));
    // Shrinking to 6 frees 2 of the 4 needed; LAS's preemption then stops the whole job.
    EXPECT_THAT(s.Cycle(1000 * kSecond), ElementsAre("stop 1: preempted for 2"));
    EXPECT_EQ(s.job(1).resizes, 0);
  }
}

TEST(ElasticTest, ResizesPerHourAreLimited) {
  Scenario s(Cluster({{"a", 1, 8}}),
             MakePolicy("las+shrink+grow", {{"min_runtime", "0"}, {"elastic_resizes_per_hour", "1"}}));
  ShrinkForJob2(s);
  s.Finish(2, 2030 * kSecond);
  EXPECT_THAT(s.Cycle(2030 * kSecond), IsEmpty());  // its one resize of the hour is spent
  EXPECT_THAT(s.Cycle(1000 * kSecond + kHour + kSecond),
              ElementsAre("stop 1: grown from 4 to 8 GPUs into idle GPUs"));
}

TEST(ElasticTest, WiderThanItsReferenceItRunsFaster) {
  // 2 GPUs is what its estimate is for; on 4, linear, it does twice the work per second.
  Scenario s(Cluster({{"a", 1, 4}}), "fifo+grow");
  s.Add(NewJob(1, 1, 0).Range(1, 4, 2).Estimate(1000 * kSecond));
  s.Cycle(0);
  EXPECT_EQ(s.job(1).spec.gpus, 4);
  EXPECT_EQ(s.job(1).run_speed_milli, 2000);
  EXPECT_DOUBLE_EQ(s.last().at(0).speed, 2.0);
  EXPECT_EQ(s.job(1).EstimatedEnd(), 500 * kSecond);  // 1000 s of work at twice the speed
}

TEST(ElasticTest, MeasuredRatesReplaceTheModel) {
  Scenario s(Cluster({{"a", 1, 8}}), "fifo+grow");
  s.Add(NewJob(1, 1, 0).Range(1, 8).Estimate(1000 * kSecond));
  s.Cycle(0);
  EXPECT_FALSE(s.sched().ReportRate(1, -3).ok());
  EXPECT_FALSE(s.sched().ReportRate(9, 10).ok());
  ASSERT_TRUE(s.sched().ReportRate(1, 600).ok());  // at 8 GPUs
  const Job& one = s.job(1);
  // 600 samples/s measured at 8; 4 GPUs by the linear model from there: 300, half as fast.
  EXPECT_DOUBLE_EQ(ElasticSpeed(one.spec.elastic, one.measured_rates, 4), 0.5);
  s.Add(NewJob(2, 1, 0));
  EXPECT_FALSE(s.sched().ReportRate(2, 10).ok());  // waiting, and not elastic
}

TEST(ElasticTest, AJobThatDoesNotCheckpointIsSizedAtItsStartOnly) {
  // Slurm's moldable jobs (--nodes=2-4): the width free at the start, never a resize.
  Scenario s(Cluster({{"a", 1, 8}}), MakePolicy("las+shrink+grow", {{"min_runtime", "0"}}));
  JobSpec moldable = NewJob(1, 1, 0).Range(2, 8).Estimate(100000 * kSecond);
  moldable.checkpointable = false;
  s.Add(moldable);
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3,4,5,6,7"));
  s.Add(NewJob(2, 4, 1000 * kSecond));
  EXPECT_THAT(s.Cycle(1000 * kSecond), ElementsAre("stop 1: preempted for 2"));  // no shrink
  EXPECT_EQ(s.job(1).resizes, 0);
}

TEST(ElasticTest, SubmitRefusesWhatCannotBeElastic) {
  Scenario s(Cluster({{"a", 1, 8}}), "fifo+grow");
  JobSpec fraction = NewJob(2, 1, 0).Range(1, 2).Milli(500);
  EXPECT_THAT(s.Submit(fraction).message(), ::testing::HasSubstr("whole GPUs"));
  JobSpec backwards = NewJob(3, 1, 0).Range(6, 4);
  EXPECT_THAT(s.Submit(backwards).message(), ::testing::HasSubstr("1 <= min <= max"));
  JobSpec too_wide = NewJob(4, 1, 0).Range(9, 12);  // its minimum fits no node group
  EXPECT_FALSE(s.Submit(too_wide).ok());
  EXPECT_TRUE(s.Submit(NewJob(5, 1, 0).Range(2, 64)).ok());  // only the minimum must fit
}

}  // namespace
}  // namespace squeeze
