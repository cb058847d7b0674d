// Scenario tests of the preempt action: who may evict whom, the victim that loses the least
// work, and how the victim's work and restart overhead are accounted when it runs again.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::AnyOf;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;

Policy Preempting(std::initializer_list<std::pair<std::string, std::string>> more = {}) {
  Policy p = MakePolicy("fifo", {{"priority", "true"}, {"actions", "allocate|preempt"}});
  for (const auto& [k, v] : more) EXPECT_TRUE(SetPolicyOption(p, k, v).ok()) << k;
  return p;
}

TEST(PreemptTest, MoreUrgentJobEvictsLessUrgentPreemptibleOne) {
  Scenario s(Cluster({{"a", 1, 4}}), Preempting());
  s.Add(NewJob(1, 4, 0).Urgency(Urgency::kLow).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3"));
  s.Add(NewJob(2, 4, 10 * kSecond).Urgency(Urgency::kHigh));
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("stop 1: preempted for 2"));
  EXPECT_EQ(s.job(1).state, JobState::kCheckpointing);
  EXPECT_THAT(s.Cycle(15 * kSecond), IsEmpty());  // 1 still checkpoints and holds its GPUs
  s.Stop(1, 20 * kSecond);
  EXPECT_THAT(s.Cycle(20 * kSecond), ElementsAre("start 2 on a0:0,1,2,3"));
  const Job& victim = s.job(1);
  EXPECT_EQ(victim.state, JobState::kPending);
  EXPECT_EQ(victim.work_done, 10 * kSecond);  // saved when asked to stop, not when it stopped
  EXPECT_EQ(victim.preemptions, 1);
  EXPECT_EQ(s.sched().counters().preemptions, 1);
  // The victim resumes from its checkpoint and pays the restart overhead (4 GPUs: 30 s).
  s.Finish(2, 110 * kSecond);
  EXPECT_THAT(s.Cycle(110 * kSecond), ElementsAre("start 1 on a0:0,1,2,3 resume overhead=30"));
  EXPECT_EQ(s.job(1).total_wait, 90 * kSecond);
  EXPECT_EQ(s.job(1).RunProgress(200 * kSecond), 60 * kSecond);
}

TEST(PreemptTest, NeverEvictsANonPreemptibleJob) {
  Scenario s(Cluster({{"a", 1, 4}}), Preempting());
  s.Add(NewJob(1, 4, 0).Urgency(Urgency::kLow).Checkpointable());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3"));
  s.Add(NewJob(2, 4, 10 * kSecond).Urgency(Urgency::kCritical));
  EXPECT_THAT(s.Settle(10 * kSecond), IsEmpty());
}

TEST(PreemptTest, NeverEvictsAJobOfEqualUrgency) {
  Scenario s(Cluster({{"a", 1, 4}}), Preempting());
  s.Add(NewJob(1, 4, 0).Urgency(Urgency::kHigh).Elastic().Estimate(1000 * kSecond));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3"));
  s.Add(NewJob(2, 4, 10 * kSecond).Urgency(Urgency::kHigh).Estimate(5 * kSecond));
  EXPECT_THAT(s.Settle(10 * kSecond), IsEmpty());
}

TEST(PreemptTest, PreemptByOrderEvictsAJobTheOrderRanksBelow) {
  Scenario s(Cluster({{"a", 1, 4}}),
             Preempting({{"job_order", "sjf"}, {"preempt_by_order", "true"}}));
  s.Add(NewJob(1, 4, 0).Elastic().Estimate(1000 * kSecond));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3"));
  s.Add(NewJob(2, 4, 10 * kSecond).Elastic().Estimate(50 * kSecond));
  EXPECT_THAT(s.Settle(10 * kSecond),
              ElementsAre("stop 1: preempted for 2", "start 2 on a0:0,1,2,3"));
  // A longer job does not evict the shorter one.
  s.Add(NewJob(3, 4, 20 * kSecond).Estimate(500 * kSecond));
  EXPECT_THAT(s.Settle(20 * kSecond), IsEmpty());
}

TEST(PreemptTest, PreemptKeyRatioSparesJobsOfAboutTheSameRank) {
  Scenario s(Cluster({{"a", 1, 4}}), Preempting({{"job_order", "sjf"},
                                                 {"preempt_by_order", "true"},
                                                 {"preempt_key_ratio", "30"}}));
  s.Add(NewJob(1, 4, 0).Elastic().Estimate(1000 * kSecond));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3"));
  s.Add(NewJob(2, 4, 10 * kSecond).Estimate(50 * kSecond));  // 1000 < 30 * 50
  EXPECT_THAT(s.Settle(10 * kSecond), IsEmpty());
  s.Add(NewJob(3, 4, 11 * kSecond).Estimate(20 * kSecond));  // 1000 >= 30 * 20
  EXPECT_THAT(s.Settle(11 * kSecond),
              ElementsAre("stop 1: preempted for 3", "start 3 on a0:0,1,2,3"));
}

TEST(PreemptTest, HonoursMinRuntime) {
  Scenario s(Cluster({{"a", 1, 4}}), Preempting({{"min_runtime", "300"}}));
  s.Add(NewJob(1, 4, 0).Urgency(Urgency::kLow).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3"));
  EXPECT_EQ(s.job(1).min_runtime_until, 300 * kSecond);
  s.Add(NewJob(2, 4, 100 * kSecond).Urgency(Urgency::kHigh));
  EXPECT_THAT(s.Cycle(100 * kSecond), IsEmpty());
  EXPECT_THAT(s.Cycle(299 * kSecond), IsEmpty());
  EXPECT_THAT(s.Cycle(300 * kSecond), ElementsAre("stop 1: preempted for 2"));
}

// a0 and a1 hold one 4-GPU low-urgency job each; a high-urgency job needs one node.
class VictimTest : public ::testing::Test {
 protected:
  VictimTest() : s_(Cluster({{"a", 2, 4}}), Preempting()) {}
  void Start(const JobSpec& on_a0, const JobSpec& on_a1) {
    s_.Add(on_a0);
    s_.Add(on_a1);
    EXPECT_THAT(s_.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3", "start 2 on a1:0,1,2,3"));
    s_.Add(NewJob(3, 4, 1000 * kSecond).Urgency(Urgency::kHigh));
  }
  Scenario s_;
};

TEST_F(VictimTest, CheckpointableJobLosesLessThanOneThatCannotSave) {
  Start(NewJob(1, 4, 0).Urgency(Urgency::kLow).Preemptible(),
        NewJob(2, 4, 0).Urgency(Urgency::kLow).Elastic());
  EXPECT_THAT(s_.Settle(1000 * kSecond),
              ElementsAre("stop 2: preempted for 3", "start 3 on a1:0,1,2,3"));
  EXPECT_EQ(s_.job(2).work_done, 1000 * kSecond);
}

TEST_F(VictimTest, PeriodicCheckpointBeatsAnExpensiveCheckpoint) {
  // Job 1 saved at 900 and loses 100 s + 30 s restart; job 2 would need a 200 s checkpoint.
  Start(NewJob(1, 4, 0).Urgency(Urgency::kLow).Preemptible().CheckpointEvery(300 * kSecond),
        NewJob(2, 4, 0).Urgency(Urgency::kLow).Elastic().CheckpointCost(200 * kSecond));
  EXPECT_DOUBLE_EQ(s_.job(1).LostGpuSecondsIfStopped(1000 * kSecond), 520.0);
  EXPECT_DOUBLE_EQ(s_.job(2).LostGpuSecondsIfStopped(1000 * kSecond), 920.0);
  EXPECT_THAT(s_.Settle(1000 * kSecond),
              ElementsAre("stop 1: preempted for 3", "start 3 on a0:0,1,2,3"));
  EXPECT_EQ(s_.job(1).work_done, 900 * kSecond);
  s_.Finish(2, 1100 * kSecond);
  EXPECT_THAT(s_.Cycle(1100 * kSecond), ElementsAre("start 1 on a1:0,1,2,3 resume overhead=30"));
}

TEST_F(VictimTest, JobThatCannotSaveRestartsFromScratch) {
  Start(NewJob(1, 4, 0).Urgency(Urgency::kLow).Preemptible(),
        NewJob(2, 4, 0).Urgency(Urgency::kLow));
  EXPECT_THAT(s_.Settle(1000 * kSecond),
              ElementsAre("stop 1: preempted for 3", "start 3 on a0:0,1,2,3"));
  EXPECT_EQ(s_.job(1).work_done, 0);
  s_.Finish(2, 1100 * kSecond);
  EXPECT_THAT(s_.Cycle(1100 * kSecond), ElementsAre("start 1 on a1:0,1,2,3 overhead=30"));
}

TEST(RestartOverheadTest, DefaultsByGpuCount) {
  EXPECT_EQ(DefaultRestartOverhead(1), 7 * kSecond);
  EXPECT_EQ(DefaultRestartOverhead(2), 30 * kSecond);
  EXPECT_EQ(DefaultRestartOverhead(8), 30 * kSecond);
  EXPECT_EQ(DefaultRestartOverhead(9), 60 * kSecond);
  EXPECT_EQ(DefaultRestartOverhead(64), 60 * kSecond);
  EXPECT_EQ(RestartOverhead(NewJob(1, 16).Overhead(45 * kSecond)), 45 * kSecond);
}

// The overhead of a resumed job, by its size: 1 GPU, 16 GPUs, and one it states itself.
std::string Resume(const ClusterSpec& cluster, const JobSpec& victim) {
  Scenario s(cluster, Preempting());
  s.Add(victim);
  s.Cycle(0);
  JobSpec urgent = NewJob(99, victim.gpus, 10 * kSecond).Urgency(Urgency::kHigh);
  s.Add(urgent);
  s.Settle(10 * kSecond);
  s.Finish(99, 20 * kSecond);
  auto lines = s.Cycle(20 * kSecond);
  if (lines.size() == 1) return lines[0];
  std::string count = std::to_string(lines.size());
  return count.append(" decisions");
}

TEST(RestartOverheadTest, ChargedOnTheNextStart) {
  EXPECT_EQ(Resume(Cluster({{"a", 1, 1}}), NewJob(1, 1).Urgency(Urgency::kLow).Elastic()),
            "start 1 on a0:0 resume overhead=7");
  EXPECT_EQ(Resume(Cluster({{"a", 2, 8}}), NewJob(1, 16).Urgency(Urgency::kLow).Elastic()),
            "start 1 on a0:0,1,2,3,4,5,6,7 a1:0,1,2,3,4,5,6,7 resume overhead=60");
  EXPECT_EQ(Resume(Cluster({{"a", 1, 2}}),
                   NewJob(1, 2).Urgency(Urgency::kLow).Elastic().Overhead(45 * kSecond)),
            "start 1 on a0:0,1 resume overhead=45");
}

TEST(PreemptTest, FractionalJobEvictsTheJobSharingItsGpu) {
  Scenario s(Cluster({{"a", 1, 1}}), Preempting());
  s.Add(NewJob(1, 1, 0).Milli(600).Urgency(Urgency::kLow).Elastic());
  s.Add(NewJob(2, 1, 0).Milli(300));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 2 on a0:0 milli=300", "start 1 on a0:0 milli=600"));
  s.Add(NewJob(3, 1, 10 * kSecond).Milli(500).Urgency(Urgency::kHigh));
  EXPECT_THAT(s.Settle(10 * kSecond),
              ElementsAre("stop 1: preempted for 3", "start 3 on a0:0 milli=500"));
  s.Add(NewJob(4, 1, 20 * kSecond).Milli(100).Urgency(Urgency::kHigh));
  // It fits: no victim.
  EXPECT_THAT(s.Settle(20 * kSecond), ElementsAre("start 4 on a0:0 milli=100"));
}

// A victim is stopped only for a job that can then start. Here the critical job 3 is blocked
// for good (job 1 cannot be preempted) and, strict, blocks the pool: if job 2 is evicted for
// job 4, job 4 must start on the GPUs it freed, not leave them idle.
TEST(PreemptTest, VictimIsNotStoppedForAJobThatStillCannotStart) {
  Scenario s(Cluster({{"a", 1, 8}}), Preempting());
  s.Add(NewJob(1, 4, 0));
  s.Add(NewJob(2, 4, 0).Urgency(Urgency::kLow).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3", "start 2 on a0:4,5,6,7"));
  s.Add(NewJob(3, 8, 10 * kSecond).Urgency(Urgency::kCritical));
  s.Add(NewJob(4, 4, 10 * kSecond).Urgency(Urgency::kHigh));
  EXPECT_THAT(s.Settle(10 * kSecond),
              AnyOf(IsEmpty(), ElementsAre("stop 2: preempted for 4", "start 4 on a0:4,5,6,7")));
  EXPECT_EQ(s.sched().cluster().FreeMilli(), 0) << "GPUs idle after a preemption";
}

// Victims are evicted tentatively and the waiting job placed (a Statement): they are stopped
// only when it then fits, CPU and memory included.
TEST(PreemptTest, NoEvictionWhenTheFreedGpusLeaveTheJobShortOfCpu) {
  Scenario s(Cluster({{"a", 1, 4, "gpu", 8000}}), Preempting());
  s.Add(NewJob(1, 2, 0).Urgency(Urgency::kLow).Elastic().Cpu(1000));
  s.Add(NewJob(2, 2, 0).Cpu(6000));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 2 on a0:0,1", "start 1 on a0:2,3"));
  s.Add(NewJob(3, 2, 10 * kSecond).Urgency(Urgency::kHigh).Cpu(4000));  // 2,000 CPUs would be free
  EXPECT_THAT(s.Settle(10 * kSecond), IsEmpty());
  EXPECT_EQ(s.job(1).state, JobState::kRunning);
  s.Add(NewJob(4, 2, 20 * kSecond).Urgency(Urgency::kHigh).Cpu(2000));
  EXPECT_THAT(s.Settle(20 * kSecond), ElementsAre("stop 1: preempted for 4", "start 4 on a0:2,3"));
}

TEST(PreemptTest, TheNextCheapestVictimsAreTriedWhenTheCheapestLeaveTheJobShort) {
  Scenario s(Cluster({{"a", 2, 4, "gpu", 8000}}), Preempting());
  s.Add(NewJob(2, 2, 0).Cpu(6000));
  s.Add(NewJob(6, 2, 0).Cpu(4000));
  s.Add(NewJob(1, 2, 0).Urgency(Urgency::kLow).Elastic().Cpu(1000));
  s.Add(NewJob(5, 2, 0).Urgency(Urgency::kLow).Preemptible());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 2 on a0:0,1", "start 6 on a1:0,1",
                                      "start 1 on a0:2,3", "start 5 on a1:2,3"));
  // Job 1 (checkpoints) loses least, but a0 keeps too few CPUs; job 5 (loses its run) on a1
  // is the one whose stop lets job 3 start.
  s.Add(NewJob(3, 2, 100 * kSecond).Urgency(Urgency::kHigh).Cpu(4000));
  EXPECT_LT(s.job(1).LostGpuSecondsIfStopped(100 * kSecond),
            s.job(5).LostGpuSecondsIfStopped(100 * kSecond));
  EXPECT_THAT(s.Settle(100 * kSecond), ElementsAre("stop 5: preempted for 3", "start 3 on a1:2,3"));
}

TEST(PreemptTest, NoEvictionWhenTheJobWouldStillBeShortOfMemory) {
  Scenario s(Cluster({{"a", 1, 4, "gpu", 0, 65536}}), Preempting());
  s.Add(NewJob(1, 2, 0).Urgency(Urgency::kLow).Elastic().Memory(8192));
  s.Add(NewJob(2, 2, 0).Memory(49152));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 2 on a0:0,1", "start 1 on a0:2,3"));
  // 16,384 MiB would be free.
  s.Add(NewJob(3, 2, 10 * kSecond).Urgency(Urgency::kHigh).Memory(32768));
  EXPECT_THAT(s.Settle(10 * kSecond), IsEmpty());
}

// A reservation is not a reason to evict nothing: the room preempt makes is claimed before the
// cycle's reservations are made, so job 4 (behind the blocked job 3, which holds a0 by its
// reservation) does evict job 2, and starts there.
TEST(PreemptTest, AReservationAheadDoesNotKeepAPreemptorOff) {
  Scenario s(Cluster({{"a", 1, 4}}), Preempting({{"actions", "allocate|backfill|preempt"}}));
  s.Add(NewJob(1, 2, 0).Estimate(100 * kSecond));
  s.Add(NewJob(2, 2, 0).Urgency(Urgency::kLow).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1", "start 2 on a0:2,3"));
  s.Add(NewJob(3, 4, 10 * kSecond));
  s.Add(NewJob(4, 2, 11 * kSecond));
  EXPECT_THAT(s.Settle(20 * kSecond), ElementsAre("stop 2: preempted for 4", "start 4 on a0:2,3"));
}

TEST(PreemptTest, CancelledVictimLetsThePreemptorStart) {
  Scenario s(Cluster({{"a", 1, 4}}), Preempting());
  s.Add(NewJob(1, 4, 0).Urgency(Urgency::kLow).Elastic().CheckpointCost(60 * kSecond));
  s.Cycle(0);
  s.Add(NewJob(2, 4, 10 * kSecond).Urgency(Urgency::kHigh));
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("stop 1: preempted for 2"));
  auto cancelled = s.sched().Cancel(1, 30 * kSecond);
  ASSERT_TRUE(cancelled.ok());
  EXPECT_EQ(cancelled->state, JobState::kCancelled);
  EXPECT_THAT(s.Cycle(30 * kSecond), ElementsAre("start 2 on a0:0,1,2,3"));
}

}  // namespace
}  // namespace squeeze

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;

// Two victims that would lose as much (both checkpoint on demand): where the driver reports
// checkpoints, the one with less work since its last checkpoint is stopped; without reports
// (the simulator), the tie goes to the lower id as before.
TEST(PreemptCheckpointTest, AmongEqualVictimsTheFreshestCheckpointIsStopped) {
  Policy p = MakePolicy("fifo", {{"priority", "true"}, {"actions", "allocate|preempt"}});
  for (bool reported : {false, true}) {
    Scenario s(Cluster({{"a", 1, 2}}), p);
    s.Add(NewJob(1, 1, 0).Urgency(Urgency::kLow).Elastic());
    s.Add(NewJob(2, 1, 0).Urgency(Urgency::kLow).Elastic());
    EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0", "start 2 on a0:1"));
    if (reported) {
      ASSERT_TRUE(s.sched().Checkpointed(1, 50 * kSecond).ok());
      ASSERT_TRUE(s.sched().Checkpointed(2, 90 * kSecond).ok());
    }
    s.Add(NewJob(3, 1, 100 * kSecond).Urgency(Urgency::kHigh));
    EXPECT_THAT(s.Cycle(100 * kSecond),
                ElementsAre(reported ? "stop 2: preempted for 3" : "stop 1: preempted for 3"));
  }
  Scenario s(Cluster({{"a", 1, 2}}), p);
  s.Add(NewJob(1, 1, 0));
  EXPECT_FALSE(s.sched().Checkpointed(1, 0).ok());  // waiting, not running
  EXPECT_FALSE(s.sched().Checkpointed(9, 0).ok());
}

}  // namespace
}  // namespace squeeze
