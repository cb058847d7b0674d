// The one-word reasons the queue shows for waiting jobs (Slurm's REASON codes).
#include "core/wait_reasons.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using testing::Cluster;
using ::testing::ElementsAre;
using testing::NewJob;
using ::testing::Pair;
using testing::Quota;
using testing::Scenario;

std::vector<std::pair<JobId, std::string>> Reasons(Scenario& s) {
  std::vector<std::pair<JobId, std::string>> out;
  for (const auto& [id, r] : WaitReasons(s.sched()))
    out.emplace_back(id, std::string(WaitReasonName(r)));
  return out;
}

// The first waiting job of a pool waits for resources; the ones behind it for it (Priority),
// or, when enough GPUs are free, for a reservation of the job ahead; a job of another pool
// is first in its own line.
TEST(WaitReasonsTest, FirstInLineWaitsForResourcesTheOthersForPriorityOrAReservation) {
  Scenario s(Cluster({{"a", 1, 8}, {"b", 1, 2}}), "backfill");
  s.Add(NewJob(1, 6, 0).Pool("a"));
  s.Add(NewJob(2, 2, 0).Pool("b"));
  s.Cycle(0);
  s.Add(NewJob(3, 7, kSecond).Pool("a"));      // needs 7: 2 are free
  s.Add(NewJob(4, 4, 2 * kSecond).Pool("a"));  // behind 3, and 4 are not free
  // Behind 3; 2 are free, but held for 3 (no estimates).
  s.Add(NewJob(5, 2, 3 * kSecond).Pool("a"));
  s.Add(NewJob(6, 1, 4 * kSecond).Pool("b"));  // b is full: first in b's line
  s.Cycle(4 * kSecond);
  EXPECT_THAT(Reasons(s), ElementsAre(Pair(3, "Resources"), Pair(4, "Priority"),
                                      Pair(5, "Reservation"), Pair(6, "Resources")));
}

// A job whose team has used its quota of its home pool waits on the quota.
TEST(WaitReasonsTest, AJobOverItsTeamsQuotaWaitsOnTheQuota) {
  Scenario s(Quota(Quota(Cluster({{"a", 1, 8}}), "a", "ml", 4), "a", "cv", 4), "fifo");
  s.Add(NewJob(1, 4, 0).Pool("a").Team("ml"));
  s.Cycle(0);
  s.Add(NewJob(2, 2, 1 * kSecond).Pool("a").Team("ml"));
  s.Cycle(1 * kSecond);
  EXPECT_THAT(Reasons(s), ElementsAre(Pair(2, "QuotaLimit")));
}

}  // namespace
}  // namespace squeeze
