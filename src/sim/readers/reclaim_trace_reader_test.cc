#include "sim/readers/reclaim_trace_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace squeeze {
namespace {

using ::testing::HasSubstr;

TEST(ReclaimTraceReaderTest, ReadsTimesNodesAndWarningsSortedByTime) {
  auto t = ParseReclaimTrace("time,node,warning\n2h30m,spot-7,2m\n3600,spot-3,\n", "r.csv");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->events.size(), 2u);
  EXPECT_EQ(t->events[0].time, kHour);
  EXPECT_EQ(t->events[0].node, "spot-3");
  EXPECT_FALSE(t->events[0].warning.has_value());
  EXPECT_EQ(t->events[1].time, 2 * kHour + 30 * kMinute);
  EXPECT_EQ(t->events[1].node, "spot-7");
  EXPECT_EQ(t->events[1].warning, 2 * kMinute);
  auto columns = ParseReclaimTrace("node,time\nspot-1,5\n", "r.csv");
  ASSERT_TRUE(columns.ok()) << columns.status().message();
  EXPECT_EQ(columns->events[0].time, 5 * kSecond);
}

TEST(ReclaimTraceReaderTest, BrokenFilesNameTheLineColumnAndValue) {
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {"", "r.csv: the file is empty"},
      {"time,node\n", "r.csv: no reclaims after the header"},
      {"time\n5\n", "r.csv:1: missing column 'node'"},
      {"time,node,zone\n", "r.csv:1: unknown column 'zone'"},
      {"time,node,time\n", "r.csv:1: column 'time' is given twice"},
      {"time,node\nsoon,spot-1\n", "r.csv:2: column 'time': value 'soon'"},
      {"time,node\n-5,spot-1\n", "r.csv:2: column 'time': value '-5'"},
      {"time,node\n5,\n", "r.csv:2: column 'node': the value is empty"},
      {"time,node\n5,spot-1,extra\n", "r.csv:2: 3 fields; the header has 2"},
      {"time,node,warning\n5,spot-1,later\n", "r.csv:2: column 'warning': value 'later'"},
      {"time,node\n\"5,spot-1\n", "r.csv:2"},
  };
  for (const Case& c : cases) {
    auto t = ParseReclaimTrace(c.text, "r.csv");
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_THAT(t.status().message(), HasSubstr(c.message)) << c.text;
  }
  EXPECT_FALSE(ReadReclaimTrace("/nonexistent/r.csv").ok());
}

}  // namespace
}  // namespace squeeze
