#include "sim/idle_report.h"

#include <gtest/gtest.h>

#include <random>

#include "sim/gpu_sample_generator.h"
#include "sim/idle_heatmap_svg.h"
#include "sim/readers/gpu_samples_reader.h"

namespace squeeze {
namespace {

using Lines = std::vector<std::string>;

// Five weeks of 3 nodes x 8 GPUs (DemoSampleSpec), through the CSV and back, analysed.
IdleAnalysis PlantedMonth(double probability, uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  const auto samples = GenerateSamples(DemoSampleSpec(5), rng);
  auto read = ParseGpuSamples(SamplesCsv(samples), "generated.csv");
  EXPECT_TRUE(read.ok()) << read.status().message();
  IdleOptions o;
  o.probability = probability;
  auto a = AnalyseIdle(*read, o);
  EXPECT_TRUE(a.ok()) << a.status().message();
  return *a;
}

TEST(PlantedIdleWindowsTest, FindsExactlyThePlantedWindowsAtP08) {
  EXPECT_EQ(IdleWindowLines(PlantedMonth(0.8)),
            (Lines{"node-1 GPUs 0-7: idle Mon-Fri 01:00-07:00 in 5 of 5 weeks",
                   "node-2 GPUs 0-3: idle Sat-Sun all day in 5 of 5 weeks",
                   "node node-1: idle Mon-Fri 01:00-07:00 in 5 of 5 weeks"}));
}

TEST(PlantedIdleWindowsTest, WindowSkippedInTwoOfFiveWeeksAppearsAtP06) {
  EXPECT_EQ(IdleWindowLines(PlantedMonth(0.6)),
            (Lines{"node-1 GPUs 0-7: idle Mon-Fri 01:00-07:00 in 5 of 5 weeks",
                   "node-2 GPUs 0-3: idle Sat-Sun all day in 5 of 5 weeks",
                   "node-2 GPUs 4-7: idle Wed 12:00-16:00 in 3 of 5 weeks",
                   "node node-1: idle Mon-Fri 01:00-07:00 in 5 of 5 weeks"}));
}

TEST(PlantedIdleWindowsTest, SameWindowsForOtherSeeds) {
  for (uint64_t seed : {2, 3, 42}) {
    EXPECT_EQ(IdleWindowLines(PlantedMonth(0.8, seed)), IdleWindowLines(PlantedMonth(0.8)));
  }
}

TEST(PlantedIdleWindowsTest, PredictsTheEndOfANodeWindow) {
  const IdleAnalysis a = PlantedMonth(0.8);
  const Time tuesday_3am = Seconds(1793577600) + kWeek + kDay + 3 * kHour + 2 * kMinute;
  EXPECT_EQ(NodeIdleUntil(a, "node-1", tuesday_3am), tuesday_3am - 2 * kMinute + 4 * kHour);
  EXPECT_EQ(NodeIdleUntil(a, "node-1", tuesday_3am + 4 * kHour), std::nullopt);
  EXPECT_EQ(NodeIdleUntil(a, "node-3", tuesday_3am), std::nullopt);
  EXPECT_EQ(NodeIdleUntil(a, "node-9", tuesday_3am), std::nullopt);
}

TEST(PlantedIdleWindowsTest, TextJsonAndSvg) {
  const IdleAnalysis a = PlantedMonth(0.8);
  const std::string text = FormatIdleText(a);
  EXPECT_NE(text.find("By GPU group:\n  node-1 GPUs 0-7: idle Mon-Fri 01:00-07:00 in 5 of 5 weeks\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  no window: all (3 nodes, 24 GPUs)\n"), std::string::npos) << text;
  const std::string json = FormatIdleJson(a);
  EXPECT_NE(json.find("\"Sat-Sun all day in 5 of 5 weeks\""), std::string::npos);
  const std::string svg = FormatIdleHeatmapSvg(a);
  EXPECT_EQ(svg.rfind("</svg>\n"), svg.size() - 7);
  EXPECT_NE(svg.find("node node-2 (8 GPUs)"), std::string::npos);
}

}  // namespace
}  // namespace squeeze
