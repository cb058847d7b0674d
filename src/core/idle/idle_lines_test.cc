#include "core/idle/idle_lines.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

std::vector<std::string> Texts(const std::vector<IdleLine>& lines) {
  std::vector<std::string> out;
  for (const IdleLine& l : lines) out.push_back(l.Text());
  return out;
}

TEST(IdleLinesTest, MergesTheSameHoursOnConsecutiveDays) {
  std::vector<IdleWindow> w;
  for (int d = 0; d < 5; ++d) w.push_back({d * 24 + 1, 6, d == 2 ? 6 : 7, 7});
  w.push_back({5 * 24 + 2, 6, 7, 7});  // Saturday, other hours
  EXPECT_EQ(Texts(MergeDaily(w)), (std::vector<std::string>{
                                      "Mon-Fri 01:00-07:00 in 6 of 7 weeks",
                                      "Sat 02:00-08:00 in 7 of 7 weeks"}));
}

TEST(IdleLinesTest, MergesAcrossSundayToMonday) {
  std::vector<IdleWindow> w = {{0 * 24 + 22, 8, 4, 4}, {5 * 24 + 22, 8, 4, 4}, {6 * 24 + 22, 8, 4, 4}};
  EXPECT_EQ(Texts(MergeDaily(w)),
            (std::vector<std::string>{"Sat-Mon 22:00-06:00 in 4 of 4 weeks"}));
}

TEST(IdleLinesTest, LongWindowsSayTheirDays) {
  EXPECT_EQ(Texts(MergeDaily({{120, 48, 5, 5}})),
            (std::vector<std::string>{"Sat-Sun all day in 5 of 5 weeks"}));
  EXPECT_EQ(Texts(MergeDaily({{4 * 24 + 18, 62, 3, 4}})),
            (std::vector<std::string>{"Fri 18:00-Mon 08:00 in 3 of 4 weeks"}));
  EXPECT_EQ(Texts(MergeDaily({{0, 168, 2, 2}})),
            (std::vector<std::string>{"all week in 2 of 2 weeks"}));
  EXPECT_EQ(IdleLine({5, 19, 1, 1, 1}).When(), "Mon 05:00-24:00");
}

TEST(IdleLinesTest, GroupsGpusWithIdenticalWindows) {
  NodeIdle node;
  node.name = "node-3";
  for (int g = 0; g < 8; ++g) {
    GpuIdle gpu;
    gpu.gpu = g;
    if (g != 4) gpu.windows = {{1, 6, 6, 7}};
    if (g == 6) gpu.windows = {{2, 6, 6, 7}};
    node.gpus.push_back(gpu);
  }
  auto groups = GroupGpus(node);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(GpuListText(groups[0].gpus), "GPUs 0-3,5,7");
  EXPECT_EQ(GpuListText(groups[1].gpus), "GPU 6");
  EXPECT_EQ(GpuListText({0, 1, 2, 3, 4, 5, 6, 7}), "GPUs 0-7");
}

}  // namespace
}  // namespace squeeze
