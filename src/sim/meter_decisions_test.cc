// The fragmentation meter asks the node order where each waiting job would go (a query); a
// query never changes what an order judges by (core/plugins/node_order.h), so a run with the
// meter and one without make the same decisions, in the same order, on real traces: the
// Philly half set-up (whole GPUs) and an openb replay (fractions of GPUs, CPU; squeeze's
// scarcity weights and the random order's draws at work).
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config/cluster_file.h"
#include "core/cluster_spec.h"
#include "core/placement.h"
#include "core/policy.h"
#include "core/testing/scenario.h"
#include "sim/readers/openb_reader.h"
#include "sim/readers/trace_reader.h"
#include "sim/simulator.h"

namespace squeeze {
namespace {

#define SHARED SQUEEZE_SHARED_DIR "/traces/"

struct Run {
  std::vector<std::string> decisions;  // one line each: time, kind, job, where, why
  SimResult result;
};

// `policy_name` as NamedPolicy takes it, with "/ORDER" for another node order.
Run Simulated(const Trace& trace, const ClusterSpec& cluster, const std::string& policy_name,
              bool meter) {
  Run run;
  const size_t slash = policy_name.find('/');
  Result<Policy> policy = NamedPolicy(policy_name.substr(0, slash));
  EXPECT_TRUE(policy.ok()) << policy.status().message();
  if (!policy.ok()) return run;
  if (slash != std::string::npos) {
    Status st = SetPolicyOption(*policy, "node_order", policy_name.substr(slash + 1));
    EXPECT_TRUE(st.ok()) << st.message();
  }
  SimOptions options;
  options.measure_fragmentation = meter;
  options.on_decision = [&](Time now, const Decision& d) {
    run.decisions.push_back(std::to_string(now) +
                            (d.kind == Decision::Kind::kStart ? " start " : " stop ") +
                            std::to_string(d.job) + " " +
                            testing::DescribePlacement(d.placement, cluster) + " " + d.reason);
  };
  Result<SimResult> r = Simulate(trace, cluster, *policy, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok()) run.result = std::move(*r);
  return run;
}

// Both runs' decisions, equal line by line (the first difference is named), and the meter
// measured something in the one that had it (or it would prove nothing).
void ExpectSameDecisions(const Trace& trace, const ClusterSpec& cluster,
                         const std::string& policy) {
  const Run with = Simulated(trace, cluster, policy, true);
  const Run without = Simulated(trace, cluster, policy, false);
  Time queued = 0;
  for (const JobRecord& j : with.result.jobs) queued += j.queue;
  EXPECT_GT(queued, 0) << policy << ": no job waited, so where each went did not matter";
  ASSERT_GT(with.decisions.size(), trace.jobs.size() / 2) << policy;
  EXPECT_GT(with.result.frag_blocked_gpu_s, 0) << policy << ": the meter measured nothing";
  EXPECT_TRUE(std::isnan(without.result.frag_blocked_gpu_s)) << policy;
  for (size_t i = 0; i < with.decisions.size() && i < without.decisions.size(); ++i) {
    ASSERT_EQ(with.decisions[i], without.decisions[i])
        << policy << ": decision " << i << " differs with the meter on (left) and off";
  }
  EXPECT_EQ(with.decisions.size(), without.decisions.size()) << policy;
  EXPECT_EQ(with.result.preemptions, without.result.preemptions) << policy;
  EXPECT_EQ(with.result.makespan, without.result.makespan) << policy;
}

TEST(MeterDecisionsTest, PhillyHalfSetUpSameDecisionsWithAndWithoutTheMeter) {
  Result<Trace> trace = ReadTrace(SHARED "philly/philly_oct_nov.csv", ReadOptions{});
  if (!trace.ok()) GTEST_SKIP() << trace.status().message();
  Result<ClusterSpec> cluster =
      LoadClusterFile(SQUEEZE_SOURCE_DIR "/examples/clusters/philly-half.yaml");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  for (const std::string policy : {"squeeze", "fifo"}) {
    ExpectSameDecisions(*trace, *cluster, policy);
  }
}

// The openb default pods on a twentieth of the openb GPU nodes (every 20th row), arriving 50
// times as fast, so that pods queue, are preempted and where each goes matters; squeeze with
// its own placement (its scarcity weights) and with the random order.
TEST(MeterDecisionsTest, OpenbReplaySameDecisionsWithAndWithoutTheMeter) {
  Result<Trace> trace = ReadOpenbPods(SHARED "openb/openb_pod_list_default.csv", ReadOptions{});
  if (!trace.ok()) GTEST_SKIP() << trace.status().message();
  Result<ClusterSpec> all = ReadOpenbNodes(SHARED "openb/openb_node_list_gpu_node.csv");
  ASSERT_TRUE(all.ok()) << all.status().message();
  ClusterSpec twentieth = *all;
  twentieth.nodes.clear();
  for (size_t i = 0; i < all->nodes.size(); i += 20) twentieth.nodes.push_back(all->nodes[i]);
  // In whole seconds, so that the arrivals are the same at any tick.
  for (TraceJob& j : trace->jobs) {
    j.spec.submit_time = Seconds(WholeSeconds(j.spec.submit_time) / 50);
  }
  for (const std::string policy : {"squeeze", "squeeze/random"}) {
    ExpectSameDecisions(*trace, twentieth, policy);
  }
}

}  // namespace
}  // namespace squeeze
