// Scenario tests of the kueue and volcano models (docs/policies.md): what sets them apart from
// squeeze's own policy: borrowing for any workload, Kueue's and Volcano's victim order, and
// kube-scheduler's spreading node order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using testing::Cluster;
using testing::MakePolicy;
using testing::NewJob;
using testing::Scenario;

TEST(KubernetesModelsTest, AnyWorkloadBorrowsACohortsIdleQuotaAndIsReclaimed) {
  for (const char* model : {"kueue+borrow", "volcano+borrow"}) {
    SCOPED_TRACE(model);
    Scenario s(Cluster({{"a", 1, 4}, {"b", 1, 4}}), model);
    s.Add(NewJob(1, 4, 0).Pool("a"));
    s.Add(NewJob(2, 4, 0).Pool("a"));  // not preemptible: squeeze's borrow would not lend
    EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3", "start 2 on b0:0,1,2,3 borrowed"));
    s.Add(NewJob(3, 4, 100 * kSecond).Pool("b"));
    EXPECT_THAT(s.Settle(100 * kSecond),
                ElementsAre("stop 2: borrowed capacity reclaimed for 3", "start 3 on b0:0,1,2,3"));
  }
  // Without +borrow (the export of a policy without it: borrowingLimit 0), pools keep to
  // themselves; squeeze's own borrowing lends only to preemptible jobs.
  for (const char* model : {"kueue", "fifo+borrow"}) {
    SCOPED_TRACE(model);
    Scenario s(Cluster({{"a", 1, 4}, {"b", 1, 4}}), model);
    s.Add(NewJob(1, 4, 0).Pool("a"));
    s.Add(NewJob(2, 4, 0).Pool("a"));
    EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3"));
  }
}

// One 8-GPU node: job 1 checkpoints every minute (little to lose), job 2 never does and started
// later; an urgent job needs 4 GPUs.
Scenario TwoVictimCandidates(const Policy& policy) {
  Scenario s(Cluster({{"a", 1, 8}}), policy);
  s.Add(NewJob(1, 4, 0).Pool("a").Elastic().CheckpointEvery(kMinute).Urgency(Urgency::kLow));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1,2,3"));
  s.Add(NewJob(2, 4, 10 * kSecond).Pool("a").Preemptible().Urgency(Urgency::kLow));
  EXPECT_THAT(s.Cycle(10 * kSecond), ElementsAre("start 2 on a0:4,5,6,7"));
  s.Add(NewJob(3, 4, 1000 * kSecond).Pool("a").Urgency(Urgency::kHigh));
  return s;
}

TEST(KubernetesModelsTest, KueueEvictsTheMostRecentlyAdmittedOfTheLowestPriority) {
  Scenario kueue = TwoVictimCandidates(MakePolicy("kueue"));
  EXPECT_THAT(kueue.Cycle(1000 * kSecond), ElementsAre("stop 2: preempted for 3"));
  // squeeze's order: the victim that loses the least work since its last checkpoint.
  Scenario least_lost = TwoVictimCandidates(MakePolicy("kueue", {{"victim_order", "least_lost"}}));
  EXPECT_THAT(least_lost.Cycle(1000 * kSecond), ElementsAre("stop 1: preempted for 3"));
}

TEST(KubernetesModelsTest, TheLowestPriorityGoesFirstWhateverItsAge) {
  Scenario s(Cluster({{"a", 1, 8}}), MakePolicy("volcano"));
  s.Add(NewJob(1, 4, 0).Pool("a").Preemptible().Urgency(Urgency::kLow));
  s.Add(NewJob(2, 4, 0).Pool("a").Preemptible().Urgency(Urgency::kNormal));
  EXPECT_THAT(s.Cycle(0), ElementsAre("start 2 on a0:0,1,2,3", "start 1 on a0:4,5,6,7"));
  s.Add(NewJob(3, 4, 50 * kSecond).Pool("a").Urgency(Urgency::kHigh));
  EXPECT_THAT(s.Cycle(50 * kSecond), ElementsAre("stop 1: preempted for 3"));
}

TEST(KubernetesModelsTest, KueueIsBestEffortFifoVolcanoSkipsTooButPacks) {
  // A blocked 8-GPU head does not hold back a 2-GPU job behind it (no reservation); kube's
  // default scoring spreads the small jobs over the emptiest nodes, binpack fills one.
  for (const auto& [model, second] :
       std::vector<std::pair<std::string, std::string>>{{"kueue", "start 3 on a1:0,1"},
                                                        {"volcano", "start 3 on a0:2,3"}}) {
    SCOPED_TRACE(model);
    Scenario s(Cluster({{"a", 2, 8}}), MakePolicy(model));
    s.Add(NewJob(1, 2, 0).Pool("a"));
    EXPECT_THAT(s.Cycle(0), ElementsAre("start 1 on a0:0,1"));
    s.Add(NewJob(2, 16, kSecond).Pool("a"));
    s.Add(NewJob(3, 2, 2 * kSecond).Pool("a"));
    EXPECT_THAT(s.Cycle(2 * kSecond), ElementsAre(second));
  }
}

TEST(KubernetesModelsTest, TheModelsAreNamedPoliciesWithTheirSettings) {
  const Policy kueue = MakePolicy("kueue");
  EXPECT_EQ(kueue.victim_order, "priority_newest");
  EXPECT_TRUE(kueue.borrow_any);
  EXPECT_FALSE(kueue.strict);
  EXPECT_EQ(kueue.node_order, "least-allocated");
  Policy strict = kueue;
  EXPECT_TRUE(SetPolicyOption(strict, "strict", "true").ok());  // StrictFIFO
  Policy bad = kueue;
  const Status st = SetPolicyOption(bad, "victim_order", "oldest");
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), ::testing::HasSubstr("victim_order 'oldest'"));
  EXPECT_EQ(bad.victim_order, "priority_newest");
  EXPECT_EQ(PolicyOptionUnused(MakePolicy("fifo"), "borrow_any", PolicyDriver::kSimulator),
            "the borrow action");
}

}  // namespace
}  // namespace squeeze
