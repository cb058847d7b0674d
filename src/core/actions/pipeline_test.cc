// Scenario tests of pipelined preemption (Volcano's Pipeline): the room a preemption makes is
// held for the preemptor as each victim stops, and the preemptor starts on exactly that room.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"
#include "core/testing/scheduler_peer.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;

// Not strict: a job that fits may pass one that waits (the preemptor, while its victims stop).
Policy NonStrictPreempting() {
  return MakePolicy("fifo", {{"priority", "true"}, {"strict", "false"},
                             {"actions", "allocate|preempt"}});
}
Policy PreemptingStrict() {
  return MakePolicy("fifo", {{"priority", "true"}, {"actions", "allocate|preempt"}});
}

// Two victims stop at different times; a job submitted in between would take the GPUs the
// first one freed (it is next in order, since the preemptor waits for its victims), and the
// preemptor, once the second stops, would not fit and wait for it.
TEST(PipelineTest, NoJobTakesTheRoomAVictimFreedBeforeThePreemptorStarts) {
  Scenario s(Cluster({{"a", 1, 4}}), NonStrictPreempting());
  s.Add(NewJob(1, 2, 0).Urgency(Urgency::kLow).Elastic());
  s.Add(NewJob(3, 2, 0).Urgency(Urgency::kLow).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1", "start 3 on a0:2,3"));
  s.Add(NewJob(2, 4, 10 * kSecond).Urgency(Urgency::kHigh));
  EXPECT_THAT(s.Cycle(10 * kSecond),
              ElementsAre("stop 1: preempted for 2", "stop 3: preempted for 2"));
  s.Add(NewJob(4, 2, 15 * kSecond));  // normal urgency, not preemptible
  s.Stop(1, 20 * kSecond);
  EXPECT_THAT(s.Cycle(20 * kSecond), IsEmpty());  // 1's GPUs are held for 2
  EXPECT_EQ(s.job(4).state, JobState::kPending);
  s.Stop(3, 30 * kSecond);
  EXPECT_THAT(s.Cycle(30 * kSecond), ElementsAre("start 2 on a0:0,1,2,3"));
  EXPECT_EQ(s.sched().counters().preemptions, 2);
  s.Finish(2, 100 * kSecond);
  EXPECT_THAT(s.Cycle(100 * kSecond),
              ElementsAre("start 4 on a0:0,1", "start 1 on a0:2,3 resume overhead=30"));
}

// The preemptor starts where its victims were, though another node emptied (and the best fit
// would have chosen it) while they stopped.
TEST(PipelineTest, ThePreemptorStartsWhereItsVictimsWere) {
  Scenario s(Cluster({{"a", 2, 4}}), PreemptingStrict());
  s.Add(NewJob(1, 4, 0).Urgency(Urgency::kLow).Elastic());
  s.Add(NewJob(3, 4, 0));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 3 on a0:0,1,2,3", "start 1 on a1:0,1,2,3"));
  s.Add(NewJob(2, 4, 10 * kSecond).Urgency(Urgency::kHigh));
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("stop 1: preempted for 2"));
  s.Finish(3, 15 * kSecond);  // a0 is free now
  EXPECT_THAT(s.Cycle(15 * kSecond), IsEmpty());  // the FIFO holds the rest behind 2
  s.Stop(1, 20 * kSecond);
  EXPECT_THAT(s.Cycle(20 * kSecond),
              ElementsAre("start 2 on a1:0,1,2,3", "start 1 on a0:0,1,2,3 resume overhead=30"));
}

// The part of the preemptor's room that was free when its victims were chosen is held too.
TEST(PipelineTest, TheFreePartOfThePreemptorsRoomIsHeldFromTheEviction) {
  Scenario s(Cluster({{"a", 1, 4}}), NonStrictPreempting());
  s.Add(NewJob(1, 2, 0).Urgency(Urgency::kLow).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1"));
  s.Add(NewJob(2, 4, 10 * kSecond).Urgency(Urgency::kHigh));
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("stop 1: preempted for 2"));
  s.Add(NewJob(4, 2, 11 * kSecond).Urgency(Urgency::kLow));
  EXPECT_THAT(s.Cycle(12 * kSecond), IsEmpty());  // 4 would fit on the two free GPUs, which are 2's
  s.Stop(1, 20 * kSecond);
  EXPECT_THAT(s.Cycle(20 * kSecond), ElementsAre("start 2 on a0:0,1,2,3"));
}

// A preemptor cancelled while its victims stop gives its room back at once.
TEST(PipelineTest, ACancelledPreemptorReleasesWhatWasHeldForIt) {
  Scenario s(Cluster({{"a", 1, 4}}), NonStrictPreempting());
  s.Add(NewJob(1, 2, 0).Urgency(Urgency::kLow).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1"));
  s.Add(NewJob(2, 4, 10 * kSecond).Urgency(Urgency::kHigh));
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("stop 1: preempted for 2"));
  s.Add(NewJob(4, 2, 10 * kSecond).Urgency(Urgency::kLow));
  ASSERT_TRUE(s.sched().Cancel(2, 12 * kSecond).ok());
  EXPECT_THAT(s.Cycle(12 * kSecond), ElementsAre("start 4 on a0:2,3"));
  s.Stop(1, 20 * kSecond);
  EXPECT_THAT(s.Cycle(20 * kSecond), ElementsAre("start 1 on a0:0,1 resume overhead=30"));
  EXPECT_EQ(testing::SchedulerPeer::State(s.sched()).cluster.FreeMilli(), 0);
  EXPECT_TRUE(testing::SchedulerPeer::State(s.sched()).pipelined.empty());
}

// When a node of the room went down meanwhile, the preemptor is placed wherever it fits.
TEST(PipelineTest, APreemptorWhoseRoomLostANodeIsPlacedAnew) {
  Scenario s(Cluster({{"a", 2, 4}}), NonStrictPreempting());
  s.Add(NewJob(1, 4, 0).Urgency(Urgency::kLow).Elastic());
  s.Add(NewJob(3, 4, 0));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 3 on a0:0,1,2,3", "start 1 on a1:0,1,2,3"));
  s.Add(NewJob(2, 4, 10 * kSecond).Urgency(Urgency::kHigh));
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("stop 1: preempted for 2"));
  ASSERT_TRUE(s.sched().SetNodeAvailable(1, false).ok());  // 1's node, the room for 2
  s.Finish(3, 15 * kSecond);
  s.Stop(1, 20 * kSecond);
  EXPECT_THAT(s.Cycle(20 * kSecond), ElementsAre("start 2 on a0:0,1,2,3"));
  ASSERT_TRUE(s.sched().SetNodeAvailable(1, true).ok());
  EXPECT_THAT(s.Cycle(21 * kSecond), ElementsAre("start 1 on a1:0,1,2,3 resume overhead=30"));
  EXPECT_TRUE(testing::SchedulerPeer::State(s.sched()).pipelined.empty());
}

}  // namespace
}  // namespace squeeze
