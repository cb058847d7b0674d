#include "serve/marker_rate.h"

#include <string>

#include <gtest/gtest.h>

namespace squeeze {
namespace {

TEST(MarkerRateTest, ReadsTheHelpersRate) {
  EXPECT_EQ(MarkerRate(R"({"seq": 7, "step": 120, "world_size": 4, "samples_per_s": 812.5,)"
                       R"( "steps_per_s": 3.2})"),
            812.5);
  EXPECT_EQ(MarkerRate(R"({"seq": 1, "steps_per_s": 3})"), 3.0);  // no samples: steps
}

TEST(MarkerRateTest, AnythingElseTeachesNothing) {
  for (const std::string& bad : std::initializer_list<std::string>
       {"", "120", "checkpoint 3", "{", "[1, 2]", R"({"samples_per_s": "fast"})",
        R"({"samples_per_s": -1})", R"({"samples_per_s": 0})", R"({"samples_per_s": 1e300})",
        R"({"samples_per_s": null})", R"({"seq": 2})", "{" + std::string(5000, ' ') + "}"}) {
    EXPECT_FALSE(MarkerRate(bad).has_value()) << bad.substr(0, 40);
  }
}

}  // namespace
}  // namespace squeeze
