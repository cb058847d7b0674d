#include "serve/held_idle_tracker.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

constexpr Time kT0 = Seconds(1767225600);

HeldIdleTracker Tracker() { return HeldIdleTracker(HeldIdleOptions{0.10, 30 * kMinute}); }

TEST(HeldIdleTrackerTest, GpusBelowTheThresholdForTheWindowAreIdle) {
  HeldIdleTracker t = Tracker();
  for (Time s = 0; s <= 30 * kMinute; s += 5 * kMinute) {
    t.Record(0, 0, kT0 + s, 0.02);
    t.Record(0, 1, kT0 + s, 0.04);
  }
  auto spell = t.IdleSpell({{0, 0}, {0, 1}}, kT0 - kMinute, kT0 + 30 * kMinute);
  ASSERT_TRUE(spell);
  EXPECT_EQ(spell->since, kT0);
  EXPECT_NEAR(spell->mean_utilization, 0.03, 1e-9);
  EXPECT_EQ(t.gpus_tracked(), 2u);
}

TEST(HeldIdleTrackerTest, ShorterThanTheWindowOrOneBusyGpuIsNotIdle) {
  HeldIdleTracker t = Tracker();
  for (Time s = 0; s <= 30 * kMinute; s += 5 * kMinute) {
    t.Record(0, 0, kT0 + s, 0.02);
    t.Record(0, 1, kT0 + s, 0.8);
  }
  EXPECT_FALSE(t.IdleSpell({{0, 0}, {0, 1}}, kT0, kT0 + 30 * kMinute));
  EXPECT_TRUE(t.IdleSpell({{0, 0}}, kT0, kT0 + 30 * kMinute));
  EXPECT_FALSE(t.IdleSpell({{0, 0}}, kT0 + 10 * kMinute, kT0 + 30 * kMinute));  // the run began later
  EXPECT_FALSE(t.IdleSpell({{0, 2}}, kT0, kT0 + 30 * kMinute));  // never reported
  EXPECT_FALSE(t.IdleSpell({}, kT0, kT0 + 30 * kMinute));
}

TEST(HeldIdleTrackerTest, ABusyReadingEndsTheSpellAndStaleReadingsDoNotCount) {
  HeldIdleTracker t = Tracker();
  t.Record(0, 0, kT0, 0.0);
  t.Record(0, 0, kT0 + 1000 * kSecond, 0.5);  // busy: the spell ends
  t.Record(0, 0, kT0 + 1100 * kSecond, 0.0);
  t.Record(0, 0, kT0 + 2000 * kSecond, 0.0);
  EXPECT_FALSE(t.IdleSpell({{0, 0}}, kT0, kT0 + 2000 * kSecond));
  t.Record(0, 0, kT0 + 2900 * kSecond, 0.0);
  auto spell = t.IdleSpell({{0, 0}}, kT0, kT0 + 2900 * kSecond);
  ASSERT_TRUE(spell);
  EXPECT_EQ(spell->since, kT0 + 1100 * kSecond);
  EXPECT_FALSE(t.IdleSpell({{0, 0}}, kT0, kT0 + (2900 + 1801) * kSecond));  // no reading since: stale
  t.Record(0, 0, kT0 + 500 * kSecond, 0.9);  // older than the latest: ignored
  EXPECT_TRUE(t.IdleSpell({{0, 0}}, kT0, kT0 + 2900 * kSecond));
}

TEST(HeldIdleTrackerTest, LatestIsTheNewestReadingBusyOrIdle) {
  HeldIdleTracker t({0.1, 10 * kMinute});
  EXPECT_FALSE(t.Latest(0, 0).has_value());
  t.Record(0, 0, 100 * kSecond, 0.05);
  t.Record(0, 0, 200 * kSecond, 0.9);
  t.Record(0, 0, 150 * kSecond, 0.0);  // older than the newest: ignored
  auto r = t.Latest(0, 0);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->time, 200 * kSecond);
  EXPECT_DOUBLE_EQ(r->utilization, 0.9);
  t.Record(0, 0, 300 * kSecond, 0.02);
  EXPECT_DOUBLE_EQ(t.Latest(0, 0)->utilization, 0.02);
  EXPECT_FALSE(t.Latest(0, 1).has_value());
}

}  // namespace
}  // namespace squeeze
