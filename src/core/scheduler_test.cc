#include "core/scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"
#include "core/testing/scheduler_peer.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;

TEST(SchedulerCreateTest, RejectsInvalidClusterOrPolicy) {
  auto bad_cluster = Scheduler::Create(ClusterSpec{}, MakePolicy("fifo"));
  ASSERT_FALSE(bad_cluster.ok());
  EXPECT_EQ(bad_cluster.status().message(), "cluster: no pools");
  Policy p = MakePolicy("fifo");
  p.actions = {"preempt"};
  auto bad_policy = Scheduler::Create(Cluster({{"a", 1, 8}}), p);
  ASSERT_FALSE(bad_policy.ok());
  EXPECT_EQ(bad_policy.status().message(), "policy 'fifo': needs the allocate action");
}

class SubmitTest : public ::testing::Test {
 protected:
  SubmitTest() : s_(Cluster({{"a", 2, 8}, {"b", 1, 4}}), "fifo") {}
  std::string ErrorOf(const JobSpec& spec) {
    const size_t before = s_.sched().JobCount();
    Status st = s_.Submit(spec);
    if (st.ok()) return "(accepted)";
    EXPECT_EQ(s_.sched().JobCount(), before) << "a failed submit must change nothing";
    return st.message();
  }
  Scenario s_;
};

TEST_F(SubmitTest, AcceptsAValidJob) {
  ASSERT_TRUE(s_.Submit(NewJob(1, 2, 5 * kSecond)).ok());
  EXPECT_EQ(s_.sched().JobCount(), 1u);
  EXPECT_EQ(s_.sched().PendingCount(), 1u);
  EXPECT_EQ(s_.sched().counters().submitted, 1);
  const Job* j = s_.sched().Find(1);
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(j->state, JobState::kPending);
  EXPECT_EQ(j->queued_since, 5 * kSecond);
  EXPECT_EQ(j->home_pool, -1);
  EXPECT_EQ(s_.sched().Find(2), nullptr);
}

TEST_F(SubmitTest, RejectsInvalidSpecsNamingTheJobAndValue) {
  s_.Add(NewJob(1, 1));
  EXPECT_EQ(ErrorOf(NewJob(1, 1)), "job 1: id is already in use");
  EXPECT_EQ(ErrorOf(NewJob(2, -1)), "job 2: gpus -1 is negative");
  EXPECT_EQ(ErrorOf(NewJob(3, 1).Milli(0)), "job 3: gpu_milli 0 is outside 1..1000");
  EXPECT_EQ(ErrorOf(NewJob(3, 1).Milli(1001)), "job 3: gpu_milli 1001 is outside 1..1000");
  EXPECT_EQ(ErrorOf(NewJob(4, 2).Milli(500)),
            "job 4: a fraction of a GPU (gpu_milli 500) needs gpus 1, not 2");
  EXPECT_EQ(ErrorOf(NewJob(5, 1).Pool("zz")), "job 5: pool 'zz' does not exist; pools: a, b");
  EXPECT_EQ(ErrorOf(NewJob(6, 1).Estimate(-3 * kSecond)), "job 6: estimate -3 is negative");
  EXPECT_EQ(ErrorOf(NewJob(7, 1).CheckpointCost(-1 * kSecond)),
            "job 7: checkpoint and restart times must not be negative");
  EXPECT_EQ(ErrorOf(NewJob(7, 1).Overhead(-1 * kSecond)),
            "job 7: checkpoint and restart times must not be negative");
}

TEST_F(SubmitTest, RejectsAJobLargerThanAnyNodeGroup) {
  EXPECT_EQ(ErrorOf(NewJob(8, 17)),
            "job 8: asks for 17 GPUs; the largest possible request is 16 GPUs (pool a: 2 nodes x "
            "8 gpu)");
  EXPECT_EQ(ErrorOf(NewJob(9, 5).Pool("b")),
            "job 9: asks for 5 GPUs; the largest possible request is 4 GPUs (pool b: 1 node x 4 "
            "gpu)");
  EXPECT_EQ(ErrorOf(NewJob(10, 1).Regions({"mars"})),
            "job 10: no node has its regions (mars); models: gpu");
  EXPECT_EQ(ErrorOf(NewJob(11, 16)), "(accepted)");
  EXPECT_EQ(ErrorOf(NewJob(12, 4).Pool("b")), "(accepted)");
  EXPECT_EQ(ErrorOf(NewJob(13, 0)), "(accepted)");
}

// The contract: Submit fails "if no node could ever hold it". A job that asks more CPU or
// memory than any node has can never run.
TEST_F(SubmitTest, RejectsAJobNoNodeHasCpuOrMemoryFor) {
  Scenario s(Cluster({{"a", 2, 8, "gpu", 64000, 262144}}), "fifo");
  Status cpu = s.Submit(NewJob(1, 1).Cpu(128000));
  EXPECT_FALSE(cpu.ok());
  EXPECT_THAT(cpu.message(), HasSubstr("job 1"));
  Status mem = s.Submit(NewJob(2, 8).Memory(300000));
  EXPECT_FALSE(mem.ok());
  EXPECT_THAT(mem.message(), HasSubstr("job 2"));
  EXPECT_TRUE(s.Submit(NewJob(3, 16).Cpu(128000)).ok());  // 64 cores on each of 2 nodes
}

TEST(SchedulerApiTest, UnknownJobsAreErrors) {
  Scenario s(Cluster({{"a", 1, 4}}), "fifo");
  EXPECT_EQ(s.sched().Finished(9, 0, true).status().message(), "job 9 is not running");
  EXPECT_EQ(s.sched().Stopped(9, 0).message(), "job 9 was not asked to stop");
  EXPECT_EQ(s.sched().Cancel(9, 0).status().message(), "job 9 is not known");
  s.Add(NewJob(1, 4));
  EXPECT_EQ(s.sched().Finished(1, 0, true).status().message(), "job 1 is not running");
  EXPECT_EQ(s.sched().Stopped(1, 0).message(), "job 1 was not asked to stop");
  s.Cycle(0);
  EXPECT_EQ(s.sched().Stopped(1, 5 * kSecond).message(), "job 1 was not asked to stop");
}

TEST(SchedulerApiTest, FinishedReturnsTheFinalRecordAndForgetsTheJob) {
  Scenario s(Cluster({{"a", 1, 4}}), "fifo");
  s.Add(NewJob(1, 2, 0));
  s.Cycle(10 * kSecond);
  auto done = s.sched().Finished(1, 110 * kSecond, true);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->state, JobState::kDone);
  EXPECT_EQ(done->work_done, 100 * kSecond);
  EXPECT_DOUBLE_EQ(done->attained_gpu_s, 200.0);
  EXPECT_EQ(done->total_wait, 10 * kSecond);
  EXPECT_EQ(s.sched().Find(1), nullptr);
  EXPECT_EQ(s.sched().cluster().FreeMilli(), 4000);
  s.Add(NewJob(2, 1, 120 * kSecond));
  s.Cycle(120 * kSecond);
  auto failed = s.sched().Finished(2, 130 * kSecond, false);
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->state, JobState::kFailed);
}

TEST(SchedulerApiTest, CancelPendingJobRemovesItFromTheQueue) {
  Scenario s(Cluster({{"a", 1, 4}}), "fifo");
  s.Add(NewJob(1, 4, 0));
  s.Cycle(0);
  s.Add(NewJob(2, 4, 1 * kSecond));
  s.Add(NewJob(3, 2, 2 * kSecond));
  auto c = s.sched().Cancel(2, 3 * kSecond);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->state, JobState::kCancelled);
  EXPECT_EQ(s.sched().PendingCount(), 1u);
  EXPECT_EQ(s.sched().JobCount(), 2u);
  s.Finish(1, 10 * kSecond);
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("start 3 on a0:0,1"));
}

TEST(SchedulerApiTest, CancelRunningJobReleasesItsGpus) {
  Scenario s(Cluster({{"a", 1, 4}}), "fifo");
  s.Add(NewJob(1, 4, 0).Team("x"));
  s.Cycle(0);
  s.Add(NewJob(2, 4, 1 * kSecond));
  EXPECT_EQ(s.sched().cluster().FreeMilli(), 0);
  auto c = s.sched().Cancel(1, 50 * kSecond);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->state, JobState::kCancelled);
  EXPECT_DOUBLE_EQ(c->attained_gpu_s, 200.0);
  EXPECT_EQ(s.sched().cluster().FreeMilli(), 4000);
  EXPECT_EQ(testing::SchedulerPeer::State(s.sched()).team_running_milli.count("x"), 0u);
  EXPECT_THAT(s.Cycle(50 * kSecond), ElementsAre("start 2 on a0:0,1,2,3"));
  EXPECT_EQ(s.sched().Finished(1, 60 * kSecond, true).status().message(), "job 1 is not running");
}

TEST(SchedulerApiTest, CancelledPreemptorFreesNobodyAndTheVictimReturns) {
  Scenario s(Cluster({{"a", 1, 4}}),
             MakePolicy("fifo", {{"priority", "true"}, {"actions", "allocate|preempt"}}));
  s.Add(NewJob(1, 4, 0).Urgency(Urgency::kLow).Elastic());
  s.Cycle(0);
  s.Add(NewJob(2, 4, 10 * kSecond).Urgency(Urgency::kHigh));
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("stop 1: preempted for 2"));
  ASSERT_TRUE(s.sched().Cancel(2, 11 * kSecond).ok());
  s.Stop(1, 12 * kSecond);
  EXPECT_THAT(s.Cycle(12 * kSecond), ElementsAre("start 1 on a0:0,1,2,3 resume overhead=30"));
}

TEST(SchedulerApiTest, CpuOnlyJobRunsOnAnyNodeWithRoom) {
  Scenario s(Cluster({{"a", 1, 4, "gpu", 8000, 0}, {"a", 1, 4, "gpu", 64000, 0}}), "fifo");
  s.Add(NewJob(1, 0, 0).Cpu(16000));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a1:"));
  EXPECT_EQ(s.sched().cluster().node(1).cpu_free, 48000);
}

TEST(SchedulerApiTest, CyclesAreCounted) {
  Scenario s(Cluster({{"a", 1, 4}}), "fifo");
  EXPECT_THAT(s.Cycle(0), IsEmpty());
  EXPECT_THAT(s.Cycle(1 * kSecond), IsEmpty());
  EXPECT_EQ(s.sched().counters().cycles, 2);
  EXPECT_EQ(s.sched().policy().name, "fifo");
}

}  // namespace
}  // namespace squeeze

namespace squeeze {
namespace {

Placement OnNode(int node, std::vector<int> gpus) {
  Placement p;
  NodeShare share;
  share.node = node;
  share.gpus = std::move(gpus);
  p.shares.push_back(share);
  return p;
}

// After a daemon restart the executor finds job 1 alive on GPUs 0-5 of node a0: the
// scheduler takes it back there, so a new 4-GPU job waits until it ends.
TEST(AdoptTest, AnAdoptedJobHoldsItsGpus) {
  Scenario s(Cluster({{"a", 1, 8}}), "fifo");
  JobSpec running = NewJob(1, 6);
  ASSERT_TRUE(
      s.sched().Adopt(running, OnNode(0, {0, 1, 2, 3, 4, 5}), 100 * kSecond, 500 * kSecond).ok());
  ASSERT_NE(s.sched().Find(1), nullptr);
  EXPECT_EQ(s.sched().Find(1)->state, JobState::kRunning);
  EXPECT_EQ(s.sched().cluster().node(0).whole_free, 2);
  s.Add(NewJob(2, 4, 500 * kSecond));
  EXPECT_THAT(s.Cycle(500 * kSecond), IsEmpty());
  ASSERT_TRUE(s.sched().Finished(1, 900 * kSecond, true).ok());
  EXPECT_THAT(s.Cycle(900 * kSecond), ElementsAre("start 2 on a0:0,1,2,3"));
}

TEST(AdoptTest, RefusesTakenGpusAndKnownIds) {
  Scenario s(Cluster({{"a", 1, 8}}), "fifo");
  ASSERT_TRUE(s.sched().Adopt(NewJob(1, 4), OnNode(0, {0, 1, 2, 3}), 0, 10 * kSecond).ok());
  EXPECT_EQ(s.sched().Adopt(NewJob(2, 2), OnNode(0, {3, 4}), 0, 10 * kSecond).message(),
            "job 2: its GPUs on node 0 are not free");
  EXPECT_EQ(s.sched().Adopt(NewJob(1, 2), OnNode(0, {6, 7}), 0, 10 * kSecond).message(),
            "job 1: id is already in use");
  s.Add(NewJob(4, 2, 10 * kSecond));
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("start 4 on a0:4,5"));
  EXPECT_EQ(s.sched().Adopt(NewJob(3, 2), OnNode(5, {0, 1}), 0, 10 * kSecond).message(),
            "job 3: its GPUs on node 5 are not free");
  EXPECT_EQ(s.sched().cluster().node(0).whole_free, 2);
}

}  // namespace
}  // namespace squeeze

namespace squeeze {
namespace {

// A 2-GPU checkpointable job started at 0 on a 4-GPU node, its run then requeued at 100.
class RequeueTest : public ::testing::Test {
 protected:
  RequeueTest() : s_(Cluster({{"a", 1, 4}}), "fifo") {
    s_.Add(NewJob(1, 2, 0));
    EXPECT_THAT(s_.Cycle(0), ElementsAre("start 1 on a0:0,1"));
  }
  Scenario s_;
};

TEST_F(RequeueTest, KeepsAttainedServiceAndTheWorkOfTheLastCheckpoint) {
  ASSERT_TRUE(s_.sched().Checkpointed(1, 60 * kSecond).ok());
  ASSERT_TRUE(s_.sched().Requeue(1, 100 * kSecond).ok());
  const Job* j = s_.sched().Find(1);
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(j->state, JobState::kPending);
  EXPECT_DOUBLE_EQ(j->attained_gpu_s, 200);  // 100 s on 2 GPUs, not forgotten
  EXPECT_EQ(j->work_done, 60 * kSecond);  // what the checkpoint at 60 saved
  EXPECT_EQ(j->starts, 1);
  EXPECT_EQ(j->preemptions, 0);              // a lost run is not a preemption
  EXPECT_EQ(s_.sched().cluster().node(0).whole_free, 4);  // its GPUs are free
  EXPECT_THAT(s_.Cycle(100 * kSecond), ElementsAre("start 1 on a0:0,1 resume overhead=30"));
  EXPECT_EQ(s_.sched().Find(1)->starts, 2);
}

TEST_F(RequeueTest, WithoutACheckpointOfThisRunItsWorkIsLost) {
  ASSERT_TRUE(s_.sched().Requeue(1, 100 * kSecond).ok());
  EXPECT_EQ(s_.sched().Find(1)->work_done, 0);
  EXPECT_DOUBLE_EQ(s_.sched().Find(1)->attained_gpu_s, 200);
}

TEST_F(RequeueTest, ABackOffKeepsItOutOfTheQueueUntilThen) {
  ASSERT_TRUE(s_.sched().Requeue(1, 100 * kSecond, 130 * kSecond).ok());
  EXPECT_EQ(s_.sched().PendingCount(), 0u);
  EXPECT_EQ(s_.sched().NextWakeup(), 130 * kSecond);
  EXPECT_THAT(s_.Cycle(120 * kSecond), IsEmpty());
  EXPECT_THAT(s_.Cycle(130 * kSecond), ElementsAre("start 1 on a0:0,1 overhead=30"));
}

TEST_F(RequeueTest, CancelledInItsBackOffItIsGoneAndNothingWakes) {
  ASSERT_TRUE(s_.sched().Requeue(1, 100 * kSecond, 130 * kSecond).ok());
  ASSERT_TRUE(s_.sched().Cancel(1, 110 * kSecond).ok());
  EXPECT_EQ(s_.sched().Find(1), nullptr);
  EXPECT_EQ(s_.sched().NextWakeup(), kNever);
  EXPECT_THAT(s_.Cycle(130 * kSecond), IsEmpty());
}

TEST_F(RequeueTest, AWaitingOrUnknownJobIsAnError) {
  ASSERT_TRUE(s_.sched().Requeue(1, 100 * kSecond).ok());
  EXPECT_EQ(s_.sched().Requeue(1, 101 * kSecond).message(), "job 1 is not running");
  EXPECT_EQ(s_.sched().Requeue(9, 101 * kSecond).message(), "job 9 is not running");
}

}  // namespace
}  // namespace squeeze
