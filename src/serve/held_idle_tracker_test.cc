#include "serve/held_idle_tracker.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

constexpr Time kT0 = 1767225600;

HeldIdleTracker Tracker() { return HeldIdleTracker(HeldIdleOptions{0.10, 1800}); }

TEST(HeldIdleTrackerTest, GpusBelowTheThresholdForTheWindowAreIdle) {
  HeldIdleTracker t = Tracker();
  for (Time s = 0; s <= 1800; s += 300) {
    t.Record(0, 0, kT0 + s, 0.02);
    t.Record(0, 1, kT0 + s, 0.04);
  }
  auto spell = t.IdleSpell({{0, 0}, {0, 1}}, kT0 - 60, kT0 + 1800);
  ASSERT_TRUE(spell);
  EXPECT_EQ(spell->since, kT0);
  EXPECT_NEAR(spell->mean_utilization, 0.03, 1e-9);
  EXPECT_EQ(t.gpus_tracked(), 2u);
}

TEST(HeldIdleTrackerTest, ShorterThanTheWindowOrOneBusyGpuIsNotIdle) {
  HeldIdleTracker t = Tracker();
  for (Time s = 0; s <= 1800; s += 300) {
    t.Record(0, 0, kT0 + s, 0.02);
    t.Record(0, 1, kT0 + s, 0.8);
  }
  EXPECT_FALSE(t.IdleSpell({{0, 0}, {0, 1}}, kT0, kT0 + 1800));
  EXPECT_TRUE(t.IdleSpell({{0, 0}}, kT0, kT0 + 1800));
  EXPECT_FALSE(t.IdleSpell({{0, 0}}, kT0 + 600, kT0 + 1800));  // the run began later
  EXPECT_FALSE(t.IdleSpell({{0, 2}}, kT0, kT0 + 1800));  // never reported
  EXPECT_FALSE(t.IdleSpell({}, kT0, kT0 + 1800));
}

TEST(HeldIdleTrackerTest, ABusyReadingEndsTheSpellAndStaleReadingsDoNotCount) {
  HeldIdleTracker t = Tracker();
  t.Record(0, 0, kT0, 0.0);
  t.Record(0, 0, kT0 + 1000, 0.5);  // busy: the spell ends
  t.Record(0, 0, kT0 + 1100, 0.0);
  t.Record(0, 0, kT0 + 2000, 0.0);
  EXPECT_FALSE(t.IdleSpell({{0, 0}}, kT0, kT0 + 2000));
  t.Record(0, 0, kT0 + 2900, 0.0);
  auto spell = t.IdleSpell({{0, 0}}, kT0, kT0 + 2900);
  ASSERT_TRUE(spell);
  EXPECT_EQ(spell->since, kT0 + 1100);
  EXPECT_FALSE(t.IdleSpell({{0, 0}}, kT0, kT0 + 2900 + 1801));  // no reading since: stale
  t.Record(0, 0, kT0 + 500, 0.9);  // older than the latest: ignored
  EXPECT_TRUE(t.IdleSpell({{0, 0}}, kT0, kT0 + 2900));
}

TEST(HeldIdleTrackerTest, LatestIsTheNewestReadingBusyOrIdle) {
  HeldIdleTracker t({0.1, 600});
  EXPECT_FALSE(t.Latest(0, 0).has_value());
  t.Record(0, 0, 100, 0.05);
  t.Record(0, 0, 200, 0.9);
  t.Record(0, 0, 150, 0.0);  // older than the newest: ignored
  auto r = t.Latest(0, 0);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->time, 200);
  EXPECT_DOUBLE_EQ(r->utilization, 0.9);
  t.Record(0, 0, 300, 0.02);
  EXPECT_DOUBLE_EQ(t.Latest(0, 0)->utilization, 0.02);
  EXPECT_FALSE(t.Latest(0, 1).has_value());
}

}  // namespace
}  // namespace squeeze
