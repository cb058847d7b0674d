#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "slurm/recordings_for_test.h"
#include "slurm/slurm_output.h"

namespace squeeze {
namespace {

std::vector<int> Indices(const std::string& gres) {
  Result<std::vector<int>> r = ParseGresIndices(gres);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : std::vector<int>{-1};
}

std::pair<std::string, int> Count(const std::string& gres) {
  Result<std::pair<std::string, int>> r = ParseGresCount(gres);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : std::pair<std::string, int>{"error", -1};
}

TEST(GresTest, IndicesFromRangesAndLists) {
  EXPECT_EQ(Indices("gpu:2(IDX:0-1)"), (std::vector<int>{0, 1}));
  EXPECT_EQ(Indices("gpu:2(IDX:2-3)"), (std::vector<int>{2, 3}));
  EXPECT_EQ(Indices("gpu:a100:3(IDX:0,2-3)"), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(Indices("gpu:a100:1(IDX:5)"), (std::vector<int>{5}));
  EXPECT_EQ(Indices("gpu:0"), (std::vector<int>{}));
  EXPECT_EQ(Indices("gpu:0(IDX:N/A)"), (std::vector<int>{}));
  EXPECT_EQ(Indices("gpu:4(S:0-1)"), (std::vector<int>{}));  // sockets, not indices
  EXPECT_EQ(Indices("gpu:1(IDX:1),mps:100"), (std::vector<int>{1}));
  EXPECT_EQ(Indices(""), (std::vector<int>{}));
}

TEST(GresTest, CountAndModel) {
  EXPECT_EQ(Count("gpu:4"), (std::pair<std::string, int>{"", 4}));
  EXPECT_EQ(Count("gpu:a100:4"), (std::pair<std::string, int>{"a100", 4}));
  EXPECT_EQ(Count("gpu:a100:4(S:0-1)"), (std::pair<std::string, int>{"a100", 4}));
  EXPECT_EQ(Count("gpu:a100:1(IDX:0)"), (std::pair<std::string, int>{"a100", 1}));
  EXPECT_EQ(Count("gpu:a100:2(S:0),gpu:a100:2(S:1)"), (std::pair<std::string, int>{"a100", 4}));
  EXPECT_EQ(Count("gpu:0"), (std::pair<std::string, int>{"", 0}));
  EXPECT_EQ(Count(""), (std::pair<std::string, int>{"", 0}));
  EXPECT_EQ(Count("(null)"), (std::pair<std::string, int>{"", 0}));
  EXPECT_EQ(Count("mps:100"), (std::pair<std::string, int>{"", 0}));
}

TEST(GresTest, BrokenCountsAreErrorsNamingTheValue) {
  ExpectErrorWith(ParseGresCount("gpu:x").status(), {"'gpu:x'", "count 'x'"});
  ExpectErrorWith(ParseGresCount("gpu").status(), {"'gpu'", "is not a GPU GRES"});
  ExpectErrorWith(ParseGresCount("gpu:a:b:4").status(), {"'gpu:a:b:4'"});
  ExpectErrorWith(ParseGresCount("gpu:-1").status(), {"count '-1'"});
  ExpectErrorWith(ParseGresCount("gpu:4(S:0-1").status(), {"unclosed '('"});
  ExpectErrorWith(ParseGresCount("gpu:a100:2,gpu:v100:2").status(), {"'a100'", "'v100'"});
}

TEST(GresTest, BrokenIndicesAreErrorsNamingTheValue) {
  ExpectErrorWith(ParseGresIndices("gpu:2(IDX:3-1)").status(),
                  {"'gpu:2(IDX:3-1)'", "range '3-1' is reversed"});
  ExpectErrorWith(ParseGresIndices("gpu:2(IDX:0-x)").status(), {"GPU index '0-x'"});
  ExpectErrorWith(ParseGresIndices("gpu:2(IDX:0,,1)").status(), {"GPU index ''"});
  ExpectErrorWith(ParseGresIndices("gpu:x(IDX:0)").status(), {"count 'x'"});
}

}  // namespace
}  // namespace squeeze
