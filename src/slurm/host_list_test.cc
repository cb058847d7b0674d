#include "slurm/host_list.h"

#include <gtest/gtest.h>

namespace squeeze {
namespace {

std::vector<std::string> Names(std::string_view list) {
  auto r = ExpandHostList(list);
  EXPECT_TRUE(r.ok()) << list << ": " << r.status().message();
  return r.ok() ? *r : std::vector<std::string>{};
}

TEST(HostListTest, ExpandsWhatSqueueWrites) {
  EXPECT_EQ(Names(""), std::vector<std::string>{});
  EXPECT_EQ(Names("east-n0"), std::vector<std::string>{"east-n0"});
  EXPECT_EQ(Names("east-n[1,3]"), (std::vector<std::string>{"east-n1", "east-n3"}));
  EXPECT_EQ(Names("east-n[0-2]"), (std::vector<std::string>{"east-n0", "east-n1", "east-n2"}));
  EXPECT_EQ(Names("gpu[08-10],login1"),
            (std::vector<std::string>{"gpu08", "gpu09", "gpu10", "login1"}));
  EXPECT_EQ(Names("a[1-2]-ib,b"), (std::vector<std::string>{"a1-ib", "a2-ib", "b"}));
  EXPECT_EQ(Names("n[0,2-3],m[5]"), (std::vector<std::string>{"n0", "n2", "n3", "m5"}));
}

TEST(HostListTest, BrokenListsNameWhatIsWrong) {
  for (const auto& [list, what] : std::vector<std::pair<std::string, std::string>>{
           {"n[0-3", "'[' is not closed"},
           {"n[3-1]", "runs backwards"},
           {"n[a-b]", "'a-b' is not a number or range"},
           {"n[]", "holds nothing"},
           {"n0,", "an empty name after the last ','"},
           {"n0,,n1", "an empty name"},
           {"[0-1]", "no name before it"},
           {"n0]", "']' without '['"},
           {"n[0-1][2]", "more than one bracket"},
           {"n[0-999999]", "more than 100000 hosts"}}) {
    auto r = ExpandHostList(list);
    ASSERT_FALSE(r.ok()) << list;
    EXPECT_NE(r.status().message().find("host list '" + list + "'"), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().message();
  }
}

}  // namespace
}  // namespace squeeze
