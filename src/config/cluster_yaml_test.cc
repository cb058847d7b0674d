#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/cluster_file.h"

namespace squeeze {
namespace {

// Expects `r` to fail with a message that contains every one of `parts`.
void ExpectError(const Result<ClusterSpec>& r, const std::vector<std::string>& parts) {
  ASSERT_FALSE(r.ok()) << "expected an error containing '" << parts.front() << "'";
  const std::string message = r.status().message();
  for (const std::string& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  }
}

Result<ClusterSpec> Parse(const std::string& text) { return ParseClusterYaml(text, "c.yaml"); }

TEST(ClusterYamlTest, ParsesEveryField) {
  const Result<ClusterSpec> r = Parse(R"(
pools:
  - name: a100-owned
    kind: colocated
    region: us-east
    price_per_gpu_hour: 2.5
    monthly_cost: 12000
    backend: slurm
    slurm: {cluster: east, partition: gpu, conf: /etc/slurm-east/slurm.conf, user: train}
    team_quota_gpus: {vision: 16, nlp: 8}
    nodes:
      - name: a100-0
        count: 1
        gpus: 4
        gpu_model: A100
        gpu_memory_mib: 81920
        cpu_milli: 128000
        memory_mib: 1048576
        labels: {rack: r1, switch: s2}
  - name: spot
    kind: on-demand
    nodes:
      - name: s-0
)");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->pools.size(), 2u);
  const PoolSpec& p = r->pools[0];
  EXPECT_EQ(p.name, "a100-owned");
  EXPECT_EQ(p.kind, PoolKind::kColocated);
  EXPECT_EQ(p.region, "us-east");
  EXPECT_DOUBLE_EQ(p.price_per_gpu_hour, 2.5);
  EXPECT_DOUBLE_EQ(p.monthly_cost, 12000);
  EXPECT_DOUBLE_EQ(r->pools[1].monthly_cost, 0);
  EXPECT_EQ(p.backend, "slurm");
  EXPECT_EQ(p.slurm.cluster, "east");
  EXPECT_EQ(p.slurm.partition, "gpu");
  EXPECT_EQ(p.slurm.conf, "/etc/slurm-east/slurm.conf");
  EXPECT_EQ(p.slurm.user, "train");
  EXPECT_EQ(p.team_quota_gpus, (std::map<std::string, int>{{"vision", 16}, {"nlp", 8}}));
  EXPECT_EQ(r->pools[1].kind, PoolKind::kOnDemand);
  ASSERT_EQ(r->nodes.size(), 2u);
  const NodeSpec& n = r->nodes[0];
  EXPECT_EQ(n.name, "a100-0");
  EXPECT_EQ(n.pool, "a100-owned");
  EXPECT_EQ(n.gpus, 4);
  EXPECT_EQ(n.gpu_model, "A100");
  EXPECT_EQ(n.gpu_memory_mib, 81920);
  EXPECT_EQ(n.cpu_milli, 128000);
  EXPECT_EQ(n.memory_mib, 1048576);
  EXPECT_EQ(n.labels, (std::map<std::string, std::string>{{"rack", "r1"}, {"switch", "s2"}}));
  EXPECT_EQ(r->nodes[1].pool, "spot");
}

TEST(ClusterYamlTest, NodeGroupsExpandToNames) {
  const Result<ClusterSpec> r = Parse(R"(
pools:
  - name: p
    nodes:
      - {count: 3, name_prefix: a100-, gpus: 2, labels: {rack: r9}}
      - count: 2
)");
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<std::string> names;
  for (const NodeSpec& n : r->nodes) names.push_back(n.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a100-0", "a100-1", "a100-2", "p-0", "p-1"}));
  EXPECT_EQ(r->nodes[2].gpus, 2);
  EXPECT_EQ(r->nodes[2].labels.at("rack"), "r9");
  EXPECT_EQ(r->nodes[3].gpus, 8);
  EXPECT_EQ(r->TotalGpus(), 3 * 2 + 2 * 8);
}

TEST(ClusterYamlTest, DefaultsApply) {
  const Result<ClusterSpec> r = Parse("pools:\n  - name: p\n    nodes:\n      - name: n\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const PoolSpec& p = r->pools[0];
  EXPECT_EQ(p.kind, PoolKind::kOwned);
  EXPECT_EQ(p.region, "default");
  EXPECT_EQ(p.price_per_gpu_hour, 0);
  EXPECT_EQ(p.backend, "local");
  EXPECT_TRUE(p.team_quota_gpus.empty());
  const NodeSpec& n = r->nodes[0];
  EXPECT_EQ(n.gpus, 8);
  EXPECT_EQ(n.gpu_model, "gpu");
  EXPECT_EQ(n.gpu_memory_mib, 0);
  EXPECT_EQ(n.cpu_milli, 0);
  EXPECT_EQ(n.memory_mib, 0);
  EXPECT_TRUE(n.labels.empty());
}

// Heterogeneous GPUs (issue 38): the models' memory and speed; a node of a listed model gets
// its memory unless it gives its own.
TEST(ClusterYamlTest, GpuModelsGiveMemoryAndSpeed) {
  const Result<ClusterSpec> r = Parse(R"(gpu_models:
  V100: {memory_mib: 16384, speed: 1}
  K80: {speed: 0.24}
pools:
  - name: p
    nodes:
      - {name: v, gpu_model: V100}
      - {name: w, gpu_model: V100, gpu_memory_mib: 32768}
      - {name: k, gpu_model: K80}
      - {name: x, gpu_model: T4}
)");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->gpu_models.size(), 2u);
  EXPECT_EQ(r->ModelSpeed("K80"), 0.24);
  EXPECT_EQ(r->ModelSpeed("T4"), 1);
  EXPECT_EQ(r->nodes[0].gpu_memory_mib, 16384);
  EXPECT_EQ(r->nodes[1].gpu_memory_mib, 32768);
  EXPECT_EQ(r->nodes[2].gpu_memory_mib, 0);
  const std::string pools = "pools:\n  - name: p\n";
  for (const auto& [text, parts] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"gpu_models: [V100]\n", {"gpu_models: expected a map of model"}},
           {"gpu_models: {V100: {speed: 0}}\n", {"gpu_models.V100.speed", "'0.000000' is not in (0, 1000]"}},
           {"gpu_models: {V100: {speed: fast}}\n", {"gpu_models.V100", "speed", "fast"}},
           {"gpu_models: {V100: {speed: 2000}}\n", {"gpu_models.V100.speed", "not in (0, 1000]"}},
           {"gpu_models: {V100: {memory_mib: -1}}\n", {"gpu_models.V100", "memory_mib", "-1"}},
           {"gpu_models: {V100: {flops: 1}}\n", {"unknown key 'flops'", "memory_mib, speed"}}}) {
    ExpectError(Parse(text + pools), parts);
  }
}

TEST(ClusterYamlTest, TopologyGivesLevelsAndEachNodesDomains) {
  const Result<ClusterSpec> r = Parse(R"(topology:
  levels:
    - {name: block, spread_speed: 0.8}
    - {name: rack}
pools:
  - name: p
    nodes:
      - {count: 6, topology: {block: {size: 2, prefix: blk-}, rack: {size: 4, prefix: r}}}
      - {name: big, topology: {block: blk-big, rack: r9}}
      - {name: loose}
  - name: q
    nodes:
      - {count: 2, name_prefix: q-, topology: {block: {size: 2, prefix: blk-}, rack: r9}}
)");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->topology.levels.size(), 2u);
  EXPECT_EQ(r->topology.levels[0].spread_speed, 0.8);
  EXPECT_EQ(r->topology.levels[1].spread_speed, 1);
  std::vector<std::string> blocks, racks;
  for (const NodeSpec& n : r->nodes) {
    blocks.push_back(n.domains.empty() ? "-" : n.domains[0]);
    racks.push_back(n.domains.empty() ? "-" : n.domains[1]);
  }
  // The prefix blk- goes on numbering in pool q.
  EXPECT_EQ(blocks, (std::vector<std::string>{"blk-0", "blk-0", "blk-1", "blk-1", "blk-2",
                                              "blk-2", "blk-big", "-", "blk-3", "blk-3"}));
  EXPECT_EQ(racks, (std::vector<std::string>{"r0", "r0", "r0", "r0", "r1", "r1", "r9", "-",
                                             "r9", "r9"}));
  const std::string levels = "topology: {levels: [{name: block}, {name: rack}]}\n";
  for (const auto& [text, parts] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"topology: {levels: []}\npools: [{name: p, nodes: [{name: a}]}]\n",
            {"topology.levels", "expected a list of 1 to 8 levels"}},
           {"topology: {}\npools: [{name: p, nodes: [{name: a}]}]\n",
            {"topology", "missing required key 'levels'"}},
           {"topology: {levels: [{name: block, spread_speed: 0}]}\npools: [{name: p, nodes: [{name: a}]}]\n",
            {"topology.levels[0].spread_speed", "'0.000000' is not in (0, 1]"}},
           {"topology: {levels: [{name: block}, {name: block}]}\npools: [{name: p, nodes: [{name: a}]}]\n",
            {"topology.levels[1].name", "level 'block' is listed twice"}},
           {"topology: {levels: [{spread_speed: 1}]}\npools: [{name: p, nodes: [{name: a}]}]\n",
            {"topology.levels[0]", "missing required key 'name'"}},
           {"pools: [{name: p, nodes: [{name: a, topology: {block: b}}]}]\n",
            {"pools[0].nodes[0].topology", "no root 'topology'"}},
           {levels + "pools: [{name: p, nodes: [{name: a, topology: {block: b}}]}]\n",
            {"pools[0].nodes[0].topology", "missing the node's rack"}},
           {levels + "pools: [{name: p, nodes: [{name: a, topology: {block: b, spine: s}}]}]\n",
            {"pools[0].nodes[0].topology", "unknown key 'spine'", "block, rack"}},
           {levels + "pools: [{name: p, nodes: [{count: 2, topology: {block: {size: 0}, rack: r}}]}]\n",
            {"pools[0].nodes[0].topology.block.size", "'0' must be at least 1"}},
           {levels + "pools: [{name: p, nodes: [{count: 2, topology: {block: {prefix: b}, rack: r}}]}]\n",
            {"pools[0].nodes[0].topology.block", "missing required key 'size'"}},
           {levels + "pools: [{name: p, nodes: [{name: a, topology: {block: b, rack: r0}}, "
                     "{name: c, topology: {block: b, rack: r1}}]}]\n",
            {"node 'c'", "block 'b' is in rack 'r0' and in 'r1'"}}}) {
    ExpectError(Parse(text), parts);
  }
}

TEST(ClusterYamlTest, AcceptsEveryKindNumericNamesAndPoolsWithoutNodes) {
  const Result<ClusterSpec> r = Parse(R"(
pools:
  - {name: 6214e9, kind: owned, nodes: [{count: 1}]}
  - {name: b, kind: colocated}
  - {name: c, kind: spot, price_per_gpu_hour: "1e-1"}
  - {name: d, kind: reserved, nodes: []}
  - {name: e, kind: on-demand}
)");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->pools[0].name, "6214e9");
  EXPECT_EQ(r->nodes[0].name, "6214e9-0");
  EXPECT_EQ(r->pools[2].kind, PoolKind::kSpot);
  EXPECT_DOUBLE_EQ(r->pools[2].price_per_gpu_hour, 0.1);
  EXPECT_EQ(r->pools[3].kind, PoolKind::kReserved);
  EXPECT_EQ(r->nodes.size(), 1u);
}

TEST(ClusterYamlTest, UnknownKeyNamesKeyPathLineAndKnownKeys) {
  const std::string text =
      "pools:\n"
      "  - name: a\n"
      "    nodes: [{name: a0}]\n"
      "  - name: b\n"
      "    nodes:\n"
      "      - name: b0\n"
      "        gpu: 8\n";
  ExpectError(Parse(text), {"c.yaml:7: pools[1].nodes[0]: unknown key 'gpu'",
                            "known keys: name, count, name_prefix, gpus"});
  ExpectError(Parse("pools:\n  - name: a\n    regoin: eu\n"),
              {"c.yaml:3: pools[0]: unknown key 'regoin'", "region"});
  ExpectError(Parse("pool:\n  - name: a\n"), {"c.yaml:1: unknown key 'pool'", "pools"});
}

TEST(ClusterYamlTest, WrongTypeNamesPathAndValue) {
  ExpectError(Parse("pools:\n  - name: a\n    nodes:\n      - name: a0\n        gpus: abc\n"),
              {"c.yaml:5: pools[0].nodes[0].gpus: value 'abc' is not an integer"});
  ExpectError(Parse("pools:\n  - name: a\n    nodes:\n      - {name: a0, gpus: 1.5}\n"),
              {"c.yaml:4: pools[0].nodes[0].gpus: value '1.5' is not an integer"});
  ExpectError(Parse("pools:\n  - name: a\n    nodes:\n      - {name: a0, gpus: [8]}\n"),
              {"pools[0].nodes[0].gpus: expected an integer, got a list"});
  ExpectError(Parse("pools:\n  - name: a\n    price_per_gpu_hour: cheap\n"),
              {"c.yaml:3: pools[0].price_per_gpu_hour: value 'cheap' is not a number"});
  ExpectError(Parse("pools:\n  - name: a\n    region:\n"),
              {"c.yaml:3: pools[0].region: expected a string, got nothing"});
  ExpectError(Parse("pools:\n  - name: a\n    nodes: {name: a0}\n"),
              {"c.yaml:3: pools[0].nodes: expected a list of nodes, got a map"});
  ExpectError(Parse("pools:\n  - name: a\n    team_quota_gpus: {vision: lots}\n"),
              {"pools[0].team_quota_gpus.vision: value 'lots' is not an integer"});
}

TEST(ClusterYamlTest, NegativeAndOutOfRangeValues) {
  ExpectError(Parse("pools:\n  - name: a\n    nodes:\n      - name: a0\n        gpus: -2\n"),
              {"c.yaml:5: pools[0].nodes[0].gpus: value '-2' must be at least 0"});
  ExpectError(Parse("pools:\n  - name: a\n    nodes: [{name: a0, memory_mib: -1}]\n"),
              {"pools[0].nodes[0].memory_mib: value '-1' must be at least 0"});
  ExpectError(Parse("pools:\n  - name: a\n    price_per_gpu_hour: -0.5\n"),
              {"c.yaml:3: pools[0].price_per_gpu_hour: value '-0.5' must be at least 0"});
  ExpectError(Parse("pools:\n  - name: a\n    monthly_cost: -10\n"),
              {"c.yaml:3: pools[0].monthly_cost: value '-10' must be at least 0"});
  ExpectError(Parse("pools:\n  - name: a\n    monthly_cost: a lot\n"),
              {"c.yaml:3: pools[0].monthly_cost: value 'a lot' is not a number"});
  ExpectError(Parse("pools:\n  - name: a\n    team_quota_gpus: {nlp: -4}\n"),
              {"c.yaml:3: pools[0].team_quota_gpus.nlp: value '-4' must be at least 0"});
  // The upper bound on GPUs per node is ClusterSpec::Validate's, reported with the source.
  ExpectError(Parse("pools:\n  - name: a\n    nodes: [{name: a0, gpus: 65}]\n"),
              {"c.yaml: cluster: node 'a0': gpus 65 is out of range"});
}

TEST(ClusterYamlTest, DuplicateNodeNamesNameBothPlaces) {
  ExpectError(Parse("pools:\n  - name: a\n    nodes:\n      - name: n0\n      - name: n0\n"),
              {"c.yaml:5: pools[0].nodes[1].name: node 'n0' is already defined at "
               "pools[0].nodes[0].name"});
  ExpectError(Parse("pools:\n"
                    "  - {name: a, nodes: [{name: x-1}]}\n"
                    "  - {name: b, nodes: [{count: 3, name_prefix: x-}]}\n"),
              {"c.yaml:3: pools[1].nodes[0]: node 'x-1' is already defined at pools[0]"});
}

TEST(ClusterYamlTest, BadNodeGroups) {
  ExpectError(Parse("pools:\n  - name: a\n    nodes:\n      - count: 0\n"),
              {"c.yaml:4: pools[0].nodes[0].count: value '0' must be at least 1"});
  ExpectError(Parse("pools:\n  - name: a\n    nodes:\n      - count: -3\n"),
              {"c.yaml:4: pools[0].nodes[0].count: value '-3' must be at least 1"});
  ExpectError(Parse("pools:\n  - name: a\n    nodes:\n      - {name: n, count: 2}\n"),
              {"c.yaml:4: pools[0].nodes[0].count: value '2' must be 1 with 'name'"});
  ExpectError(Parse("pools:\n  - name: a\n    nodes:\n      - {name: n, name_prefix: m}\n"),
              {"c.yaml:4: pools[0].nodes[0]: give either 'name'"});
  ExpectError(Parse("pools:\n  - name: a\n    nodes:\n      - gpus: 4\n"),
              {"c.yaml:4: pools[0].nodes[0]: a node entry needs 'name'"});
}

TEST(ClusterYamlTest, PoolErrors) {
  ExpectError(Parse("pools:\n  - name: a\n  - kind: spot\n    region: eu\n"),
              {"c.yaml:3: pools[1]: missing required key 'name'"});
  ExpectError(Parse("pools:\n  - name: ''\n"),
              {"c.yaml:2: pools[0].name: value must not be empty"});
  ExpectError(Parse("pools:\n  - name: a\n    kind: spto\n"),
              {"c.yaml:3: pools[0].kind: value 'spto' is not a pool kind",
               "owned, colocated, spot, reserved, on-demand"});
  ExpectError(Parse("pools:\n  - {name: a, nodes: [{name: a0}]}\n  - {name: a}\n"),
              {"c.yaml:3: pools[1].name: pool 'a' is already defined at pools[0]"});
}

TEST(ClusterYamlTest, DocumentShapeErrors) {
  ExpectError(Parse(""), {"c.yaml: the file is empty"});
  ExpectError(Parse("# only a comment\n\n"), {"c.yaml: the file is empty"});
  ExpectError(Parse("- a\n- b\n"), {"c.yaml:1: expected a map with keys pools, region_links, region_price_factors, gpu_models, limits, topology, got a list"});
  ExpectError(Parse("other: 1\n"), {"c.yaml:1: unknown key 'other'"});
  ExpectError(Parse("pools: []\n"), {"c.yaml:1: pools: the list is empty"});
  ExpectError(Parse("pools: 3\n"), {"c.yaml:1: pools: expected a list of pools, got a single"});
  // Found by fuzz/fuzz_cluster.cc: yaml-cpp's LoadAll never returned on a stray ','.
  ExpectError(Parse(","), {"c.yaml: the file is empty"});
  ExpectError(Parse("pools:\n  - name: a\n    nodes: [{name: a0}]\n---\npools: []\n"),
              {"holds more than one YAML document; expected one"});
  ExpectError(Parse("pools:\n  - name: a\n    name: b\n"),
              {"c.yaml:3: pools[0]: key 'name' is given twice"});
  ExpectError(Parse("pools:\n  - {name: a}\n"), {"c.yaml: cluster: no nodes"});
}

TEST(ClusterYamlTest, SyntaxErrorNamesLineAndColumn) {
  ExpectError(Parse("pools:\n  - name: a\n    nodes: [{name: a0\n"),
              {"c.yaml:", "YAML syntax error"});
  ExpectError(Parse("pools:\n  - name: [a\n  - name: b\n"), {"c.yaml:", "YAML syntax error"});
}

}  // namespace
}  // namespace squeeze

namespace squeeze {
namespace {

TEST(ClusterYamlRegionsTest, ReadsRegionLinksBothWays) {
  const Result<ClusterSpec> r = ParseClusterYaml(R"(
pools:
  - {name: east, region: us-east, nodes: [{name: e0}]}
  - {name: west, region: eu-west, nodes: [{name: w0}]}
region_links:
  - {from: us-east, to: eu-west, bandwidth_gbps: 10, price_per_gb: 0.02}
)", "c.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->region_links.size(), 1u);
  const RegionLink* link = r->LinkBetween("eu-west", "us-east");
  ASSERT_NE(link, nullptr);
  EXPECT_DOUBLE_EQ(link->bandwidth_gbps, 10);
  EXPECT_DOUBLE_EQ(link->price_per_gb, 0.02);
  EXPECT_EQ(r->LinkBetween("us-east", "nowhere"), nullptr);
}

TEST(ClusterYamlRegionsTest, SlurmPoolsAndLinksRefuseWhatCannotWork) {
  const std::string pools = R"(
pools:
  - {name: east, region: us-east, nodes: [{name: e0}]}
  - {name: west, region: eu-west, nodes: [{name: w0}]}
)";
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"pools:\n  - {name: s, backend: slurm, nodes: [{name: n}]}\n",
       "pool 's': backend slurm needs slurm.conf"},
      {"pools:\n  - {name: s, backend: slurm, slurm: {cluster: x}, nodes: [{name: n}]}\n",
       "c.yaml:2: pools[0].slurm: missing required key 'conf'"},
      {"pools:\n  - {name: s, slurm: {conf: /x}, nodes: [{name: n}]}\n",
       "pool 's': a slurm map needs backend: slurm"},
      {"pools:\n  - {name: s, backend: k8s, nodes: [{name: n}]}\n",
       "pool 's': backend 'k8s' is not local or slurm"},
      {"pools:\n  - {name: s, backend: slurm, slurm: {conf: /x, partiton: a}, nodes: [{name: n}]}\n",
       "pools[0].slurm: unknown key 'partiton'"},
      {pools + "region_links: {from: us-east}\n", "region_links: expected a list of links, got a map"},
      {pools + "region_links:\n  - {from: us-east, to: eu-west}\n",
       "region_links[0]: missing required key 'bandwidth_gbps'"},
      {pools + "region_links:\n  - {from: us-east, to: eu-west, bandwidth_gbps: 0}\n",
       "region_links[0].bandwidth_gbps: value must be more than 0"},
      {pools + "region_links:\n  - {from: us-east, to: eu-west, bandwidth_gbps: fast}\n",
       "region_links[0].bandwidth_gbps: value 'fast' is not a number"},
      {pools + "region_links:\n  - {from: us-east, to: mars, bandwidth_gbps: 1}\n",
       "region link us-east - mars: no pool is in region 'mars'"},
      {pools + "region_links:\n  - {from: us-east, to: eu-west, bandwidth_gbps: 1}\n"
               "  - {from: eu-west, to: us-east, bandwidth_gbps: 2}\n",
       "region link eu-west - us-east: given twice"},
  };
  for (const Case& c : cases) {
    const Result<ClusterSpec> r = ParseClusterYaml(c.text, "c.yaml");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.message), std::string::npos)
        << "'" << c.message << "' not in: " << r.status().message();
  }
}

}  // namespace
}  // namespace squeeze

namespace squeeze {
namespace {

TEST(ClusterYamlCapacityTest, ReadsSpotColocationAndRegionPrices) {
  const Result<ClusterSpec> r = ParseClusterYaml(R"(
pools:
  - {name: owned, region: us-east, nodes: [{name: o0}]}
  - name: spot
    kind: spot
    region: eu-west
    price_per_gpu_hour: 1.2
    spot: {warning: 2m, mean_reclaim_interval: 6h, outage: 30m}
    nodes: [{name: s0}]
  - name: infer
    kind: colocated
    colocation: {cap: 0.5, evict_within: 45s, training_speed: 0.7, idle_windows: true}
    nodes: [{name: i0}]
region_price_factors: {eu-west: 1.25}
)", "c.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const PoolSpec& spot = r->pools[1];
  EXPECT_EQ(spot.spot.warning, 2 * kMinute);
  EXPECT_EQ(spot.spot.mean_reclaim_interval, 6 * kHour);
  EXPECT_EQ(spot.spot.outage, 30 * kMinute);
  EXPECT_DOUBLE_EQ(r->PricePerGpuHour(1), 1.5);  // 1.2 x 1.25
  EXPECT_DOUBLE_EQ(r->PricePerGpuHour(0), 0);
  const ColocationSpec& coloc = r->pools[2].colocation;
  EXPECT_DOUBLE_EQ(coloc.cap, 0.5);
  EXPECT_EQ(coloc.evict_within, 45 * kSecond);
  EXPECT_DOUBLE_EQ(coloc.TrainingSpeed(), 0.7);
  EXPECT_TRUE(coloc.idle_windows);
  EXPECT_FALSE(ColocationSpec{}.idle_windows);
  EXPECT_DOUBLE_EQ(ColocationSpec{}.TrainingSpeed(), 0.6);  // default: the cap
}

TEST(ClusterYamlCapacityTest, RefusesBrokenSpotAndColocationSettings) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"pools:\n  - {name: s, kind: spot, spot: {warning: soon}, nodes: [{name: n}]}\n",
       "c.yaml:2: pools[0].spot.warning: value 'soon' is not a duration"},
      {"pools:\n  - {name: s, kind: spot, spot: {warn: 30s}, nodes: [{name: n}]}\n",
       "pools[0].spot: unknown key 'warn'; known keys: warning, mean_reclaim_interval, outage"},
      {"pools:\n  - {name: s, spot: {warning: 30s}, nodes: [{name: n}]}\n",
       "pool 's': a spot map needs kind: spot"},
      {"pools:\n  - {name: c, kind: colocated, colocation: {cap: 1.5}, nodes: [{name: n}]}\n",
       "pools[0].colocation.cap: value '1.5' must be more than 0 and at most 1"},
      {"pools:\n  - {name: c, kind: colocated, colocation: {cap: 0}, nodes: [{name: n}]}\n",
       "pools[0].colocation.cap: value '0' must be more than 0 and at most 1"},
      {"pools:\n  - {name: c, colocation: {cap: 0.5}, nodes: [{name: n}]}\n",
       "pool 'c': a colocation map needs kind: colocated"},
      {"pools:\n  - {name: c, kind: colocated, colocation: [0.5], nodes: [{name: n}]}\n",
       "pools[0].colocation: expected a map with keys cap, evict_within, training_speed, "
       "idle_windows, got a list"},
      {"pools:\n  - {name: c, kind: colocated, colocation: {idle_windows: nights}, nodes: [{name: n}]}\n",
       "pools[0].colocation.idle_windows: value 'nights' is not true or false"},
      {"pools:\n  - {name: o, nodes: [{name: n}]}\nregion_price_factors: {default: -1}\n",
       "region_price_factors.default: value '-1' must be at least 0"},
      {"pools:\n  - {name: o, nodes: [{name: n}]}\nregion_price_factors: {default: 0}\n",
       "region_price_factors.default: value '0' must be more than 0"},
      {"pools:\n  - {name: o, nodes: [{name: n}]}\nregion_price_factors: {mars: 2}\n",
       "region_price_factors: no pool is in region 'mars'"},
      {"pools:\n  - {name: o, nodes: [{name: n}]}\nregion_price_factors: [1]\n",
       "region_price_factors: expected a map of region: factor, got a list"},
  };
  for (const Case& c : cases) {
    const Result<ClusterSpec> r = ParseClusterYaml(c.text, "c.yaml");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.message), std::string::npos)
        << "'" << c.message << "' not in: " << r.status().message();
  }
}

}  // namespace
}  // namespace squeeze
