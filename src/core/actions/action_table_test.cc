#include "core/actions/action_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/policy.h"

namespace squeeze {
namespace {

TEST(ActionTableTest, EveryNameIsOnceInTheTableAndFindsItsAction) {
  std::set<std::string_view> names;
  for (const ActionEntry& a : ActionTable()) {
    EXPECT_TRUE(names.insert(a.name).second) << a.name;
    EXPECT_NE(a.run, nullptr) << a.name;
    EXPECT_EQ(ActionNamed(a.name), a.run) << a.name;
  }
  EXPECT_EQ(ActionNamed("fly"), nullptr);
  EXPECT_EQ(ActionNamed(""), nullptr);
}

TEST(ActionTableTest, EveryNamedPolicyRunsOnlyActionsOfTheTable) {
  for (const std::string& name : {"fifo", "sjf", "srtf", "las", "backfill", "sliced", "squeeze",
                                  "squeeze+borrow", "backfill+region"}) {
    auto policy = NamedPolicy(name);
    ASSERT_TRUE(policy.ok()) << name << ": " << policy.status().message();
    for (const std::string& a : policy->actions) {
      EXPECT_NE(ActionNamed(a), nullptr) << name << ": " << a;
    }
  }
}

}  // namespace
}  // namespace squeeze
