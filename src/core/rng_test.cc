#include "core/rng.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

TEST(RngTest, MatchesTheSplitMix64Reference) {
  // SplitMix64 from state 0 starts with 0xe220a8397b1dcdaf (Vigna's splitmix64.c).
  Rng zero(0);
  EXPECT_EQ(zero.Next(), 0xe220a8397b1dcdafULL);
  Rng r(42);
  EXPECT_EQ(r.Next(), 13679457532755275413ULL);
  EXPECT_EQ(r.Next(), 2949826092126892291ULL);
}

TEST(RngTest, SameSeedSameStreamDifferentSeedDifferentStream) {
  Rng a(7), b(7), c(8);
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    EXPECT_NE(x, c.Next());
  }
}

TEST(RngTest, UniformIntStaysInRangeAndCoversIt) {
  Rng r(1);
  int seen[7] = {};
  for (int i = 0; i < 7000; ++i) {
    const uint64_t v = r.UniformInt(7);
    ASSERT_LT(v, 7u);
    ++seen[v];
  }
  for (int count : seen) EXPECT_GT(count, 800);
  EXPECT_EQ(r.UniformInt(1), 0u);
}

TEST(RngTest, UniformIntRejectsTheBiasedLowOutputs) {
  // For n = 2^63 + 1, 2^64 mod n = 2^63 - 1: every output below it is redrawn, so the
  // result is x - n or x mod n for an accepted x, never taken from a rejected one.
  const uint64_t n = (1ULL << 63) + 1;
  Rng r(42), ref(42);
  const uint64_t v = r.UniformInt(n);
  uint64_t x = ref.Next();
  while (x < (1ULL << 63) - 1) x = ref.Next();
  EXPECT_EQ(v, x % n);
}

}  // namespace
}  // namespace squeeze
