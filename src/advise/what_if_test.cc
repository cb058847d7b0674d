#include "advise/what_if.h"

#include <gtest/gtest.h>

#include "advise/price_sheet.h"
#include "config/cluster_file.h"

namespace squeeze {
namespace {

ClusterSpec Lab() {
  auto c = ParseClusterYaml(R"(pools:
  - {name: vc1, kind: owned, monthly_cost: 800, nodes: [{count: 1, gpus: 8, gpu_model: V100}]}
  - {name: spot-a, kind: spot, price_per_gpu_hour: 1, spot: {mean_reclaim_interval: 6h}, nodes: [{count: 1, gpus: 4}]}
  - {name: res, kind: reserved, monthly_cost: 1000, nodes: [{count: 1, gpus: 1}]}
)", "lab.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

TEST(WhatIfTest, KindNamesItsFirstPool) {
  auto w = ParseWhatIf("spot+16", Lab());
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_EQ(w->changes.size(), 1u);
  EXPECT_EQ(w->changes[0].pool, "spot-a");
  EXPECT_EQ(w->Gpus(), 16);
  EXPECT_EQ(w->Describe(), "16 more GPUs in pool spot-a (spot)");
}

TEST(WhatIfTest, PoolTermsPricedAndNewPools) {
  auto w = ParseWhatIf("vc1+12@reserved, new-on-demand+3", Lab());
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_EQ(w->changes.size(), 2u);
  EXPECT_EQ(w->changes[0].pool, "vc1");
  EXPECT_EQ(*w->changes[0].priced_as, PoolKind::kReserved);
  EXPECT_TRUE(w->changes[1].new_pool);
  EXPECT_EQ(w->Describe(),
            "12 more GPUs in pool vc1 (owned), priced as reserved; 3 more GPUs in a new pool "
            "what-if-on-demand (on-demand)");
  auto c = ApplyWhatIf(Lab(), *w);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(PoolGpus(*c, "vc1"), 20);  // 8 + a node of 8 + a node of 4
  EXPECT_EQ(c->nodes[3].gpus, 8);
  EXPECT_EQ(c->nodes[3].gpu_model, "V100");
  EXPECT_EQ(c->nodes[4].gpus, 4);
  EXPECT_DOUBLE_EQ(c->pools[0].monthly_cost, 800.0 * 20 / 8);  // grows with its GPUs
  EXPECT_EQ(PoolGpus(*c, "what-if-on-demand"), 3);
  EXPECT_EQ(c->pools.back().kind, PoolKind::kOnDemand);
}

TEST(WhatIfTest, BadTermsSayWhatIsWrong) {
  const ClusterSpec lab = Lab();
  auto expect = [&](const std::string& text, const std::string& message) {
    auto w = ParseWhatIf(text, lab);
    ASSERT_FALSE(w.ok()) << text;
    EXPECT_NE(w.status().message().find(message), std::string::npos) << w.status().message();
  };
  expect("spot16", "--what-if 'spot16': expected TARGET+N[@KIND]");
  expect("spot+x", "--what-if 'spot+x': GPU count 'x' is not an integer from 1 to 100000");
  expect("spot+0", "GPU count '0'");
  expect("gpu+3", "'gpu' is neither a pool of the cluster nor a kind");
  expect("on-demand+2", "the cluster has no pool of kind on-demand (new-on-demand+N adds one)");
  expect("vc1+2@owned", "price '@owned' is not reserved, on-demand or spot");
  expect("", "--what-if: empty");
}

}  // namespace
}  // namespace squeeze
