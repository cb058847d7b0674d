#include "config/job_limits.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "config/cluster_file.h"
#include "core/testing/temp_dir.h"

namespace squeeze {
namespace {

void ExpectError(const Result<JobLimits>& r, const std::vector<std::string>& parts) {
  ASSERT_FALSE(r.ok()) << "expected an error containing '" << parts.front() << "'";
  for (const std::string& part : parts) {
    EXPECT_NE(r.status().message().find(part), std::string::npos)
        << "'" << part << "' not in: " << r.status().message();
  }
}

Result<JobLimits> ParseFile(const std::string& text) {
  return ParseJobLimitsYaml(text, "l.yaml", /*in_cluster_file=*/false);
}

constexpr const char* kPools = "pools:\n  - name: p\n    nodes: [{name: n0}]\n";

TEST(JobLimitsTest, WithoutASectionEveryoneGetsTheDefaults) {
  const Result<JobLimits> r = ParseJobLimitsYaml(kPools, "c.yaml", /*in_cluster_file=*/true);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->source.empty());
  EXPECT_EQ(r->MaxUrgency("bob", "ml").value, Urgency::kNormal);
  EXPECT_NE(r->MaxUrgency("bob", "ml").origin.find("squeeze's default"), std::string::npos);
  EXPECT_EQ(r->MaxWaitingJobsPerUser("bob", "ml").value, kDefaultMaxWaitingJobsPerUser);
  EXPECT_EQ(r->MaxWaitingJobsPerTeam("ml").value, kDefaultMaxWaitingJobsPerTeam);
  EXPECT_EQ(r->MaxTasksPerSubmission("bob", "ml").value, kDefaultMaxTasksPerSubmission);
  EXPECT_EQ(r->purge_job_details_after, 30 * kDay);
}

// The user's entry wins over the team's, the team's over the top level, that over the default;
// each answer says where it was set.
TEST(JobLimitsTest, TheMostSpecificLevelThatSetsASettingApplies) {
  const Result<JobLimits> r = ParseJobLimitsYaml(std::string(kPools) + R"(
limits:
  max_urgency: low
  max_waiting_jobs_per_user: 500
  max_tasks_per_submission: 2000
  purge_job_details_after: 7d
  teams:
    ml: {max_urgency: critical, max_waiting_jobs_per_user: 800, max_waiting_jobs_per_team: 9000}
    vision: {max_tasks_per_submission: 100000}
  users:
    sqz-bob: {max_urgency: high}
    sqz-alice: {max_waiting_jobs_per_user: 0}
)",
                                           "c.yaml", /*in_cluster_file=*/true);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->source, "c.yaml");
  EXPECT_EQ(r->MaxUrgency("sqz-bob", "ml").value, Urgency::kHigh);
  EXPECT_EQ(r->MaxUrgency("sqz-bob", "ml").origin,
            "set by an admin as limits.users.sqz-bob.max_urgency in c.yaml");
  EXPECT_EQ(r->MaxUrgency("sqz-carol", "ml").value, Urgency::kCritical);
  EXPECT_EQ(r->MaxUrgency("sqz-carol", "ml").origin,
            "set by an admin as limits.teams.ml.max_urgency in c.yaml");
  EXPECT_EQ(r->MaxUrgency("sqz-carol", "other").value, Urgency::kLow);
  EXPECT_EQ(r->MaxUrgency("sqz-carol", "other").origin,
            "set by an admin as limits.max_urgency in c.yaml");
  EXPECT_EQ(r->MaxWaitingJobsPerUser("sqz-bob", "ml").value, 800);
  EXPECT_EQ(r->MaxWaitingJobsPerUser("sqz-alice", "ml").value, 0);
  EXPECT_EQ(r->MaxWaitingJobsPerUser("sqz-bob", "vision").value, 500);
  EXPECT_EQ(r->MaxWaitingJobsPerTeam("ml").value, 9000);
  EXPECT_EQ(r->MaxWaitingJobsPerTeam("vision").value, kDefaultMaxWaitingJobsPerTeam);
  EXPECT_NE(r->MaxWaitingJobsPerTeam("vision").origin.find("squeeze's default; an admin sets "
                                                           "limits.max_waiting_jobs_per_team"),
            std::string::npos);
  EXPECT_EQ(r->MaxTasksPerSubmission("x", "vision").value, 100000);
  EXPECT_EQ(r->MaxTasksPerSubmission("x", "ml").value, 2000);
  EXPECT_EQ(r->purge_job_details_after, 7 * kDay);
  const std::string line = r->Describe();
  EXPECT_NE(line.find("urgency up to low (above it: team ml critical, user sqz-bob high)"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("purged 7d after it ended"), std::string::npos) << line;
  EXPECT_NE(line.find("(from c.yaml)"), std::string::npos) << line;
}

// A cluster file's limits are checked by every reader of the file (the simulator's too).
TEST(JobLimitsTest, AClusterFileWithBrokenLimitsIsRefusedByItsReader) {
  const Result<ClusterSpec> r =
      ParseClusterYaml(std::string(kPools) + "limits: {max_urgency: urgent}\n", "c.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("c.yaml:4: limits.max_urgency: value 'urgent' is not an "
                                      "urgency; expected critical, high, normal or low"),
            std::string::npos)
      << r.status().message();
  EXPECT_TRUE(
      ParseClusterYaml(std::string(kPools) + "limits: {max_urgency: high}\n", "c.yaml").ok());
}

TEST(JobLimitsTest, BrokenSettingsAreRefusedNamingTheKeyAndTheValue) {
  ExpectError(ParseFile("limits: {max_urgency: [high]}"),
              {"l.yaml:1: limits.max_urgency: expected an urgency, got a list"});
  ExpectError(ParseFile("limits:\n  max_waiting_jobs_per_user: lots\n"),
              {"l.yaml:2: limits.max_waiting_jobs_per_user: value 'lots' is not an integer"});
  ExpectError(ParseFile("limits:\n  max_waiting_jobs_per_user: -1\n"),
              {"limits.max_waiting_jobs_per_user: value '-1' must be at least 0"});
  ExpectError(ParseFile("limits:\n  max_waiting_jobs_per_team: 10000001\n"),
              {"limits.max_waiting_jobs_per_team: value '10000001' must be at most 10000000"});
  ExpectError(ParseFile("limits:\n  max_tasks_per_submission: 0\n"),
              {"limits.max_tasks_per_submission: value '0' must be at least 1"});
  ExpectError(ParseFile("limits:\n  max_tasks_per_submission: 100001\n"),
              {"limits.max_tasks_per_submission: value '100001' must be at most 100000"});
  ExpectError(ParseFile("limits:\n  purge_job_details_after: soon\n"),
              {"l.yaml:2: limits.purge_job_details_after: value 'soon' is not a duration"});
  ExpectError(ParseFile("limits:\n  max_urgncy: high\n"),
              {"l.yaml:2: limits: unknown key 'max_urgncy'; known keys: max_urgency"});
  ExpectError(ParseFile("limits:\n  max_urgency: high\n  max_urgency: low\n"),
              {"l.yaml:3: limits: key 'max_urgency' is given twice"});
  ExpectError(ParseFile("limits: 5\n"), {"l.yaml:1: limits: expected a map"});
}

TEST(JobLimitsTest, BrokenEntriesAreRefusedNamingTheEntry) {
  ExpectError(ParseFile("limits:\n  teams: [ml]\n"),
              {"l.yaml:2: limits.teams: expected a map of team: settings, got a list"});
  ExpectError(ParseFile("limits:\n  teams:\n    'm l': {max_urgency: high}\n"),
              {"l.yaml:3: limits.teams: a team name is 1 to 64 of A-Z a-z 0-9 . _ -, not 'm l'"});
  ExpectError(ParseFile("limits:\n  users:\n    bob: {max_urgency: top}\n"),
              {"l.yaml:3: limits.users.bob.max_urgency: value 'top' is not an urgency"});
  ExpectError(ParseFile("limits:\n  users:\n    bob:\n      max_waiting_jobs_per_team: 5\n"),
              {"l.yaml:4: limits.users.bob: a user's entry has no team cap"});
  ExpectError(ParseFile("limits:\n  teams:\n    ml: {purge_job_details_after: 1d}\n"),
              {"limits.teams.ml: unknown key 'purge_job_details_after'"});
  ExpectError(ParseFile("limits:\n  teams:\n    ml: {}\n    ml: {}\n"),
              {"l.yaml:4: limits.teams: 'ml' is given twice"});
  ExpectError(ParseFile("limits:\n  users:\n    bob: high\n"),
              {"l.yaml:3: limits.users.bob: expected a map with keys max_urgency"});
}

TEST(JobLimitsTest, ALimitsFileHoldsOnlyTheSection) {
  ExpectError(ParseFile(""), {"l.yaml: the file is empty; expected a map with key 'limits'"});
  ExpectError(ParseFile(kPools), {"l.yaml:1: unknown key 'pools'; a limits file holds only"});
  ExpectError(ParseFile("other: 1\n"), {"unknown key 'other'"});
  ExpectError(ParseFile("limits: {}\n---\nlimits: {}\n"), {"more than one YAML document"});
  ExpectError(ParseFile("limits: {max_urgency: high"), {"l.yaml:1:", "YAML syntax error"});
  const Result<JobLimits> r = ParseFile("limits: {purge_job_details_after: 0}\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->purge_job_details_after, 0);
  EXPECT_NE(r->Describe().find("kept forever"), std::string::npos);
}

TEST(JobLimitsTest, ADaemonTakesItsLimitsFromOneFileNotTwo) {
  testing::TempDir dir("squeeze-limits");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.path() + "/" + name) << text;
    return dir.path() + "/" + name;
  };
  const std::string plain = write("plain.yaml", kPools);
  const std::string with =
      write("with.yaml", std::string(kPools) + "limits: {max_urgency: high}\n");
  const std::string csv = write("c.csv", "pool,nodes,gpus_per_node\np,1,8\n");
  const std::string file = write("limits.yaml", "limits: {max_urgency: low}\n");
  EXPECT_TRUE(LoadJobLimits("", "").value().source.empty());
  EXPECT_EQ(LoadJobLimits(with, "").value().everyone.max_urgency, Urgency::kHigh);
  EXPECT_EQ(LoadJobLimits(plain, file).value().everyone.max_urgency, Urgency::kLow);
  EXPECT_EQ(LoadJobLimits(csv, file).value().source, file);
  EXPECT_TRUE(LoadJobLimits(csv, "").value().source.empty());
  ExpectError(LoadJobLimits(with, file), {"limits: given twice", with, file});
  ExpectError(LoadJobLimits("", dir.path() + "/none.yaml"), {"limits file", "none.yaml"});
}

}  // namespace
}  // namespace squeeze
