// Job arrays and dependencies in the simulator, read from a job-profile trace: a pipeline runs
// in the order its dependencies say, an array never runs more tasks than its limit, and a job
// whose dependency can no longer hold never runs.
#include <algorithm>
#include <map>
#include <cstring>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/testing/scenario.h"
#include "sim/readers/trace_reader.h"
#include "sim/simulator.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Cluster;
using testing::MakePolicy;

Trace Read(const std::string& csv) {
  auto t = ParseTrace(csv, "pipeline.csv", ReadOptions{});
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : Trace{};
}

SimResult Simulated(const Trace& trace, int gpus) {
  auto r = Simulate(trace, Cluster({{"a", 1, gpus}}), MakePolicy("backfill"), SimOptions{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : SimResult{};
}

// preprocess (1) -> train, an array of 6 tasks limited to 2 (2..) -> eval (3), on 8 GPUs that
// would run everything at once.
const char kPipeline[] =
    "id,submit_time,duration,gpus,pool,name,array,dependency\n"
    "1,0,100,1,,preprocess,,\n"
    "2,0,50,1,,train,0-5%2,afterok:1\n"
    "3,0,10,1,,eval,,afterok:2\n";

TEST(SimulatorLinksTest, APipelineRunsInOrderAndAnArrayWithinItsLimit) {
  const Trace trace = Read(kPipeline);
  ASSERT_EQ(trace.jobs.size(), 8u);  // the array's row is its six tasks
  const SimResult r = Simulated(trace, 8);
  std::map<std::string, std::vector<std::pair<Time, Time>>> runs;  // name -> (start, end)
  std::map<JobId, std::string> name;
  for (const TraceJob& j : trace.jobs) name[j.spec.id] = j.spec.name;
  for (const JobRecord& j : r.jobs) runs[name[j.id]].push_back({j.first_start, j.end});
  ASSERT_EQ(runs["preprocess"].size(), 1u);
  ASSERT_EQ(runs["train"].size(), 6u);
  ASSERT_EQ(runs["eval"].size(), 1u);
  const Time pre_end = runs["preprocess"][0].second;
  Time train_end = 0;
  for (const auto& [start, end] : runs["train"]) {
    EXPECT_GE(start, pre_end);
    train_end = std::max(train_end, end);
  }
  EXPECT_GE(runs["eval"][0].first, train_end);
  // Two at a time: three waves of 50 s.
  EXPECT_EQ(train_end - pre_end, 150 * kSecond);
  EXPECT_EQ(r.most_array_running, 2);
  EXPECT_TRUE(r.dependency_never.empty());
}

// A train step that times out (its limit below its duration): eval (afterok) never runs, a
// cleanup job (afternotok) does; singleton jobs of one user and name run one after another.
TEST(SimulatorLinksTest, AJobWhoseDependencyFailsNeverRunsAndSingletonsRunOneAtATime) {
  const Trace trace = Read(
      "id,submit_time,duration,gpus,pool,name,user,time_limit,dependency\n"
      "1,0,100,1,,train,ana,50,\n"
      "2,0,10,1,,eval,ana,,afterok:1\n"
      "3,0,10,1,,cleanup,ana,,afternotok:1\n"
      "4,0,30,1,,nightly,ana,,singleton\n"
      "5,0,30,1,,nightly,ana,,singleton\n"
      "6,0,30,1,,nightly,bo,,singleton\n");
  const SimResult r = Simulated(trace, 8);
  EXPECT_THAT(r.dependency_never, ElementsAre(2));
  std::map<JobId, const JobRecord*> by_id;
  for (const JobRecord& j : r.jobs) by_id[j.id] = &j;
  ASSERT_TRUE(by_id.count(3));
  EXPECT_EQ(by_id[3]->first_start, 50 * kSecond);
  EXPECT_EQ(by_id[5]->first_start, by_id[4]->end);  // after ana's first nightly
  EXPECT_EQ(by_id[6]->first_start, 0);              // bo's runs at once
}

// Three arrays of 150 tasks each (%4, %10, %25) among 300 single jobs of mixed sizes and
// urgencies on 16 GPUs, under squeeze (preemption, slices): every start is checked against its
// array's limit (the run fails otherwise), and the limits bind.
TEST(SimulatorLinksTest, ArraysNeverRunMoreTasksThanTheirLimitInABusyRun) {
  std::string csv = "id,submit_time,duration,gpus,pool,urgency,array\n";
  uint64_t x = 12345;
  auto next = [&](uint64_t mod) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((x >> 33) % mod);
  };
  const char* urgencies[] = {"low", "normal", "high"};
  JobId id = 1;
  for (int i = 0; i < 300; ++i) {
    csv += std::to_string(id++) + "," + std::to_string(i * 60) + "," +
           std::to_string(300 + next(7200)) + "," + std::to_string(1 << next(3)) + ",," +
           urgencies[next(3)] + ",\n";
  }
  for (int limit : {4, 10, 25}) {
    csv += std::to_string(id++) + "," + std::to_string(limit * 100) + "," +
           std::to_string(600 + next(1800)) + ",1,,low,0-149%" + std::to_string(limit) + "\n";
  }
  const Trace trace = Read(csv);
  ASSERT_EQ(trace.jobs.size(), 300u + 3 * 150);
  auto r = Simulate(trace, Cluster({{"a", 2, 8}}), MakePolicy("squeeze"), SimOptions{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->jobs.size(), trace.jobs.size());
  EXPECT_GE(r->most_array_running, 4);
  EXPECT_LE(r->most_array_running, 25);
  // The same arrays with room for all their tasks: they run more at once than the tightest
  // limit allowed, so the limits above did bind.
  std::string loose = csv;
  for (const char* l : {"%4\n", "%10\n", "%25\n"}) loose.replace(loose.find(l), strlen(l), "%150\n");
  auto unlimited = Simulate(Read(loose), Cluster({{"a", 2, 8}}), MakePolicy("squeeze"), SimOptions{});
  ASSERT_TRUE(unlimited.ok());
  EXPECT_GT(unlimited->most_array_running, 4);
}

TEST(SimulatorLinksTest, BrokenLinksInATraceSayWhichJobAndWhy) {
  for (const auto& [rows, says] : std::vector<std::pair<std::string, std::string>>{
           {"1,0,10,1,,a,,afterok:9\n", "job 1: dependency 'afterok:9': there is no job 9"},
           {"1,0,10,1,,a,,afterok:2\n2,5,10,1,,b,,\n", "job 2 is submitted after it"},
           {"1,0,10,1,,a,0-3,\n2,0,10,1,,b,,afterok:1_7\n", "array 1 has no task 7"},
           {"1,0,10,1,,a,,afterok:1_0\n", "job 1 is not an array"},
           {"1,0,10,1,,a,3-1,\n", "goes backwards"},
           {"1,0,10,1,,a,,afterok\n", "names no job"}}) {
    auto t = ParseTrace("id,submit_time,duration,gpus,pool,name,array,dependency\n" + rows,
                        "bad.csv", ReadOptions{});
    ASSERT_FALSE(t.ok()) << rows;
    EXPECT_THAT(t.status().message(), HasSubstr(says)) << rows;
  }
}

}  // namespace
}  // namespace squeeze
