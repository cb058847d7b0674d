// The early ends of queue walks (core/job_shape.h: the fragmentation meter and backfill stop
// once no job left in them could change anything) change no decision and no figure: a random
// workload of jobs that state only GPUs (shapes) gets the same decisions and the same blocked
// demand as the same jobs made shapeless by a GPU model every node has (walked to the end),
// also when waiting jobs are given a time limit.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/fragmentation_blocked.h"
#include "core/testing/scenario.h"

namespace squeeze {
namespace {

using testing::Cluster;
using testing::NewJob;
using testing::Scenario;

// Every decision and every measure of a random run, as lines. `shapeless`: every job names
// the GPU model of every node ("gpu"), which changes no placement but gives it no shape.
// `pools`: jobs name their pool (else any pool).
std::vector<std::string> RunWorkload(const std::string& policy, bool shapeless, bool pools) {
  Scenario s(Cluster({{"a", 4, 8}, {"b", 2, 4}}), policy);
  FragmentationMeter meter;
  std::set<JobId> running;
  std::vector<std::string> out;
  testing::Draws rng(11);
  JobId next = 1;
  const int sizes[] = {1, 1, 1, 2, 4, 8, 16};
  for (Time now = 0; now < 3000 * kSecond; now += 10 * kSecond) {
    for (int n = rng.Next(5); n > 0; --n) {
      auto job = NewJob(next++, sizes[rng.Next(7)], now);
      if (rng.Next(3) == 0) job.Elastic();
      if (rng.Next(4) == 0) job.Estimate((60 + rng.Next(900)) * kSecond);
      if (pools) job.Pool(rng.Next(2) ? "a" : "b");
      if (pools && rng.Next(4) == 0) job.Pool("b").Team("t");
      if (shapeless) job.Models({"gpu"});
      if (pools && static_cast<JobSpec>(job).gpus > 8) job.Pool("a");  // b cannot hold it
      s.Add(job);
      // A time limit given while it waits (scontrol update) makes it timed: a new shape.
      if (rng.Next(6) == 0) {
        EXPECT_TRUE(s.sched().SetTimeLimit(next - 1, (300 + rng.Next(900)) * kSecond).ok());
      }
    }
    for (auto it = running.begin(); it != running.end();) {
      if (rng.Next(8) != 0) {
        ++it;
        continue;
      }
      s.Finish(*it, now);
      it = running.erase(it);
    }
    for (const Decision& d : s.sched().Cycle(now)) {
      out.push_back(std::to_string(WholeSeconds(now)) + " " + testing::Describe(d, s.cluster()));
      if (d.kind == Decision::Kind::kStart) running.insert(d.job);
      if (d.kind == Decision::Kind::kStop) {
        running.erase(d.job);
        s.Stop(d.job, now);
      }
    }
    const FragmentationBlocked& b = s.sched().BlockedByFragmentation(now, meter);
    out.push_back(std::to_string(WholeSeconds(now)) + " blocked " + std::to_string(b.jobs) +
                  " " + std::to_string(b.milli));
  }
  return out;
}

TEST(EarlyEndTest, ShapedAndShapelessJobsDecideAlike) {
  for (const char* policy : {"fifo", "backfill", "las", "sjf", "squeeze", "backfill+borrow"}) {
    for (bool pools : {false, true}) {
      SCOPED_TRACE(std::string(policy) + (pools ? " with pools" : " any pool"));
      const std::vector<std::string> shaped = RunWorkload(policy, false, pools);
      const std::vector<std::string> shapeless = RunWorkload(policy, true, pools);
      ASSERT_EQ(shaped.size(), shapeless.size());
      for (size_t i = 0; i < shaped.size(); ++i) ASSERT_EQ(shaped[i], shapeless[i]) << i;
      size_t starts = 0, blocked = 0;
      for (const std::string& line : shaped) {
        starts += line.find(" start ") != std::string::npos;
        blocked += line.find(" blocked 0 ") == std::string::npos &&
                   line.find(" blocked ") != std::string::npos;
      }
      EXPECT_GT(starts, 100u);
      EXPECT_GT(blocked, 0u) << "the run should block jobs by fragmentation";
    }
  }
}

}  // namespace
}  // namespace squeeze
