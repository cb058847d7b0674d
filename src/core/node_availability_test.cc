// Scheduler::SetNodeAvailable: a node that is down (or whose controller is out of reach) gets
// no new work, its running jobs keep their GPUs until reported, and it serves again when up.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/scheduler.h"
#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::Cluster;
using testing::NewJob;
using testing::Scenario;

TEST(NodeAvailabilityTest, NoJobIsPlacedOnAnUnavailableNode) {
  Scenario s(Cluster({{"a", 2, 4}}), "fifo");
  ASSERT_TRUE(s.sched().SetNodeAvailable(0, false).ok());
  EXPECT_FALSE(s.sched().NodeAvailable(0));
  EXPECT_TRUE(s.sched().NodeAvailable(1));
  s.Add(NewJob(1, 4, 0));
  s.Add(NewJob(2, 1, 0));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a1:0,1,2,3"));
  ASSERT_TRUE(s.sched().SetNodeAvailable(0, true).ok());
  EXPECT_THAT(s.Cycle(5 * kSecond), ElementsAre("start 2 on a0:0"));
}

TEST(NodeAvailabilityTest, RunningJobsKeepTheirGpusAndWhatTheyFreeStaysHeld) {
  Scenario s(Cluster({{"a", 1, 4}}), "fifo");
  s.Add(NewJob(1, 2, 0));
  s.Add(NewJob(2, 1, 0).Milli(500));
  s.Cycle(0);
  const int64_t free_before = s.sched().cluster().FreeMilli();
  ASSERT_EQ(free_before, 1500);
  ASSERT_TRUE(s.sched().SetNodeAvailable(0, false).ok());
  EXPECT_EQ(s.sched().cluster().FreeMilli(), 0);
  EXPECT_EQ(s.job(1).state, JobState::kRunning);
  s.Finish(1, 10 * kSecond);
  EXPECT_EQ(s.sched().cluster().FreeMilli(), 0);  // held again at once
  s.Add(NewJob(3, 1, 10 * kSecond));
  EXPECT_THAT(s.Cycle(10 * kSecond), IsEmpty());
  // Setting it unavailable twice changes nothing.
  ASSERT_TRUE(s.sched().SetNodeAvailable(0, false).ok());
  ASSERT_TRUE(s.sched().SetNodeAvailable(0, true).ok());
  EXPECT_EQ(s.sched().cluster().FreeMilli(), 3500);
  EXPECT_THAT(s.Cycle(20 * kSecond), ElementsAre("start 3 on a0:0"));
  s.Finish(2, 30 * kSecond);
  s.Finish(3, 30 * kSecond);
  EXPECT_EQ(s.sched().cluster().FreeMilli(), 4000);
  EXPECT_EQ(s.sched().cluster().node(0).whole_free, 4);
}

TEST(NodeAvailabilityTest, TracksCpuAndMemoryToo) {
  testing::NodeBlock block{"a", 1, 2};
  block.cpu_milli = 8000;
  block.memory_mib = 1024;
  Scenario s(Cluster({block}), "fifo");
  ASSERT_TRUE(s.sched().SetNodeAvailable(0, false).ok());
  EXPECT_EQ(s.sched().cluster().node(0).cpu_free, 0);
  EXPECT_EQ(s.sched().cluster().node(0).memory_free, 0);
  ASSERT_TRUE(s.sched().SetNodeAvailable(0, true).ok());
  EXPECT_EQ(s.sched().cluster().node(0).cpu_free, 8000);
  EXPECT_EQ(s.sched().cluster().node(0).memory_free, 1024);
}

TEST(NodeAvailabilityTest, AnUnknownNodeIsAnError) {
  Scenario s(Cluster({{"a", 1, 4}}), "fifo");
  EXPECT_EQ(s.sched().SetNodeAvailable(3, false).message(), "node 3 is not in the cluster");
  EXPECT_EQ(s.sched().SetNodeAvailable(-1, true).message(), "node -1 is not in the cluster");
}

}  // namespace
}  // namespace squeeze
