// The scheduler and a backend that runs nodes of its own (a Slurm cluster): a job of several
// nodes placed in the shape Slurm expresses, jobs that the backend runs elsewhere taken where
// they run, GPUs that the backend's other users hold kept from squeeze's jobs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::Cluster;
using testing::DescribePlacement;
using testing::NewJob;
using testing::Scenario;

ClusterSpec SlurmPool(int nodes, int gpus) {
  ClusterSpec spec = Cluster({{"a", nodes, gpus}});
  spec.pools[0].backend = "slurm";
  spec.pools[0].slurm.conf = "/etc/slurm/slurm.conf";  // never read by the core
  return spec;
}

Placement On(std::vector<std::pair<int, std::vector<int>>> shares) {
  Placement p;
  for (auto& [node, gpus] : shares) {
    NodeShare s;
    s.node = node;
    s.gpus = std::move(gpus);
    p.shares.push_back(std::move(s));
  }
  return p;
}

// 6 GPUs on 4-GPU nodes: a local pool may split them 4 + 2; a Slurm pool gives 3 on each of two
// nodes (--nodes=2 --gres=gpu:3), the fullest node that suffices first.
TEST(BackendSyncTest, ASlurmPoolPlacesAJobOfSeveralNodesWithTheSameGpusOnEach) {
  for (const bool slurm : {false, true}) {
    ClusterSpec spec = slurm ? SlurmPool(3, 4) : Cluster({{"a", 3, 4}});
    Scenario s(spec, "fifo");
    s.Add(NewJob(1, 1, 0));
    EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0"));
    s.Add(NewJob(2, 6, 1 * kSecond));
    const std::vector<std::string> started = s.Cycle(1 * kSecond);
    ASSERT_EQ(started.size(), 1u);
    if (slurm) {
      EXPECT_EQ(started[0], "start 2 on a0:1,2,3 a1:0,1,2");
    } else {
      EXPECT_EQ(started[0], "start 2 on a1:0,1,2,3 a2:0,1");
    }
  }
  // 5 GPUs have no even shape on two or three nodes of four: five nodes of one.
  Scenario five(SlurmPool(6, 4), "fifo");
  five.Add(NewJob(1, 5, 0));
  EXPECT_THAT(five.Cycle(0), ElementsAre("start 1 on a0:0 a1:0 a2:0 a3:0 a4:0"));
  // 12 GPUs on 3 nodes of 4 that are all free: three whole nodes.
  Scenario whole(SlurmPool(3, 4), "fifo");
  whole.Add(NewJob(1, 12, 0));
  EXPECT_THAT(whole.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3 a1:0,1,2,3 a2:0,1,2,3"));
}

TEST(BackendSyncTest, RelocateTakesTheBackendsPlacementAndRefusesWhatDoesNotFit) {
  Scenario s(SlurmPool(2, 4), "fifo");
  s.Add(NewJob(1, 2, 0));
  s.Add(NewJob(2, 2, 0));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1", "start 2 on a0:2,3"));
  // Slurm ran job 1 on the other node: it is taken there, and a0's two GPUs are free.
  ASSERT_TRUE(s.sched().Relocate({{1, On({{1, {2, 3}}})}}).ok());
  EXPECT_EQ(DescribePlacement(s.job(1).placement, s.cluster()), "a1:2,3");
  EXPECT_EQ(s.sched().cluster().node(0).whole_free, 2);
  EXPECT_EQ(s.sched().cluster().node(1).whole_free, 2);
  EXPECT_THAT(s.sched().JobsOnNode(1), ElementsAre(1));
  // Two jobs that swap GPUs move together.
  ASSERT_TRUE(s.sched().Relocate({{1, On({{0, {2, 3}}})}, {2, On({{1, {2, 3}}})}}).ok());
  EXPECT_EQ(DescribePlacement(s.job(1).placement, s.cluster()), "a0:2,3");
  EXPECT_EQ(DescribePlacement(s.job(2).placement, s.cluster()), "a1:2,3");
  // Onto GPUs another job holds in the scheduler's view (a start the backend has not begun; it
  // picks its GPUs itself): that job takes other GPUs of its node, and is named.
  auto renumbered = s.sched().Relocate({{1, On({{1, {2, 3}}})}});
  ASSERT_TRUE(renumbered.ok()) << renumbered.status().message();
  EXPECT_THAT(*renumbered, ElementsAre(2));
  EXPECT_EQ(DescribePlacement(s.job(1).placement, s.cluster()), "a1:2,3");
  EXPECT_EQ(DescribePlacement(s.job(2).placement, s.cluster()), "a1:0,1");
  EXPECT_EQ(s.sched().cluster().node(0).whole_free, 4);
  EXPECT_EQ(s.sched().cluster().node(1).whole_free, 0);
  // GPUs that do not add up, a different count, or a job that does not run: refused, and
  // nothing changes.
  s.Add(NewJob(3, 4, 1 * kSecond));
  EXPECT_THAT(s.Cycle(1 * kSecond), ElementsAre("start 3 on a0:0,1,2,3"));
  EXPECT_THAT(s.sched().Relocate({{1, On({{0, {0, 1}}})}}).status().message(),
              HasSubstr("job 3: its new GPUs are not free"));
  EXPECT_THAT(s.sched().Relocate({{1, On({{1, {0}}})}}).status().message(),
              HasSubstr("holds 2 GPUs, not 1"));
  EXPECT_THAT(s.sched().Relocate({{9, On({{1, {0}}})}}).status().message(),
              HasSubstr("job 9 is not running"));
  EXPECT_EQ(DescribePlacement(s.job(1).placement, s.cluster()), "a1:2,3");
  EXPECT_EQ(DescribePlacement(s.job(2).placement, s.cluster()), "a1:0,1");
  EXPECT_EQ(DescribePlacement(s.job(3).placement, s.cluster()), "a0:0,1,2,3");
  EXPECT_EQ(s.sched().cluster().node(0).whole_free, 0);
  EXPECT_EQ(s.sched().cluster().node(1).whole_free, 0);
  // The GPUs a job leaves take the next job.
  s.Add(NewJob(4, 2, 2 * kSecond));
  EXPECT_THAT(s.Cycle(2 * kSecond), IsEmpty());
  s.Finish(2, 3 * kSecond);
  EXPECT_THAT(s.Cycle(3 * kSecond), ElementsAre("start 4 on a1:0,1"));
}

TEST(BackendSyncTest, GpusOthersHoldTakeNoJobUntilGivenBack) {
  Scenario s(SlurmPool(2, 4), "fifo");
  s.Add(NewJob(1, 1, 0));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0"));
  // Someone else's Slurm job holds all of a1 and GPU 0 of a0 (the scheduler's job 1 is there
  // by its count): a 4-GPU job waits, job 1 keeps running.
  ASSERT_TRUE(s.sched().SetForeignGpus(1, 0b1111).ok());
  ASSERT_TRUE(s.sched().SetForeignGpus(0, 0b0001).ok());
  EXPECT_EQ(s.sched().ForeignGpus(1), 0b1111u);
  s.Add(NewJob(2, 3, 1 * kSecond));
  EXPECT_THAT(s.Cycle(1 * kSecond), ElementsAre("start 2 on a0:1,2,3"));
  s.Add(NewJob(3, 4, 2 * kSecond));
  EXPECT_THAT(s.Cycle(2 * kSecond), IsEmpty());
  EXPECT_EQ(s.job(1).state, JobState::kRunning);
  // Job 1 ends: its GPU stays held for the other user.
  s.Finish(1, 3 * kSecond);
  EXPECT_EQ(s.sched().cluster().node(0).whole_free, 0);
  // The other user's job on a1 ends: the 4-GPU job starts there; then a0's GPU 0 comes back.
  ASSERT_TRUE(s.sched().SetForeignGpus(1, 0).ok());
  EXPECT_THAT(s.Cycle(3 * kSecond), ElementsAre("start 3 on a1:0,1,2,3"));
  s.Add(NewJob(4, 1, 4 * kSecond));
  EXPECT_THAT(s.Cycle(4 * kSecond), IsEmpty());
  ASSERT_TRUE(s.sched().SetForeignGpus(0, 0).ok());
  EXPECT_THAT(s.Cycle(5 * kSecond), ElementsAre("start 4 on a0:0"));
  EXPECT_FALSE(s.sched().SetForeignGpus(7, 1).ok());
}

}  // namespace
}  // namespace squeeze
