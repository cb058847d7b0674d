#include "sim/trace_pools.h"

#include <gtest/gtest.h>

#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using testing::Cluster;

Trace TraceOf(const std::vector<std::string>& pools) {
  Trace trace;
  JobId id = 1;
  for (const std::string& pool : pools) {
    TraceJob job;
    job.spec.id = id++;
    job.spec.pool = pool;
    job.duration = kSecond;
    trace.jobs.push_back(job);
  }
  return trace;
}

TEST(TracePoolsTest, PoolsTheClusterHasAndJobsOfNoPoolAreFine) {
  const ClusterSpec cluster = Cluster({{"a", 1, 8}, {"b", 1, 8}});
  EXPECT_TRUE(PoolsMissingFrom(TraceOf({"a", "b", "", "a"}), cluster).empty());
  EXPECT_TRUE(CheckTracePools(TraceOf({"a", "", "b"}), cluster, "c.yaml").ok());
  EXPECT_TRUE(CheckTracePools(Trace{}, cluster, "c.yaml").ok());
}

TEST(TracePoolsTest, MissingPoolsAreCountedMostJobsFirst) {
  const ClusterSpec cluster = Cluster({{"a", 1, 8}});
  const auto missing = PoolsMissingFrom(TraceOf({"x", "a", "y", "y", "", "x", "y", "z"}), cluster);
  ASSERT_EQ(missing.size(), 3u);
  EXPECT_EQ(missing[0].name, "y");
  EXPECT_EQ(missing[0].jobs, 3);
  EXPECT_EQ(missing[1].name, "x");
  EXPECT_EQ(missing[1].jobs, 2);
  EXPECT_EQ(missing[2].name, "z");
  EXPECT_EQ(missing[2].jobs, 1);
}

TEST(TracePoolsTest, OneErrorNamesBothSidesAndTheFixes) {
  const ClusterSpec cluster = Cluster({{"philly", 2, 8}});
  const Trace trace = TraceOf({"6214e9", "11cb48", "6214e9"});
  const Status all = CheckTracePools(trace, cluster, "one.yaml");
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.message(),
            "the trace's jobs name 2 pools the cluster one.yaml does not have: '6214e9' (2 jobs), "
            "'11cb48' (1 job); none of the trace's 3 jobs could run. The cluster's pools: "
            "'philly'. Give --ignore-pools to let every job run in any pool, or name the trace's "
            "pools in the cluster file (docs/cluster-file.md)");
  EXPECT_EQ(MissingPoolsNote(trace, cluster, "one.yaml"), "");  // the error says it
}

// Some jobs' pools only (a replay of some pools' jobs): it runs, with a note on the others.
TEST(TracePoolsTest, SomeJobsPoolsMissingIsANote) {
  const ClusterSpec cluster = Cluster({{"philly", 2, 8}});
  const Trace trace = TraceOf({"philly", "gone", "", "gone"});
  EXPECT_TRUE(CheckTracePools(trace, cluster, "one.yaml").ok());
  EXPECT_EQ(MissingPoolsNote(trace, cluster, "one.yaml"),
            "2 of the trace's 4 jobs name 1 pool the cluster one.yaml does not have: 'gone' (2 "
            "jobs); they are rejected (--ignore-pools lets every job run in any pool)");
  EXPECT_EQ(MissingPoolsNote(TraceOf({"philly", ""}), cluster, "one.yaml"), "");
  // Jobs of no pool can run anywhere: one of them is enough for the rest to be a note.
  EXPECT_TRUE(CheckTracePools(TraceOf({"gone", ""}), cluster, "one.yaml").ok());
}

TEST(TracePoolsTest, LongListsAreCut) {
  std::vector<std::string> pools;
  for (int i = 0; i < 20; ++i) pools.push_back("vc" + std::to_string(100 + i));
  const Status st = CheckTracePools(TraceOf(pools), Cluster({{"a", 1, 8}}), "c.yaml");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'vc111' (1 job) and 8 more;"), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find("vc112"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace squeeze
