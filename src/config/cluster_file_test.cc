#include "config/cluster_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace squeeze {
namespace {

std::string ExamplePath(const std::string& name) {
  return std::string(SQUEEZE_SOURCE_DIR) + "/examples/clusters/" + name;
}

// The Philly VCs and their node counts, as shared/traces/philly/philly_vc.csv gives them.
const std::map<std::string, int>& PhillyVcNodes() {
  static const std::map<std::string, int> kNodes = {{"6214e9", 64}, {"7f04ca", 32}, {"11cb48", 16},
                                                    {"b436b2", 64}, {"ee9e8c", 64}, {"e13805", 16},
                                                    {"6c71a0", 32}, {"2869ce", 16}, {"ed69ec", 8},
                                                    {"103959", 8},  {"0e4a51", 32}};
  return kNodes;
}

// Checks `spec` has one owned pool per Philly VC with `nodes(vc)` 8-GPU nodes named `<vc>-<i>`.
void ExpectPhilly(const ClusterSpec& spec, int divisor) {
  ASSERT_EQ(spec.pools.size(), 11u);
  std::map<std::string, int> nodes_per_pool;
  for (const NodeSpec& n : spec.nodes) {
    EXPECT_EQ(n.gpus, 8) << n.name;
    EXPECT_EQ(n.gpu_model, "gpu") << n.name;
    EXPECT_EQ(n.name, n.pool + "-" + std::to_string(nodes_per_pool[n.pool]++));
  }
  for (const PoolSpec& p : spec.pools) {
    EXPECT_EQ(p.kind, PoolKind::kOwned) << p.name;
    ASSERT_TRUE(PhillyVcNodes().count(p.name)) << p.name;
    EXPECT_EQ(nodes_per_pool[p.name], PhillyVcNodes().at(p.name) / divisor) << p.name;
  }
}

TEST(ClusterFileTest, PhillyFullHas11PoolsAnd2816Gpus) {
  const Result<ClusterSpec> r = LoadClusterFile(ExamplePath("philly-full.yaml"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectPhilly(*r, 1);
  EXPECT_EQ(r->nodes.size(), 352u);
  EXPECT_EQ(r->TotalGpus(), 2816);
}

TEST(ClusterFileTest, PhillyHalfHas11PoolsAnd1408Gpus) {
  const Result<ClusterSpec> r = LoadClusterFile(ExamplePath("philly-half.yaml"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectPhilly(*r, 2);
  EXPECT_EQ(r->nodes.size(), 176u);
  EXPECT_EQ(r->TotalGpus(), 1408);
}

TEST(ClusterFileTest, PhillyHalfCsvMatchesTheYaml) {
  const Result<ClusterSpec> csv = LoadClusterFile(ExamplePath("philly-half.csv"));
  const Result<ClusterSpec> yaml = LoadClusterFile(ExamplePath("philly-half.yaml"));
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  ASSERT_TRUE(yaml.ok()) << yaml.status().message();
  ExpectPhilly(*csv, 2);
  ASSERT_EQ(csv->pools.size(), yaml->pools.size());
  for (size_t i = 0; i < csv->pools.size(); ++i) {
    EXPECT_EQ(csv->pools[i].name, yaml->pools[i].name);
  }
  ASSERT_EQ(csv->nodes.size(), yaml->nodes.size());
  for (size_t i = 0; i < csv->nodes.size(); ++i) {
    EXPECT_EQ(csv->nodes[i].name, yaml->nodes[i].name);
    EXPECT_EQ(csv->nodes[i].pool, yaml->nodes[i].pool);
    EXPECT_EQ(csv->nodes[i].gpus, yaml->nodes[i].gpus);
  }
}

TEST(ClusterFileTest, PhillyOnePoolHas352NodesInPoolPhilly) {
  const Result<ClusterSpec> r = LoadClusterFile(ExamplePath("philly-one-pool.yaml"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->pools.size(), 1u);
  EXPECT_EQ(r->pools[0].name, "philly");
  EXPECT_EQ(r->nodes.size(), 352u);
  EXPECT_EQ(r->nodes.back().name, "philly-351");
  EXPECT_EQ(r->TotalGpus(), 2816);
}

class ClusterFileTempTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/cluster_file_test_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(ClusterFileTempTest, ChoosesTheFormatByExtensionOrContent) {
  const std::string csv = "pool,nodes,gpus_per_node\na,2,4\n";
  const Result<ClusterSpec> by_ext = LoadClusterFile(Write("c.CSV", csv));
  ASSERT_TRUE(by_ext.ok()) << by_ext.status().message();
  EXPECT_EQ(by_ext->TotalGpus(), 8);
  const Result<ClusterSpec> by_content = LoadClusterFile(Write("cluster.txt", csv));
  ASSERT_TRUE(by_content.ok()) << by_content.status().message();
  EXPECT_EQ(by_content->nodes[1].name, "a-1");
  const Result<ClusterSpec> yaml =
      LoadClusterFile(Write("c.yml", "pools:\n  - name: a\n    nodes: [{count: 2}]\n"));
  ASSERT_TRUE(yaml.ok()) << yaml.status().message();
  EXPECT_EQ(yaml->TotalGpus(), 16);
}

TEST_F(ClusterFileTempTest, ErrorsStartWithThePath) {
  const std::string yaml = Write("bad.yaml", "pools:\n  - name: a\n    nodes: [{gpus: 8x}]\n");
  const Result<ClusterSpec> r = LoadClusterFile(yaml);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            yaml + ":3: pools[0].nodes[0].gpus: value '8x' is not an integer");
  const std::string csv = Write("bad.csv", "pool,nodes,gpus_per_node\na,x,8\n");
  const Result<ClusterSpec> c = LoadClusterFile(csv);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), csv + ":2: column 2 (nodes): value 'x' is not an integer");
}

TEST_F(ClusterFileTempTest, EmptyFile) {
  const std::string path = Write("empty.yaml", "");
  const Result<ClusterSpec> r = LoadClusterFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(path + ": the file is empty"), std::string::npos)
      << r.status().message();
}

TEST_F(ClusterFileTempTest, MissingFileOrDirectoryNamesThePath) {
  const std::string missing = dir_ + "/no-such-cluster.yaml";
  const Result<ClusterSpec> r = LoadClusterFile(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "cluster file: cannot open '" + missing + "': No such file or directory")
      << r.status().message();
  const Result<ClusterSpec> d = LoadClusterFile(dir_);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(), "cluster file: cannot read '" + dir_ + "': Is a directory")
      << d.status().message();
}

}  // namespace
}  // namespace squeeze
