// Scenario tests of the defrag action: a job blocked only by fragmentation gets room made for
// it by moving checkpointable, preemptible jobs, when the wait it saves outweighs what the
// moves lose, never moving a job more often than the policy allows, and saying why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::Cluster;
using testing::JobBuilder;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;

constexpr char kMoveJob1[] =
    "stop 1: defrag: move to consolidate 4 GPUs for job 4 (gain 39600 GPU-s > cost 60 GPU-s)";

// Two nodes of 4 GPUs, jobs 1 (on a0) and 3 (on a1) of 2 GPUs each (job 2 fills a0 at first so
// that 3 lands on a1); job 4 (4 GPUs) arrives at 100 and waits: 4 GPUs are free, 2 on each node.
void SplitFreeGpus(Scenario& s, const JobSpec& one, const JobSpec& three) {
  s.Add(one);
  s.Add(NewJob(2, 2, 0));
  s.Add(three);
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1", "start 2 on a0:2,3",
                                      "start 3 on a1:0,1"));
  s.Finish(2, 50 * kSecond);
  s.Add(NewJob(4, 4, 100 * kSecond));
}

// Checkpointable and preemptible, expected to run until 10000.
JobBuilder Movable(JobId id) { return NewJob(id, 2, 0).Elastic().Estimate(10000 * kSecond); }

TEST(DefragTest, MovesOneJobSoThatTheBlockedJobStarts) {
  Scenario s(Cluster({{"a", 2, 4}}), "fifo+defrag");
  SplitFreeGpus(s, Movable(1), Movable(3));
  // Waiting until 10000 would cost job 4 (10000 - 100) x 4 GPU-s; moving job 1 costs its
  // restart, 30 s x 2 GPUs (it is checkpointable and its checkpoint takes no time).
  EXPECT_THAT(s.Cycle(100 * kSecond), ElementsAre(kMoveJob1));
  EXPECT_EQ(s.job(1).state, JobState::kCheckpointing);
  s.Stop(1, 100 * kSecond);
  EXPECT_THAT(s.Cycle(100 * kSecond),
              ElementsAre("start 1 on a1:2,3 resume overhead=30", "start 4 on a0:0,1,2,3"));
  const Job& moved = s.job(1);
  EXPECT_EQ(moved.state, JobState::kRunning);
  EXPECT_EQ(moved.work_done, 100 * kSecond);
  EXPECT_EQ(moved.moves, 1);
  EXPECT_EQ(moved.preemptions, 0);
  EXPECT_EQ(moved.total_wait, 0);
  EXPECT_EQ(s.sched().counters().defrag_moves, 1);
  EXPECT_EQ(s.sched().counters().preemptions, 0);
  EXPECT_EQ(s.sched().cluster().FreeMilli(), 0);
}

TEST(DefragTest, OnlyCheckpointablePreemptibleJobsMove) {
  for (bool checkpointable : {false, true}) {
    SCOPED_TRACE(checkpointable ? "checkpointable, not preemptible" : "preemptible only");
    Scenario s(Cluster({{"a", 2, 4}}), "fifo+defrag");
    auto job = [&](JobId id) {
      JobBuilder b = NewJob(id, 2, 0).Estimate(10000 * kSecond);
      return JobSpec(checkpointable ? b.Checkpointable() : b.Preemptible());
    };
    SplitFreeGpus(s, job(1), job(3));
    EXPECT_THAT(s.Settle(100 * kSecond), IsEmpty());
    EXPECT_EQ(s.job(4).state, JobState::kPending);
  }
}

TEST(DefragTest, NoMoveWhenTheCostExceedsTheGain) {
  // Job 3 is expected to end at 160: waiting costs job 4 60 s x 4 GPUs = 240 GPU-s, and either
  // move 150 s of restart x 2 GPUs = 300 GPU-s.
  Scenario s(Cluster({{"a", 2, 4}}), "fifo+defrag");
  SplitFreeGpus(s, Movable(1).Overhead(150 * kSecond),
                Movable(3).Overhead(150 * kSecond).Estimate(160 * kSecond));
  EXPECT_THAT(s.Settle(100 * kSecond), IsEmpty());
  s.Finish(3, 160 * kSecond);
  EXPECT_THAT(s.Cycle(160 * kSecond), ElementsAre("start 4 on a1:0,1,2,3"));
}

TEST(DefragTest, NoMoveWhenTooFewGpusAreFree) {
  // 3 GPUs free for a 4-GPU job: it waits for capacity, not for a better arrangement.
  Scenario s(Cluster({{"a", 2, 4}}), "fifo+defrag");
  s.Add(Movable(1));
  s.Add(NewJob(2, 2, 0));
  s.Add(NewJob(3, 3, 0).Elastic().Estimate(10000 * kSecond));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1", "start 2 on a0:2,3",
                                      "start 3 on a1:0,1,2"));
  s.Finish(2, 50 * kSecond);
  s.Add(NewJob(4, 4, 100 * kSecond));
  EXPECT_THAT(s.Settle(100 * kSecond), IsEmpty());
}

TEST(DefragTest, NoMoveWithoutAnExpectedEnd) {
  // Without estimates (and nothing learned) the wait saved is unknown: nothing moves.
  Scenario s(Cluster({{"a", 2, 4}}), "fifo+defrag");
  SplitFreeGpus(s, NewJob(1, 2, 0).Elastic(), NewJob(3, 2, 0).Elastic());
  EXPECT_THAT(s.Settle(100 * kSecond), IsEmpty());
}

TEST(DefragTest, WithoutTheModifierNothingMoves) {
  Scenario s(Cluster({{"a", 2, 4}}), "fifo");
  SplitFreeGpus(s, Movable(1), Movable(3));
  EXPECT_THAT(s.Settle(100 * kSecond), IsEmpty());
}

// After job 1 was moved at 100 and job 4 ended, job 5 (not movable) holds half of a0 and job 3
// ends: job 6 (4 GPUs) is blocked by fragmentation again, and only job 1 could move.
void FragmentAgain(Scenario& s) {
  SplitFreeGpus(s, Movable(1), Movable(3));
  EXPECT_THAT(
      s.Settle(100 * kSecond),
      ElementsAre(kMoveJob1, "start 1 on a1:2,3 resume overhead=30", "start 4 on a0:0,1,2,3"));
  s.Finish(4, 200 * kSecond);
  s.Add(NewJob(5, 2, 200 * kSecond).Estimate(20000 * kSecond));
  EXPECT_THAT(s.Cycle(200 * kSecond), ElementsAre("start 5 on a0:0,1"));
  s.Finish(3, 300 * kSecond);
  s.Add(NewJob(6, 4, 300 * kSecond));
}

TEST(DefragTest, AJobIsMovedAtMostOncePerHour) {
  Scenario s(Cluster({{"a", 2, 4}}), "fifo+defrag");
  FragmentAgain(s);
  EXPECT_THAT(s.Settle(300 * kSecond), IsEmpty());
  EXPECT_THAT(s.Settle(3699 * kSecond), IsEmpty());
  // An hour after its move job 1 may move again (it is expected to end at 10030).
  EXPECT_THAT(s.Settle(3700 * kSecond),
              ElementsAre("stop 1: defrag: move to consolidate 4 GPUs for job 6 (gain 25320 GPU-s "
                          "> cost 60 GPU-s)",
                          "start 1 on a0:2,3 resume overhead=30", "start 6 on a1:0,1,2,3"));
  EXPECT_EQ(s.job(1).moves, 2);
  EXPECT_THAT(s.job(1).move_times, ElementsAre(3700 * kSecond));
}

TEST(DefragTest, MaxMovesPerHourIsAPolicyOption) {
  Scenario s(Cluster({{"a", 2, 4}}),
             MakePolicy("fifo+defrag", {{"defrag_max_moves_per_hour", "2"}}));
  FragmentAgain(s);
  EXPECT_THAT(s.Settle(300 * kSecond),
              ElementsAre("stop 1: defrag: move to consolidate 4 GPUs for job 6 (gain 38920 GPU-s "
                          "> cost 60 GPU-s)",
                          "start 1 on a0:2,3 resume overhead=30", "start 6 on a1:0,1,2,3"));
  EXPECT_THAT(s.job(1).move_times, ElementsAre(100 * kSecond, 300 * kSecond));
}

// While the moved job checkpoints, the GPUs it is to leave and those already free on its node
// are kept for the blocked job: a greedy allocation does not give them to a newcomer.
TEST(DefragTest, TheRoomIsHeldWhileTheMovedJobCheckpoints) {
  Scenario s(Cluster({{"a", 2, 4}}), MakePolicy("fifo+defrag", {{"strict", "false"}}));
  SplitFreeGpus(s, Movable(1).CheckpointCost(50 * kSecond),
                Movable(3).CheckpointCost(50 * kSecond));
  EXPECT_THAT(s.Cycle(100 * kSecond),
              ElementsAre("stop 1: defrag: move to consolidate 4 GPUs for job 4 "
                          "(gain 39400 GPU-s > cost 160 GPU-s)"));
  s.Add(NewJob(5, 2, 110 * kSecond));
  EXPECT_THAT(s.Cycle(110 * kSecond), IsEmpty());
  s.Stop(1, 150 * kSecond);
  EXPECT_THAT(s.Cycle(150 * kSecond),
              ElementsAre("start 1 on a1:2,3 resume overhead=30", "start 4 on a0:0,1,2,3"));
  EXPECT_EQ(s.job(5).state, JobState::kPending);
  EXPECT_EQ(s.job(1).work_done, 100 * kSecond);  // saved when asked to stop
}

TEST(DefragTest, CancelledMoveFreesItsDestination) {
  Scenario s(Cluster({{"a", 2, 4}}), "fifo+defrag");
  SplitFreeGpus(s, Movable(1).CheckpointCost(50 * kSecond),
                Movable(3).CheckpointCost(50 * kSecond));
  EXPECT_EQ(s.Cycle(100 * kSecond).size(), 1u);
  ASSERT_TRUE(s.sched().Cancel(1, 120 * kSecond).ok());
  EXPECT_THAT(s.Cycle(120 * kSecond), ElementsAre("start 4 on a0:0,1,2,3"));
  EXPECT_EQ(s.sched().cluster().node(1).whole_free, 2);
}

// A 12-GPU job on 8-GPU nodes needs one whole node and 4 GPUs of another. 12 GPUs are free,
// 4 on each node; jobs 1 and 3 can move, job 5 cannot. Job 1 leaves a0 for the free half of
// a2 (not a1, whose free half the blocked job needs).
TEST(DefragTest, EmptiesAWholeNodeForAMultiNodeJob) {
  Scenario s(Cluster({{"a", 3, 8}}), "fifo+defrag");
  for (JobId id = 1; id <= 6; ++id) {
    JobBuilder b = NewJob(id, 4, 0);
    if (id % 2 == 1) b.Estimate(10000 * kSecond);
    if (id < 5 && id % 2 == 1) b.Elastic();
    s.Add(b);
  }
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3", "start 2 on a0:4,5,6,7",
                                      "start 3 on a1:0,1,2,3", "start 4 on a1:4,5,6,7",
                                      "start 5 on a2:0,1,2,3", "start 6 on a2:4,5,6,7"));
  for (JobId filler : {2, 4, 6}) s.Finish(filler, 50 * kSecond);
  s.Add(NewJob(7, 12, 100 * kSecond));
  EXPECT_THAT(s.Settle(100 * kSecond),
              ElementsAre("stop 1: defrag: move to consolidate 12 GPUs for job 7 (gain 118800 "
                          "GPU-s > cost 120 GPU-s)",
                          "start 1 on a2:4,5,6,7 resume overhead=30",
                          "start 7 on a0:0,1,2,3,4,5,6,7 a1:4,5,6,7"));
}

}  // namespace
}  // namespace squeeze
