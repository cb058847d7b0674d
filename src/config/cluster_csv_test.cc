#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/cluster_file.h"

namespace squeeze {
namespace {

void ExpectError(const Result<ClusterSpec>& r, const std::vector<std::string>& parts) {
  ASSERT_FALSE(r.ok()) << "expected an error containing '" << parts.front() << "'";
  const std::string message = r.status().message();
  for (const std::string& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  }
}

Result<ClusterSpec> Parse(const std::string& text) { return ParseClusterCsv(text, "c.csv"); }

TEST(ClusterCsvTest, ParsesPoolsAndNamesNodes) {
  const Result<ClusterSpec> r = Parse("pool,nodes,gpus_per_node,gpu_model\na,2,8,V100\nb,1,4,\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->pools.size(), 2u);
  EXPECT_EQ(r->pools[0].name, "a");
  EXPECT_EQ(r->pools[0].kind, PoolKind::kOwned);
  EXPECT_EQ(r->pools[1].region, "default");
  ASSERT_EQ(r->nodes.size(), 3u);
  EXPECT_EQ(r->nodes[0].name, "a-0");
  EXPECT_EQ(r->nodes[1].name, "a-1");
  EXPECT_EQ(r->nodes[1].pool, "a");
  EXPECT_EQ(r->nodes[1].gpus, 8);
  EXPECT_EQ(r->nodes[1].gpu_model, "V100");
  EXPECT_EQ(r->nodes[2].name, "b-0");
  EXPECT_EQ(r->nodes[2].gpus, 4);
  EXPECT_EQ(r->nodes[2].gpu_model, "gpu");  // blank cell: the default
  EXPECT_EQ(r->TotalGpus(), 20);
}

TEST(ClusterCsvTest, ThreeColumnsDefaultTheModel) {
  const Result<ClusterSpec> r = Parse("pool,nodes,gpus_per_node\n6214e9,3,8");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->pools[0].name, "6214e9");
  EXPECT_EQ(r->nodes[2].name, "6214e9-2");
  EXPECT_EQ(r->nodes[2].gpu_model, "gpu");
}

TEST(ClusterCsvTest, AcceptsBomCrlfSpacesAndBlankLines) {
  const Result<ClusterSpec> r =
      Parse("\xEF\xBB\xBFpool , nodes,gpus_per_node\r\n\r\n  a , 2 , 4 \r\n\r\nb,1,8\r\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->pools.size(), 2u);
  EXPECT_EQ(r->pools[0].name, "a");
  EXPECT_EQ(r->nodes[1].name, "a-1");
  EXPECT_EQ(r->nodes[1].gpus, 4);
  EXPECT_EQ(r->TotalGpus(), 16);
}

TEST(ClusterCsvTest, WrongFieldCountNamesLineAndRow) {
  ExpectError(Parse("pool,nodes,gpus_per_node\na,1,8\nb,2\n"),
              {"c.csv:3: expected 3 fields", "got 2: 'b,2'"});
  ExpectError(Parse("pool,nodes,gpus_per_node\na,1,8,A100\n"),
              {"c.csv:2: expected 3 fields", "got 4: 'a,1,8,A100'"});
}

TEST(ClusterCsvTest, BadNumbersNameLineColumnAndValue) {
  ExpectError(Parse("pool,nodes,gpus_per_node\na,many,8\n"),
              {"c.csv:2: column 2 (nodes): value 'many' is not an integer"});
  ExpectError(Parse("pool,nodes,gpus_per_node\na,1.5,8\n"),
              {"c.csv:2: column 2 (nodes): value '1.5' is not an integer"});
  ExpectError(Parse("pool,nodes,gpus_per_node\na,0,8\n"),
              {"c.csv:2: column 2 (nodes): value '0' is out of range 1.."});
  ExpectError(Parse("pool,nodes,gpus_per_node\n\na,2,-8\n"),
              {"c.csv:3: column 3 (gpus_per_node): value '-8' is out of range 0.."});
  ExpectError(Parse("pool,nodes,gpus_per_node\na,2,x8\n"),
              {"c.csv:2: column 3 (gpus_per_node): value 'x8' is not an integer"});
  // The upper bound on GPUs per node is ClusterSpec::Validate's, reported with the source.
  ExpectError(Parse("pool,nodes,gpus_per_node\na,2,65\n"),
              {"c.csv: cluster: node 'a-0': gpus 65 is out of range"});
}

TEST(ClusterCsvTest, HeaderAndPoolErrors) {
  ExpectError(
      Parse("pool,node,gpus\na,1,8\n"),
      {"c.csv:1: header must be 'pool,nodes,gpus_per_node[,gpu_model]'", "got 'pool,node,gpus'"});
  ExpectError(Parse("pool,nodes,gpus_per_node\n,1,8\n"),
              {"c.csv:2: column 1 (pool): the pool name is empty"});
  ExpectError(Parse("pool,nodes,gpus_per_node\na,1,8\nb,1,8\na,2,8\n"),
              {"c.csv:4: column 1 (pool): pool 'a' is already defined on line 2"});
}

TEST(ClusterCsvTest, EmptyInputs) {
  ExpectError(Parse(""), {"c.csv: the file is empty"});
  ExpectError(Parse("\r\n  \n"), {"c.csv: the file is empty"});
  ExpectError(Parse("pool,nodes,gpus_per_node\n"), {"c.csv: no pools"});
}

}  // namespace
}  // namespace squeeze
