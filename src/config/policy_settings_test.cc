#include "config/policy_settings.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<Policy> Named(const std::vector<std::string>& names) {
  std::vector<Policy> out;
  for (const std::string& n : names) {
    auto p = NamedPolicy(n);
    EXPECT_TRUE(p.ok()) << n;
    if (p.ok()) out.push_back(*p);
  }
  return out;
}

std::vector<PolicySetting> Sets(const std::vector<std::string>& texts) {
  std::vector<PolicySetting> out;
  for (const std::string& t : texts) out.push_back(SetFlag(t));
  return out;
}

// The error of applying `texts` to the named policies, or "(accepted)".
std::string Refusal(const std::vector<std::string>& names, const std::vector<std::string>& texts,
                    PolicyDriver driver = PolicyDriver::kSimulator) {
  std::vector<Policy> policies = Named(names);
  auto notes = ApplyPolicySettings(Sets(texts), policies, driver);
  return notes.ok() ? "(accepted)" : notes.status().message();
}

TEST(PolicySettingsTest, ASettingForAPolicyNotRunIsRefused) {
  EXPECT_EQ(Refusal({"fifo"}, {"squeeze.min_runtime=10m"}),
            "--set squeeze.min_runtime=10m: no policy 'squeeze' is run here (run: fifo)");
  EXPECT_EQ(Refusal({"squeeze", "fifo"}, {"squeez.min_runtime=10m"}),
            "--set squeez.min_runtime=10m: no policy 'squeez' is run here (run: squeeze, fifo); "
            "did you mean squeeze.min_runtime=10m?");
}

TEST(PolicySettingsTest, ASettingNoPolicyReadsIsRefusedWithWhatReadsIt) {
  EXPECT_EQ(Refusal({"fifo"}, {"min_runtime=10m"}),
            "--set min_runtime=10m changes nothing in policy fifo: min_runtime is read only by "
            "the preempt and defrag actions, which move no job that ran less; named policies "
            "that read it: kueue, las, sliced, squeeze, srtf, volcano");
  EXPECT_EQ(Refusal({"squeeze"}, {"squeeze.slice=10m"}),
            "--set squeeze.slice=10m changes nothing in policy squeeze: slice is read only by "
            "the slice action; named policies that read it: sliced");
  EXPECT_EQ(Refusal({"fifo", "sjf"}, {"las_thresholds=1h|2h"}),
            "--set las_thresholds=1h|2h changes nothing in policies fifo, sjf: las_thresholds is "
            "read only by job_order=las; named policies that read it: las");
  EXPECT_EQ(Refusal({"fifo"}, {"preempt_key_ratio=4"}),
            "--set preempt_key_ratio=4 changes nothing in policy fifo: preempt_key_ratio is read "
            "only by the preempt action with preempt_by_order=true; named policies that read it: "
            "las, sliced, squeeze, srtf");
}

TEST(PolicySettingsTest, SettingsAreCheckedAgainstThePoliciesAsTheyEndUp) {
  // The slice action added by a later setting makes the earlier slice one read.
  std::vector<Policy> p = Named({"squeeze"});
  auto notes = ApplyPolicySettings(
      Sets({"slice=10m", "actions=allocate|backfill|preempt|slice"}), p,
      PolicyDriver::kSimulator);
  ASSERT_TRUE(notes.ok()) << notes.status().message();
  EXPECT_THAT(notes->notes, IsEmpty());
  EXPECT_EQ(p[0].slice, 10 * kMinute);
  EXPECT_THAT(p[0].actions, ElementsAre("allocate", "backfill", "preempt", "slice"));
  // Removing the action makes it unread again.
  EXPECT_EQ(Refusal({"squeeze"}, {"defrag_max_moves_per_hour=3", "defrag=false"}),
            "--set defrag_max_moves_per_hour=3 changes nothing in policy squeeze: "
            "defrag_max_moves_per_hour is read only by the defrag action; named policies that "
            "read it: sliced, squeeze");
  EXPECT_EQ(Refusal({"squeeze"}, {"spot_naive_interval=2h", "spot_aware=false"}), "(accepted)");
}

TEST(PolicySettingsTest, ASettingSomePoliciesReadGivesANote) {
  std::vector<Policy> p = Named({"fifo", "sliced"});
  auto notes = ApplyPolicySettings(Sets({"slice=10m"}), p, PolicyDriver::kSimulator);
  ASSERT_TRUE(notes.ok()) << notes.status().message();
  EXPECT_THAT(notes->notes, ElementsAre("--set slice=10m changes policy sliced only: fifo does not "
                                  "read slice (read only by the slice action)"));
  EXPECT_EQ(p[1].slice, 10 * kMinute);
}

TEST(PolicySettingsTest, UnknownKeysNameTheNearest) {
  EXPECT_EQ(Refusal({"squeeze"}, {"min_runtme=10m"}),
            "--set min_runtme=10m: unknown policy option 'min_runtme'; did you mean min_runtime?");
  const std::string far = Refusal({"squeeze"}, {"colour=blue"});
  EXPECT_THAT(far, ::testing::StartsWith("--set colour=blue: unknown policy option 'colour' "
                                         "(known: slice, min_runtime, "));
  EXPECT_THAT(far, ::testing::HasSubstr("gittins_gpu_weighted)"));
}

TEST(PolicySettingsTest, BadValuesAndBadTextNameTheSettingAndChangeNothing) {
  std::vector<Policy> p = Named({"sliced", "squeeze"});
  auto notes =
      ApplyPolicySettings(Sets({"min_runtime=1m", "slice=soon"}), p, PolicyDriver::kSimulator);
  ASSERT_FALSE(notes.ok());
  EXPECT_EQ(notes.status().message(),
            "--set slice=soon: policy option slice: value 'soon' is not a duration");
  EXPECT_EQ(p[0].min_runtime, 5 * kMinute);  // nothing of the refused list was applied
  EXPECT_EQ(p[0].slice, 30 * kMinute);
  EXPECT_EQ(Refusal({"fifo"}, {"strict"}),
            "--set strict: not KEY=VALUE (e.g. min_runtime=10m, or squeeze.min_runtime=10m for "
            "one policy)");
  EXPECT_EQ(Refusal({"fifo"}, {"=1"}),
            "--set =1: not KEY=VALUE (e.g. min_runtime=10m, or squeeze.min_runtime=10m for one "
            "policy)");
}

TEST(PolicySettingsTest, WhatOnlyTheLiveQueueReadsIsRefusedInTheSimulator) {
  EXPECT_EQ(Refusal({"squeeze"}, {"held_idle_yields=true"}),
            "--set held_idle_yields=true changes nothing in policy squeeze: held_idle_yields is "
            "read only by squeeze serve, which hears GPU utilization (the simulator has none to "
            "hear)");
  EXPECT_EQ(Refusal({"squeeze"}, {"held_idle_yields=true"}, PolicyDriver::kLive), "(accepted)");
}

TEST(PolicySettingsTest, TheShownTextStartsTheMessage) {
  std::vector<Policy> p = Named({"fifo"});
  auto notes = ApplyPolicySettings({{"slice=1m", "--slice 1m"}}, p, PolicyDriver::kSimulator);
  ASSERT_FALSE(notes.ok());
  EXPECT_THAT(notes.status().message(),
              ::testing::StartsWith("--slice 1m changes nothing in policy fifo: slice is read "));
}

TEST(PolicySettingsTest, AnInheritedSettingNoPolicyHereReadsIsOnlyReported) {
  std::vector<Policy> p = Named({"fifo"});
  const std::vector<PolicySetting> settings = {
      {"squeeze.min_runtime=1m", "set squeeze.min_runtime: 1m (top level)", true},
      {"slice=1m", "--slice 1m", true},
      {"strict=false", "set strict: false (top level)", true}};
  auto outcome = ApplyPolicySettings(settings, p, PolicyDriver::kSimulator);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_THAT(outcome->unread,
              ElementsAre(std::pair<std::string, std::string>(
                              "set squeeze.min_runtime: 1m (top level)",
                              "set squeeze.min_runtime: 1m (top level): no policy 'squeeze' is "
                              "run here (run: fifo)"),
                          std::pair<std::string, std::string>(
                              "--slice 1m",
                              "--slice 1m changes nothing in policy fifo: slice is read only by "
                              "the slice action; named policies that read it: sliced")));
  EXPECT_FALSE(p[0].strict);  // what is read is applied
  // A wrong value or key is an error all the same.
  EXPECT_FALSE(ApplyPolicySettings({{"slice=soon", "--slice soon", true}}, p,
                                   PolicyDriver::kSimulator)
                   .ok());
}

}  // namespace
}  // namespace squeeze
