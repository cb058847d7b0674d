#include "serve/waiting_counts.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace squeeze {
namespace {

Status AtMost(int64_t cap, int64_t n, const WaitingCounts::Counts& now) {
  return now.user + n <= cap ? Status::Ok() : Status::Error("over");
}

TEST(WaitingCountsTest, AReservationCountsUntilThePublicationAfterItsJobsArrived) {
  WaitingCounts w;
  ASSERT_TRUE(w.Reserve("bob", "ml", 3, [](const auto&) { return Status::Ok(); }).ok());
  EXPECT_EQ(w.Of("bob", "ml").user, 3);
  EXPECT_EQ(w.Of("alice", "ml").team, 3);
  // A publication before they arrive counts none of them: the reservation stands.
  w.Rebase({}, {});
  EXPECT_EQ(w.Of("bob", "ml").user, 3);
  // Two arrive; the next publication counts them (one has started already: not waiting).
  w.Arrived("bob", "ml");
  w.Arrived("bob", "ml");
  w.Rebase({{"bob", 1}}, {{"ml", 1}});
  EXPECT_EQ(w.Of("bob", "ml").user, 1 + 1);  // one counted, one still reserved
  w.Arrived("bob", "ml");
  w.Rebase({{"bob", 2}}, {{"ml", 2}});
  EXPECT_EQ(w.Of("bob", "ml").user, 2);
  EXPECT_EQ(w.Of("bob", "ml").team, 2);
}

TEST(WaitingCountsTest, ARefusedReservationCountsNothingAndAnUnstoredOneIsGivenBack) {
  WaitingCounts w;
  w.Rebase({{"bob", 9}}, {{"ml", 9}});
  Status refused = w.Reserve("bob", "ml", 2, [](const WaitingCounts::Counts& now) {
    return AtMost(10, 2, now);
  });
  EXPECT_EQ(refused.message(), "over");
  EXPECT_EQ(w.Of("bob", "ml").user, 9);
  ASSERT_TRUE(w.Reserve("bob", "ml", 1, [](const auto& now) { return AtMost(10, 1, now); }).ok());
  EXPECT_EQ(w.Of("bob", "ml").user, 10);
  w.Unreserve("bob", "ml", 1);
  EXPECT_EQ(w.Of("bob", "ml").user, 9);
  // Jobs that arrive without a reservation (taken back at a restart) take none away.
  w.Arrived("carol", "ml");
  w.Rebase({{"bob", 9}, {"carol", 1}}, {{"ml", 10}});
  EXPECT_EQ(w.Of("carol", "ml").user, 1);
  EXPECT_EQ(w.Of("bob", "ml").user, 9);
}

// Many submitters at once against one cap: never more than the cap pass.
TEST(WaitingCountsTest, ConcurrentReservationsNeverPassTheCap) {
  WaitingCounts w;
  std::atomic<int> passed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        if (w.Reserve("bob", "ml", 1, [](const auto& now) { return AtMost(1000, 1, now); }).ok()) {
          ++passed;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(passed.load(), 1000);
  EXPECT_EQ(w.Of("bob", "ml").user, 1000);
}

}  // namespace
}  // namespace squeeze
