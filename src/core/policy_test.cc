#include "core/policy.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/plugins/job_order.h"
#include "core/plugins/node_order.h"

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::IsSupersetOf;

Policy Named(const std::string& name) {
  auto p = NamedPolicy(name);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : Policy{};
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string OptionError(const std::string& key, const std::string& value) {
  Policy p = Named("fifo");
  Status st = SetPolicyOption(p, key, value);
  return st.ok() ? "(accepted)" : st.message();
}

TEST(PolicyTest, NamesAreListedInOrder) {
  const std::vector<std::string> names = PolicyNames();
  EXPECT_THAT(names, IsSupersetOf({"backfill", "fifo", "las", "sjf", "squeeze", "srtf"}));
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST(PolicyTest, EveryNamedPolicyValidates) {
  for (const std::string& name : PolicyNames()) {
    auto p = NamedPolicy(name);
    ASSERT_TRUE(p.ok()) << name << ": " << p.status().message();
    EXPECT_EQ(p->name, name);
    EXPECT_TRUE(p->Validate().ok()) << name << ": " << p->Validate().message();
    auto with_borrow = NamedPolicy(name + "+borrow");
    ASSERT_TRUE(with_borrow.ok()) << name;
    EXPECT_TRUE(with_borrow->Validate().ok()) << name;
  }
}

TEST(PolicyTest, NamedPoliciesAreTheDocumentedConfigurations) {
  Policy fifo = Named("fifo");
  EXPECT_THAT(fifo.actions, ElementsAre("allocate"));
  EXPECT_TRUE(fifo.strict);
  EXPECT_EQ(fifo.job_order, "fifo");
  EXPECT_EQ(fifo.node_order, "consolidation");
  EXPECT_FALSE(fifo.oracle_estimates);

  Policy sjf = Named("sjf");
  EXPECT_EQ(sjf.job_order, "sjf");
  EXPECT_TRUE(sjf.oracle_estimates);
  EXPECT_THAT(sjf.actions, ElementsAre("allocate"));

  Policy srtf = Named("srtf");
  EXPECT_EQ(srtf.job_order, "srtf");
  EXPECT_THAT(srtf.actions, ElementsAre("allocate", "preempt"));
  EXPECT_FALSE(srtf.strict);
  EXPECT_TRUE(srtf.preempt_by_order);
  EXPECT_TRUE(srtf.oracle_estimates);

  Policy las = Named("las");
  EXPECT_EQ(las.job_order, "las");
  EXPECT_THAT(las.actions, ElementsAre("allocate", "backfill", "preempt"));
  EXPECT_TRUE(las.preempt_by_order);

  EXPECT_THAT(Named("backfill").actions, ElementsAre("allocate", "backfill"));

  // squeeze: urgency classes, deadlines and fair share over an order that needs no estimate,
  // never oracle estimates, and a minimum run time before a job may be preempted.
  Policy sq = Named("squeeze");
  EXPECT_TRUE(sq.priority);
  EXPECT_TRUE(sq.deadline);
  EXPECT_TRUE(sq.fair_share);
  EXPECT_FALSE(sq.oracle_estimates);
  EXPECT_EQ(sq.min_runtime, 300 * kSecond);
  EXPECT_THAT(sq.actions,
              ElementsAre("spot", "colocate", "allocate", "reclaim", "defrag", "backfill",
                          "shrink", "preempt", "region", "grow", "return_home",
                                     "upgrade"));
  EXPECT_EQ(sq.defrag_max_moves_per_hour, 1);
  EXPECT_TRUE(sq.spot_aware);
  EXPECT_EQ(sq.spot_long_job, 12 * kHour);
  EXPECT_EQ(sq.spot_long_job_checkpoint, 300 * kSecond);
  EXPECT_TRUE(sq.spot_long_job_bridge);
  EXPECT_EQ(sq.spot_flaky_reclaims, 2);
  EXPECT_EQ(sq.spot_flaky_window, kHour);
  EXPECT_NE(sq.job_order, "sjf");
  EXPECT_NE(sq.job_order, "srtf");
  // sliced: squeeze with checkpointed slices.
  Policy sliced = Named("sliced");
  std::vector<std::string> actions = sq.actions;
  actions.push_back("slice");
  EXPECT_EQ(sliced.actions, actions);
  EXPECT_EQ(sliced.job_order, sq.job_order);
}

TEST(PolicyTest, UnknownNameListsTheKnownOnes) {
  auto p = NamedPolicy("x");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(), "unknown policy 'x' (known: " + Joined(PolicyNames()) + ")");
  auto m = NamedPolicy("fifo+turbo");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(),
            "policy 'fifo+turbo': unknown modifier 'turbo' (known: borrow, defrag, region, spot, colocate, elastic, "
            "shrink, grow)");
}

// Position of `action` in `actions`, -1 if absent.
int IndexOf(const std::vector<std::string>& actions, const std::string& action) {
  auto it = std::find(actions.begin(), actions.end(), action);
  return it == actions.end() ? -1 : static_cast<int>(it - actions.begin());
}

TEST(PolicyTest, BorrowModifierAddsReclaimAndBorrow) {
  EXPECT_EQ(Named("fifo+borrow").name, "fifo+borrow");
  EXPECT_THAT(Named("fifo+borrow").actions, ElementsAre("allocate", "reclaim", "borrow"));
  EXPECT_THAT(Named("las+borrow").actions,
              ElementsAre("allocate", "reclaim", "backfill", "borrow", "preempt"));
  EXPECT_THAT(Named("srtf+borrow").actions,
              ElementsAre("allocate", "reclaim", "borrow", "preempt"));
  EXPECT_FALSE(Named("fifo").Has("borrow"));
  // For every policy: reclaim right after allocate (unless it has it already), borrow after
  // allocate, reclaim and backfill but before preempt; the other actions keep their order.
  for (const std::string& name : PolicyNames()) {
    SCOPED_TRACE(name);
    const Policy base = Named(name);
    const Policy p = Named(name + "+borrow");
    EXPECT_EQ(p.name, name + "+borrow");
    const int borrow = IndexOf(p.actions, "borrow");
    const int reclaim = IndexOf(p.actions, "reclaim");
    ASSERT_GE(borrow, 0);
    ASSERT_GE(reclaim, 0);
    EXPECT_LT(IndexOf(p.actions, "allocate"), reclaim);
    EXPECT_LT(reclaim, borrow);
    EXPECT_LT(IndexOf(p.actions, "backfill"), borrow);
    if (base.Has("preempt")) {
      EXPECT_LT(borrow, IndexOf(p.actions, "preempt"));
    }
    std::vector<std::string> rest;
    for (const auto& a : p.actions) {
      if (a != "borrow" && (a != "reclaim" || base.Has("reclaim"))) rest.push_back(a);
    }
    EXPECT_EQ(rest, base.actions);
    // Everything but the actions and the name is the base policy's.
    EXPECT_EQ(p.job_order, base.job_order);
    EXPECT_EQ(p.priority, base.priority);
    EXPECT_EQ(p.min_runtime, base.min_runtime);
  }
  const Policy sq = Named("squeeze+borrow");
  EXPECT_TRUE(sq.Has("reclaim") && sq.Has("borrow"));
}

TEST(PolicyTest, DefragModifierAddsDefragAfterAllocateAndReclaim) {
  EXPECT_THAT(Named("fifo+defrag").actions, ElementsAre("allocate", "defrag"));
  EXPECT_THAT(Named("las+defrag").actions,
              ElementsAre("allocate", "defrag", "backfill", "preempt"));
  EXPECT_THAT(Named("fifo+borrow+defrag").actions,
              ElementsAre("allocate", "reclaim", "defrag", "borrow"));
  EXPECT_EQ(Named("fifo+defrag").name, "fifo+defrag");
  // squeeze and sliced defragment already: the modifier changes nothing there.
  EXPECT_EQ(Named("squeeze+defrag").actions, Named("squeeze").actions);
  EXPECT_EQ(Named("sliced+defrag").actions, Named("sliced").actions);
  for (const std::string& name : PolicyNames()) {
    SCOPED_TRACE(name);
    const Policy p = Named(name + "+defrag");
    EXPECT_TRUE(p.Validate().ok()) << p.Validate().message();
    EXPECT_LT(IndexOf(p.actions, "allocate"), IndexOf(p.actions, "defrag"));
    std::vector<std::string> rest = p.actions;
    rest.erase(rest.begin() + IndexOf(rest, "defrag"));
    std::vector<std::string> base = Named(name).actions;
    base.erase(std::remove(base.begin(), base.end(), "defrag"), base.end());
    EXPECT_EQ(rest, base);
    EXPECT_EQ(p.defrag_max_moves_per_hour, 1);
  }
}

TEST(PolicyTest, SpotOptions) {
  Result<Policy> fifo = NamedPolicy("fifo+spot+colocate");
  ASSERT_TRUE(fifo.ok()) << fifo.status().message();
  EXPECT_THAT(fifo->actions, ElementsAre("colocate", "spot", "allocate", "return_home"));
  Policy p = Named("squeeze");
  ASSERT_TRUE(SetPolicyOption(p, "spot", "false").ok());
  EXPECT_FALSE(p.Has("spot"));
  ASSERT_TRUE(SetPolicyOption(p, "spot_aware", "false").ok());
  EXPECT_FALSE(p.spot_aware);
  ASSERT_TRUE(SetPolicyOption(p, "spot_naive_interval", "2h").ok());
  EXPECT_EQ(p.spot_naive_interval, 7200 * kSecond);
  ASSERT_TRUE(SetPolicyOption(p, "spot_flaky_reclaims", "3").ok());
  EXPECT_EQ(p.spot_flaky_reclaims, 3);
  const Status bad = SetPolicyOption(p, "spot_flaky_reclaims", "many");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "policy option spot_flaky_reclaims: value 'many' is not a count >= 0");
  EXPECT_FALSE(SetPolicyOption(p, "spot_long_job", "soon").ok());
  ASSERT_TRUE(SetPolicyOption(p, "spot_long_job_bridge", "false").ok());
  EXPECT_FALSE(p.spot_long_job_bridge);
  EXPECT_FALSE(SetPolicyOption(p, "spot_long_job_bridge", "sometimes").ok());
  EXPECT_DOUBLE_EQ(p.spot_long_job_comply, 0.1);
  ASSERT_TRUE(SetPolicyOption(p, "spot_long_job_comply", "0.25").ok());
  EXPECT_DOUBLE_EQ(p.spot_long_job_comply, 0.25);
  for (const char* v : {"1.5", "-0.1", "some", "", "nan"}) {
    const Status st = SetPolicyOption(p, "spot_long_job_comply", v);
    ASSERT_FALSE(st.ok()) << v;
    EXPECT_EQ(st.message(), std::string("policy option spot_long_job_comply: value '") + v +
                                "' is not a share from 0 to 1");
  }
  EXPECT_DOUBLE_EQ(p.spot_long_job_comply, 0.25);  // a refused value changes nothing
  // A +spot fifo gets return_home after its other actions.
  EXPECT_THAT(Named("fifo+spot").actions, ElementsAre("spot", "allocate", "return_home"));
}

TEST(PolicyTest, DefragOptions) {
  Policy p = Named("squeeze");
  ASSERT_TRUE(SetPolicyOption(p, "defrag", "false").ok());
  EXPECT_THAT(p.actions, ElementsAre("spot", "colocate", "allocate", "reclaim", "backfill",
                                     "shrink", "preempt", "region", "grow", "return_home",
                                     "upgrade"));
  ASSERT_TRUE(SetPolicyOption(p, "defrag", "0").ok());
  EXPECT_THAT(p.actions, ElementsAre("spot", "colocate", "allocate", "reclaim", "backfill",
                                     "shrink", "preempt", "region", "grow", "return_home",
                                     "upgrade"));
  ASSERT_TRUE(SetPolicyOption(p, "defrag", "true").ok());
  EXPECT_EQ(p.actions, Named("squeeze").actions);
  ASSERT_TRUE(SetPolicyOption(p, "defrag", "yes").ok());
  EXPECT_EQ(p.actions, Named("squeeze").actions);
  ASSERT_TRUE(SetPolicyOption(p, "defrag_max_moves_per_hour", "3").ok());
  EXPECT_EQ(p.defrag_max_moves_per_hour, 3);
  EXPECT_EQ(OptionError("defrag", "often"),
            "policy option defrag: value 'often' is not true or false");
  EXPECT_EQ(OptionError("defrag_max_moves_per_hour", "-1"),
            "policy option defrag_max_moves_per_hour: value '-1' is not a count >= 0");
  EXPECT_EQ(OptionError("defrag_max_moves_per_hour", "2x"),
            "policy option defrag_max_moves_per_hour: value '2x' is not a count >= 0");
  p.defrag_max_moves_per_hour = -2;
  EXPECT_EQ(p.Validate().message(), "policy 'squeeze': defrag_max_moves_per_hour -2 is negative");
}

TEST(PolicyTest, ARefusedValueChangesNothing) {
  Policy p = Named("sliced");
  EXPECT_EQ(SetPolicyOption(p, "slice", "0").message(), "policy 'sliced': slice 0 must be positive");
  EXPECT_EQ(p.slice, 1800 * kSecond);
  EXPECT_FALSE(SetPolicyOption(p, "job_order", "random-ish").ok());
  EXPECT_EQ(p.job_order, "gittins");
  EXPECT_FALSE(SetPolicyOption(p, "actions", "backfill|preempt").ok());  // no allocate
  EXPECT_EQ(p.actions, Named("sliced").actions);
  EXPECT_FALSE(SetPolicyOption(p, "las_thresholds", "1h|later").ok());
  EXPECT_EQ(p.order_options.las_thresholds, Named("sliced").order_options.las_thresholds);
}

TEST(PolicyTest, EveryOptionIsReadSomewhereAndSaysByWhat) {
  for (const std::string& key : PolicyOptionNames()) {
    bool read = false;
    for (const std::string& name : PolicyNames()) {
      for (const std::string& variant :
           {name, name + "+spot+colocate+defrag+region", name + "+borrow"}) {
        for (const char* aware : {"true", "false"}) {
          Policy p = Named(variant);
          ASSERT_TRUE(SetPolicyOption(p, "spot_aware", aware).ok());
          auto why = PolicyOptionUnused(p, key, PolicyDriver::kLive);
          if (why) EXPECT_FALSE(why->empty()) << key << " in " << variant;
          read |= !why;
        }
      }
    }
    EXPECT_TRUE(read) << key << " is read by no named policy";
  }
  EXPECT_EQ(PolicyOptionUnused(Named("squeeze"), "slice", PolicyDriver::kSimulator),
            "the slice action");
  EXPECT_EQ(PolicyOptionUnused(Named("sliced"), "slice", PolicyDriver::kSimulator), std::nullopt);
  EXPECT_EQ(PolicyOptionUnused(Named("fifo"), "strict", PolicyDriver::kSimulator), std::nullopt);
  EXPECT_TRUE(PolicyOptionUnused(Named("backfill"), "strict", PolicyDriver::kSimulator));
  EXPECT_EQ(PolicyOptionUnused(Named("fifo"), "no_such_key", PolicyDriver::kSimulator),
            std::nullopt);
}

TEST(PolicyTest, AddActionPutsEachWhereTheModifiersDo) {
  Policy fifo = Named("fifo");
  AddAction(fifo, "borrow");
  AddAction(fifo, "reclaim");
  EXPECT_EQ(fifo.actions, Named("fifo+borrow").actions);
  Policy las = Named("las");
  AddAction(las, "region");
  AddAction(las, "spot");
  EXPECT_EQ(las.actions, Named("las+region+spot").actions);
  AddAction(las, "slice");
  AddAction(las, "slice");
  EXPECT_EQ(las.actions.back(), "slice");
  EXPECT_EQ(std::count(las.actions.begin(), las.actions.end(), "slice"), 1);
}

TEST(PolicyTest, SetPolicyOptionChangesOneSetting) {
  Policy p = Named("fifo");
  ASSERT_TRUE(SetPolicyOption(p, "slice", "30m").ok());
  EXPECT_EQ(p.slice, 1800 * kSecond);
  ASSERT_TRUE(SetPolicyOption(p, "min_runtime", "90").ok());
  EXPECT_EQ(p.min_runtime, 90 * kSecond);
  ASSERT_TRUE(SetPolicyOption(p, "deadline_margin", "1h").ok());
  EXPECT_EQ(p.deadline_margin, kHour);
  ASSERT_TRUE(SetPolicyOption(p, "job_order", "srtf").ok());
  EXPECT_EQ(p.job_order, "srtf");
  ASSERT_TRUE(SetPolicyOption(p, "node_order", "best-fit").ok());
  EXPECT_EQ(p.node_order, "best-fit");
  ASSERT_TRUE(SetPolicyOption(p, "priority", "yes").ok());
  EXPECT_TRUE(p.priority);
  ASSERT_TRUE(SetPolicyOption(p, "strict", "0").ok());
  EXPECT_FALSE(p.strict);
  ASSERT_TRUE(SetPolicyOption(p, "fair_share", "true").ok());
  ASSERT_TRUE(SetPolicyOption(p, "deadline", "1").ok());
  ASSERT_TRUE(SetPolicyOption(p, "preempt_by_order", "true").ok());
  EXPECT_TRUE(p.fair_share && p.deadline && p.preempt_by_order);
  ASSERT_TRUE(SetPolicyOption(p, "actions", "allocate|backfill||preempt").ok());
  EXPECT_THAT(p.actions, ElementsAre("allocate", "backfill", "preempt"));
  ASSERT_TRUE(SetPolicyOption(p, "las_thresholds", "100|1h|2d").ok());
  EXPECT_THAT(p.order_options.las_thresholds, ElementsAre(100.0, 3600.0, 172800.0));
  ASSERT_TRUE(SetPolicyOption(p, "las_gpu_weighted", "false").ok());
  EXPECT_FALSE(p.order_options.las_gpu_weighted);
}

TEST(PolicyTest, SetPolicyOptionErrorsNameKeyAndValue) {
  EXPECT_EQ(OptionError("slice", "abc"), "policy option slice: value 'abc' is not a duration");
  EXPECT_EQ(OptionError("min_runtime", "-5"),
            "policy option min_runtime: value '-5' is not a duration");
  EXPECT_EQ(OptionError("strict", "maybe"),
            "policy option strict: value 'maybe' is not true or false");
  EXPECT_EQ(OptionError("las_thresholds", "1h|x"),
            "policy option las_thresholds: value '1h|x' has 'x', not a number of GPU-seconds");
  EXPECT_EQ(OptionError("slice", "0"), "policy 'fifo': slice 0 must be positive");
  EXPECT_EQ(OptionError("las_thresholds", "2h|1h"),
            "policy 'fifo': las thresholds must be ascending");
  EXPECT_EQ(OptionError("job_order", "random"),
            "policy 'fifo': unknown job order 'random' (known: " + Joined(JobOrderNames()) + ")");
  EXPECT_EQ(OptionError("node_order", "worst-fit"),
            "policy 'fifo': unknown node order 'worst-fit' (known: " + Joined(NodeOrderNames()) +
                ")");
  EXPECT_EQ(OptionError("actions", "allocate|fly"),
            "policy 'fifo': unknown action 'fly' "
            "(known: reclaim, allocate, defrag, backfill, borrow, preempt, slice, region, spot, "
            "colocate, return_home, shrink, grow, upgrade)");
  EXPECT_EQ(OptionError("actions", "backfill"), "policy 'fifo': needs the allocate action");
  const std::string unknown = OptionError("speed", "11");
  EXPECT_EQ(unknown.rfind("unknown policy option 'speed' (known: slice, min_runtime, ", 0), 0u)
      << unknown;
}

TEST(PolicyTest, ReserveAfterAndPreemptKeyRatio) {
  Policy p = Named("backfill");
  EXPECT_EQ(p.reserve_after, 0);
  ASSERT_TRUE(SetPolicyOption(p, "reserve_after", "10m").ok());
  EXPECT_EQ(p.reserve_after, 600 * kSecond);
  EXPECT_DOUBLE_EQ(p.preempt_key_ratio, 1.0);
  ASSERT_TRUE(SetPolicyOption(p, "preempt_key_ratio", "2.5").ok());
  EXPECT_DOUBLE_EQ(p.preempt_key_ratio, 2.5);
  EXPECT_EQ(SetPolicyOption(p, "preempt_key_ratio", "0.5").message(),
            "policy option preempt_key_ratio: value '0.5' is not a number >= 1");
  EXPECT_EQ(SetPolicyOption(p, "preempt_key_ratio", "x").message(),
            "policy option preempt_key_ratio: value 'x' is not a number >= 1");
  EXPECT_FALSE(SetPolicyOption(p, "preempt_key_ratio", "nan").ok());
  EXPECT_DOUBLE_EQ(p.preempt_key_ratio, 2.5);  // a refused value changes nothing
  EXPECT_EQ(SetPolicyOption(p, "reserve_after", "soon").message(),
            "policy option reserve_after: value 'soon' is not a duration");
}

TEST(PolicyTest, ValidateRejectsNegativeMinRuntime) {
  Policy p = Named("fifo");
  p.min_runtime = -1 * kSecond;
  EXPECT_EQ(p.Validate().message(), "policy 'fifo': min_runtime -1 is negative");
}

}  // namespace
}  // namespace squeeze
