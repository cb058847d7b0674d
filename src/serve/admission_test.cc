#include "serve/admission.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::HasSubstr;

JobLimits Configured() {
  JobLimits l;
  l.source = "/etc/squeeze/cluster.yaml";
  l.everyone.max_waiting_jobs_per_user = 3;
  l.everyone.max_waiting_jobs_per_team = 5;
  l.everyone.max_tasks_per_submission = 4;
  l.teams["vision"].max_urgency = Urgency::kCritical;
  l.users["sqz-carol"].max_urgency = Urgency::kHigh;
  return l;
}

const Principal kBob{"sqz-bob", "ml", false};
const Principal kAlice{"sqz-alice", "vision", false};
const Principal kCarol{"sqz-carol", "ml", false};
const Principal kAdmin{"root", "admin", true};

TEST(AdmissionTest, UrgencyAboveTheCeilingIsRefusedNamingItAndWhoSetsIt) {
  WaitingCounts w;
  Admission a(Configured(), w);
  Status s = a.CheckUrgency(kBob, "ml", Urgency::kCritical);
  EXPECT_EQ(s.message(),
            "urgency: 'critical' is above the ceiling 'normal' for user sqz-bob of team ml "
            "(squeeze's default; an admin sets limits.max_urgency (or a team's or a user's "
            "entry) in /etc/squeeze/cluster.yaml)");
  EXPECT_TRUE(a.CheckUrgency(kBob, "ml", Urgency::kNormal).ok());
  EXPECT_TRUE(a.CheckUrgency(kBob, "ml", Urgency::kLow).ok());
  // A team the admin allowed; a user's own entry.
  EXPECT_TRUE(a.CheckUrgency(kAlice, "vision", Urgency::kCritical).ok());
  EXPECT_TRUE(a.CheckUrgency(kCarol, "ml", Urgency::kHigh).ok());
  EXPECT_THAT(a.CheckUrgency(kCarol, "ml", Urgency::kCritical).message(),
              HasSubstr("above the ceiling 'high' for user sqz-carol of team ml (set by an admin "
                        "as limits.users.sqz-carol.max_urgency in /etc/squeeze/cluster.yaml)"));
  // Admins are not capped.
  EXPECT_TRUE(a.CheckUrgency(kAdmin, "ml", Urgency::kCritical).ok());
}

TEST(AdmissionTest, AnUpdateMayKeepOrLowerAnUrgencyAboveTheCeilingButNotRaiseOne) {
  WaitingCounts w;
  Admission a(JobLimits(), w);  // no limits: section at all
  EXPECT_TRUE(a.CheckUrgency(kBob, "ml", Urgency::kCritical, Urgency::kCritical).ok());
  EXPECT_TRUE(a.CheckUrgency(kBob, "ml", Urgency::kHigh, Urgency::kCritical).ok());
  Status s = a.CheckUrgency(kBob, "ml", Urgency::kHigh, Urgency::kNormal);
  EXPECT_THAT(s.message(), HasSubstr("urgency: 'high' is above the ceiling 'normal'"));
  EXPECT_THAT(s.message(), HasSubstr("the cluster file's limits: section or a --limits file"));
}

TEST(AdmissionTest, AnArrayOverTheTasksCapIsRefused) {
  WaitingCounts w;
  Admission a(Configured(), w);
  EXPECT_TRUE(a.CheckTasks(kBob, "ml", 4, "0-3").ok());
  EXPECT_THAT(a.CheckTasks(kBob, "ml", 5, "0-4").message(),
              HasSubstr("max_tasks_per_submission: the array '0-4' has 5 tasks, the cap is 4 "
                        "for user sqz-bob of team ml (set by an admin as "
                        "limits.max_tasks_per_submission in /etc/squeeze/cluster.yaml); nothing "
                        "was stored"));
  // Admins too: the caps protect the daemon, not a privilege.
  EXPECT_FALSE(a.CheckTasks(kAdmin, "ml", 5, "0-4").ok());
}

TEST(AdmissionTest, WaitingJobsArCappedPerUserThenPerTeam) {
  WaitingCounts w;
  Admission a(Configured(), w);
  ASSERT_TRUE(a.ReserveWaiting(kBob, "ml", 3).ok());
  EXPECT_EQ(a.ReserveWaiting(kBob, "ml", 1).message(),
            "max_waiting_jobs_per_user: sqz-bob has 3 waiting jobs, the cap is 3; this "
            "submission adds 1 (set by an admin as limits.max_waiting_jobs_per_user in "
            "/etc/squeeze/cluster.yaml); nothing was stored: wait for some of them to start, or "
            "cancel some");
  ASSERT_TRUE(a.ReserveWaiting(kCarol, "ml", 2).ok());
  EXPECT_THAT(a.ReserveWaiting(kCarol, "ml", 1).message(),
              HasSubstr("max_waiting_jobs_per_team: team ml has 5 waiting jobs, the cap is 5"));
  // Another team is not held back; a job given back frees its place.
  EXPECT_TRUE(a.ReserveWaiting(kAlice, "vision", 3).ok());
  a.Unreserve(kBob, "ml", 1);
  EXPECT_TRUE(a.ReserveWaiting(kCarol, "ml", 1).ok());
}

TEST(AdmissionTest, TheNodesViewShowsEachUserWhatAppliesToThemAndAdminsTheEntries) {
  WaitingCounts w;
  Admission a(Configured(), w);
  ASSERT_TRUE(a.ReserveWaiting(kBob, "ml", 2).ok());
  const nlohmann::json bob = a.Json(kBob);
  EXPECT_EQ(bob["source"], "/etc/squeeze/cluster.yaml");
  EXPECT_EQ(bob["yours"]["max_urgency"], "normal");
  EXPECT_EQ(bob["yours"]["waiting_jobs"], 2);
  EXPECT_EQ(bob["yours"]["max_waiting_jobs_per_user"], 3);
  EXPECT_EQ(bob["yours"]["team_waiting_jobs"], 2);
  EXPECT_FALSE(bob.contains("teams"));
  EXPECT_EQ(a.Json(kAlice)["yours"]["max_urgency"], "critical");
  const nlohmann::json admin = a.Json(kAdmin);
  EXPECT_EQ(admin["teams"]["vision"]["max_urgency"], "critical");
  EXPECT_EQ(admin["users"]["sqz-carol"]["max_urgency"], "high");
  EXPECT_EQ(admin["purge_job_details_after_s"], 30 * 86400);
}

}  // namespace
}  // namespace squeeze
