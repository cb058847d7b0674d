#include "core/placement_math.h"

#include <gtest/gtest.h>

#include "core/testing/state_text.h"

namespace squeeze {
namespace {

std::string Text(const Placement& p) {
  std::ostringstream o;
  testing::PlacementText(o, p);
  return o.str();
}

TEST(PlacementMathTest, OverlapTakesTheSmallerShareOfEachGpuCpuAndMemory) {
  const Placement want{{NodeShare{0, {0, 1, 2}, 1000, 6000, 100}, NodeShare{1, {0}, 500, 0, 0}}};
  const Placement from{{NodeShare{0, {1, 2, 3}, 250, 2000, 400}, NodeShare{2, {0}, 1000, 9, 9}}};
  EXPECT_EQ(Text(Overlap(want, from)), "[ n0:1,2,x250/c2000/m100 ]");
  EXPECT_EQ(Text(Without(want, Overlap(want, from))),
            "[ n0:0,x1000/c4000/m0 n0:1,2,x750/c0/m0 n1:0,x500/c0/m0 ]");
}

TEST(PlacementMathTest, WithoutAllOfItLeavesNothingAndJoinedAddsUp) {
  const Placement want{{NodeShare{0, {0, 1}, 1000, 3000, 64}}};
  const Placement half{{NodeShare{0, {0}, 1000, 1000, 0}}};
  const Placement rest = Without(want, half);
  EXPECT_EQ(Text(rest), "[ n0:1,x1000/c2000/m64 ]");
  EXPECT_TRUE(Without(want, Joined(half, rest)).empty());
  EXPECT_TRUE(Overlap(want, Placement{}).empty());
  // CPU and memory alone make a share of no GPUs.
  EXPECT_EQ(Text(Without(want, Placement{{NodeShare{0, {0, 1}, 1000, 0, 0}}})),
            "[ n0:x1000/c3000/m64 ]");
}

}  // namespace
}  // namespace squeeze
