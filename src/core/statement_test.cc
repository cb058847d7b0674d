// Statement: tentative changes that a discard undoes exactly and a commit turns into decisions.
#include "core/statement.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/actions/actions.h"
#include "core/testing/scenario.h"
#include "core/testing/scheduler_peer.h"
#include "core/testing/state_text.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;
using testing::SchedulerPeer;
using testing::StateText;

// Two nodes of 4 GPUs and 16 CPUs: job 1 (elastic) on a0, job 2 (normal, 2 GPUs) on a1;
// waiting: job 3 (high, 4 GPUs) and job 4 (2 GPUs, a deadline that boosts it later).
class StatementTest : public ::testing::Test {
 protected:
  StatementTest()
      : s_(Cluster({{"a", 2, 4, "gpu", 16000}}),
           MakePolicy("fifo", {{"priority", "true"},
                               {"deadline", "true"},
                               {"actions", "allocate|preempt|slice"},
                               {"slice", "600"}})) {
    s_.Add(NewJob(1, 4, 0).Elastic().Estimate(1000 * kSecond).Cpu(4000));
    s_.Add(NewJob(2, 2, 0).Estimate(500 * kSecond).Cpu(4000));
    EXPECT_THAT(s_.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3 slice_end=600", "start 2 on a1:0,1"));
    s_.Add(NewJob(3, 4, 5 * kSecond).Urgency(Urgency::kHigh).Cpu(8000));
    s_.Add(NewJob(4, 2, 5 * kSecond).Estimate(100 * kSecond).Deadline(5000 * kSecond));
  }
  EngineState& state() { return SchedulerPeer::State(s_.sched()); }
  const ClusterSpec& cluster() const { return s_.cluster(); }

  Scenario s_;
};

TEST_F(StatementTest, DiscardLeavesTheStateExactlyAsItWas) {
  const std::string before = StateText(state());
  ASSERT_EQ(state().boost_watch.size(), 1u);  // job 4's deadline: undone starts put it back
  CycleContext c(state(), 10 * kSecond);
  c.caps[1] = 2;
  {
    Statement st(c);
    StartOptions how;
    how.charge_caps = true;
    st.Start(4, Placement{{NodeShare{1, {2, 3}, kMilliPerGpu, 2000, 0}}}, how);
    st.Evict(1, "preempted for 3", StopKind::kPreemption, 3);
    st.MoveTo(1, Placement{{NodeShare{1, {}, kMilliPerGpu, 1000, 0}}}, false, MoveKind::kDefrag);
    st.HoldNodes(3, {0});
    st.Pipeline(3, Placement{{NodeShare{0, {0, 1, 2, 3}, kMilliPerGpu, 8000, 0}}}, false);
    EXPECT_NE(StateText(state()), before);
    EXPECT_EQ(c.caps.at(1), 0);  // charged by job 4's start
    st.Discard();
  }
  EXPECT_EQ(StateText(state()), before);
  EXPECT_EQ(c.caps.at(1), 2);
  EXPECT_EQ(c.caps.count(0), 0u);
  EXPECT_THAT(c.decisions(), IsEmpty());
}

TEST_F(StatementTest, AStatementLeftOpenIsDiscarded) {
  const std::string before = StateText(state());
  CycleContext c(state(), 10 * kSecond);
  {
    Statement st(c);
    st.Evict(1, "preempted for 3", StopKind::kPreemption, 3);
    st.Start(4, Placement{{NodeShare{1, {2, 3}, kMilliPerGpu, 0, 0}}}, StartOptions{});
  }
  EXPECT_EQ(StateText(state()), before);
  EXPECT_THAT(c.decisions(), IsEmpty());
}

TEST_F(StatementTest, AnEvictionFreesItsCapacityWhileOpenAndHoldsItOnceCommitted) {
  CycleContext c(state(), 10 * kSecond);
  const Job& urgent = c.job(3);
  EXPECT_FALSE(PlaceAtHome(c, urgent, nullptr));
  Statement st(c);
  st.Evict(1, "preempted for 3", StopKind::kPreemption, 3);
  auto placed = PlaceAtHome(c, urgent, nullptr);
  ASSERT_TRUE(placed);
  EXPECT_EQ(testing::DescribePlacement(placed->placement, cluster()), "a0:0,1,2,3");
  EXPECT_EQ(state().cluster.node(0).cpu_free, 16000);
  EXPECT_THAT(c.decisions(), IsEmpty());  // nothing is a decision before the commit
  st.Commit();
  ASSERT_EQ(c.decisions().size(), 1u);
  EXPECT_EQ(testing::Describe(c.decisions()[0], cluster()), "stop 1: preempted for 3");
  // Job 1 holds its GPUs and CPUs until it has stopped; then the room is job 3's.
  EXPECT_EQ(state().cluster.node(0).whole_free, 0);
  EXPECT_EQ(state().cluster.node(0).cpu_free, 12000);
  EXPECT_EQ(c.job(1).state, JobState::kCheckpointing);
  EXPECT_EQ(state().awaiting_stops.at(3), 1);
  EXPECT_EQ(state().counters.preemptions, 1);
}

TEST_F(StatementTest, CommitMakesDecisionsInTheOrderOfTheOperations) {
  CycleContext c(state(), 10 * kSecond);
  Statement st(c);
  st.Evict(2, "first", StopKind::kOther);
  st.Start(4, Placement{{NodeShare{1, {2, 3}, kMilliPerGpu, 0, 0}}}, StartOptions{});
  st.Evict(1, "third", StopKind::kOther);
  st.Commit();
  std::vector<std::string> lines;
  for (const Decision& d : c.decisions()) lines.push_back(testing::Describe(d, cluster()));
  EXPECT_THAT(lines, ElementsAre("stop 2: first", "start 4 on a1:2,3", "stop 1: third"));
  EXPECT_EQ(state().counters.starts, 3);  // 1 and 2 at the first cycle, 4 now
  EXPECT_EQ(state().counters.preemptions, 0);  // stops of kOther count as none
  EXPECT_TRUE(state().pending.Contains(4));    // until the walk is over
  c.FlushStarted();
  EXPECT_FALSE(state().pending.Contains(4));
  EXPECT_TRUE(state().boost_watch.empty());
}

TEST_F(StatementTest, AnEvictionOnAnUnavailableNodeFreesNothing) {
  ASSERT_TRUE(s_.sched().SetNodeAvailable(0, false).ok());
  CycleContext c(state(), 10 * kSecond);
  Statement st(c);
  st.Evict(1, "preempted for 3", StopKind::kPreemption, 3);
  EXPECT_EQ(state().cluster.node(0).whole_free, 0);
  EXPECT_FALSE(PlaceAtHome(c, c.job(3), nullptr));
  st.Discard();
}

TEST_F(StatementTest, AMoveHoldsItsDestinationAndTheJobRestartsThereOnceStopped) {
  CycleContext c(state(), 10 * kSecond);
  {
    Statement st(c);
    st.Evict(2, "defrag", StopKind::kOther, 3);
    st.MoveTo(2, Placement{{NodeShare{1, {2, 3}, kMilliPerGpu, 4000, 0}}}, false,
              MoveKind::kDefrag);
    st.HoldNodes(3, {1});
    st.Commit();
  }
  EXPECT_EQ(state().counters.defrag_moves, 1);
  EXPECT_EQ(c.job(2).moves, 1);
  EXPECT_EQ(state().cluster.node(1).whole_free, 0);  // 0,1 still job 2's; 2,3 held for it
  EXPECT_EQ(c.caps.at(1), 0);
  ASSERT_TRUE(s_.sched().Stopped(2, 20 * kSecond).ok());
  EXPECT_EQ(s_.job(2).state, JobState::kPending);
  // The cycle restarts it where the move held GPUs (job 3, still short of room, preempts).
  EXPECT_THAT(s_.Cycle(20 * kSecond),
              ElementsAre("start 2 on a1:2,3 overhead=30", "stop 1: preempted for 3"));
  EXPECT_TRUE(state().moves.empty());
}

TEST_F(StatementTest, ExtendSliceIsUndoneByDiscard) {
  const std::string before = StateText(state());
  CycleContext c(state(), 700 * kSecond);
  Statement st(c);
  st.ExtendSlice(1);
  EXPECT_EQ(c.job(1).slice_end, 1200 * kSecond);
  EXPECT_EQ(c.job(1).slices, 1);
  st.Discard();
  EXPECT_EQ(StateText(state()), before);
}

TEST_F(StatementTest, APipelineHoldsItsRoomPartByPartAndItsJobStartsThere) {
  CycleContext c(state(), 10 * kSecond);
  {
    Statement st(c);
    st.Evict(2, "preempted for 3", StopKind::kPreemption, 3);
    st.Pipeline(3, Placement{{NodeShare{1, {0, 1, 2, 3}, kMilliPerGpu, 8000, 0}}}, false);
    EXPECT_EQ(state().cluster.node(1).whole_free, 4);  // open: nothing held yet
    st.Commit();
  }
  // 0 and 1 are still job 2's, 2 and 3 (and 4 of the 8 CPUs) are held for job 3.
  EXPECT_EQ(state().cluster.node(1).whole_free, 0);
  EXPECT_EQ(state().cluster.node(1).cpu_free, 8000);
  Placement held = state().pipelined.at(3).held;
  EXPECT_EQ(testing::DescribePlacement(held, cluster()), "a1:2,3");
  EXPECT_EQ(held.shares.at(0).cpu_milli, 4000);
  ASSERT_TRUE(s_.sched().Stopped(2, 20 * kSecond).ok());
  // Job 2's part is held for job 3 as it stops, not freed.
  EXPECT_EQ(state().cluster.node(1).whole_free, 0);
  EXPECT_EQ(state().cluster.node(1).cpu_free, 8000);
  EXPECT_EQ(state().pipelined.at(3).held.GpuCount(), 4);
  {
    const std::string before = StateText(state());
    CycleContext c2(state(), 20 * kSecond);
    Statement st(c2);
    st.StartPipelined(3);
    EXPECT_EQ(c2.job(3).state, JobState::kRunning);
    st.Discard();
    EXPECT_EQ(StateText(state()), before);
  }
  EXPECT_THAT(s_.Cycle(20 * kSecond), ElementsAre("start 3 on a1:0,1,2,3"));
  EXPECT_TRUE(state().pipelined.empty());
  EXPECT_EQ(state().cluster.node(1).cpu_free, 8000);  // job 3's own now
}

// Job ids start at 0 in some traces (openb's pods): job 0 is undone, and claims room, like any.
TEST(StatementJobZeroTest, JobZeroIsAJobLikeAnyOther) {
  Scenario s(Cluster({{"a", 1, 4}}),
             MakePolicy("fifo", {{"priority", "true"}, {"actions", "allocate|preempt"}}));
  s.Add(NewJob(5, 4, 0).Urgency(Urgency::kLow).Elastic());
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 5 on a0:0,1,2,3"));
  s.Add(NewJob(0, 4, 10 * kSecond).Urgency(Urgency::kHigh));
  EngineState& state = SchedulerPeer::State(s.sched());
  const std::string before = StateText(state);
  {
    CycleContext c(state, 10 * kSecond);
    Statement st(c);
    st.Evict(5, "preempted for 0", StopKind::kPreemption, 0);
    st.Start(0, Placement{{NodeShare{0, {0, 1, 2, 3}, kMilliPerGpu, 0, 0}}}, StartOptions{});
    st.Discard();
  }
  EXPECT_EQ(StateText(state), before);
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("stop 5: preempted for 0"));
  EXPECT_EQ(s.sched().StopsAwaited(0), 1);
  s.Stop(5, 20 * kSecond);
  EXPECT_THAT(s.Cycle(20 * kSecond), ElementsAre("start 0 on a0:0,1,2,3"));
}

}  // namespace
}  // namespace squeeze
